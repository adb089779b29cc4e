package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
/**
 * The body of {@code POST /web3/{wallet_id}/sign}: {@code method} ({@code eth_sign},
 * {@code eth_signTypedData_v4}, {@code solana_signMessage}), {@code message} (empty for typed
 * data), {@code chain_id} (0 for Solana) and {@code typed_data} (a JSON string; typed data only).
 * Immutable and thread-safe.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record SignMessageRequest(String method, String message, long chainId, String typedData) {

    /** {@code eth_sign} of {@code message} on the EVM chain {@code chainId}. */
    public static SignMessageRequest ethSign(String message, long chainId) {
        return new SignMessageRequest("eth_sign", message, chainId, null);
    }

    /** {@code eth_signTypedData_v4} of the typed data JSON (domain, types, message). */
    public static SignMessageRequest typedDataV4(String typedDataJson, long chainId) {
        return new SignMessageRequest("eth_signTypedData_v4", "", chainId, typedDataJson);
    }

    /** {@code solana_signMessage} of {@code message} (chain id 0). */
    public static SignMessageRequest solanaSignMessage(String message) {
        return new SignMessageRequest("solana_signMessage", message, 0, null);
    }
}
