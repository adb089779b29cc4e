package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
/**
 * A blockchain network of the public catalogue ({@code GET /networks}), also nested in an
 * {@link Asset}. Every field may be {@code null} when the server omits it ({@code is_testnet} often
 * is); unknown fields are ignored. Immutable and thread-safe.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record Network(
        String id,
        String createdAt,
        String updatedAt,
        String name,
        String description,
        Boolean isEvm,
        Long chainId,
        String nativeCurrency,
        Boolean isTestnet,
        String internalCode,
        String explorerTx,
        String explorerAddress,
        String explorerToken,
        Integer confirmationBlocks,
        Integer blockIntervalInSeconds,
        Boolean disabled,
        String logoUrl,
        Boolean isRpcActive,
        String rpcHealthStatus,
        Integer pendingBlockRangeCount) {
}
