package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
/**
 * The body of {@code POST /wallets}. {@code name} and {@code wallet_type} ({@code standard} or
 * {@code mpc}) are required; {@code wallet_purpose} defaults to {@code general} on the server.
 * {@code sweep_task_params} and {@code sweep_task_id} should not be combined: when both are sent the
 * server uses the id and ignores the parameters (the client warns). Null fields are not sent.
 * Immutable and thread-safe.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record CreateWalletRequest(
        String name,
        String walletType,
        String walletPurpose,
        SweepTaskParams sweepTaskParams,
        String sweepTaskId) {

    /** A wallet of {@code walletType} without purpose or sweep task. */
    public static CreateWalletRequest of(String name, String walletType) {
        return new CreateWalletRequest(name, walletType, null, null, null);
    }
}
