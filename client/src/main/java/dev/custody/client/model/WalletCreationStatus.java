package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
/**
 * The bare (no envelope) body of {@code GET /wallets/creation-status/{wallet_id}}. Immutable and
 * thread-safe.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record WalletCreationStatus(String walletId, String status) {
    /** Creation is still running (an MPC key is being generated). */
    @JsonIgnore
    public boolean isPending() {
        return status == null || "pending".equals(status);
    }

    /** The wallet was created. */
    @JsonIgnore
    public boolean isSuccess() {
        return "success".equals(status);
    }
}
