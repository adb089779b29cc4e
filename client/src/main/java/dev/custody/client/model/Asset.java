package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
/**
 * An asset of the public catalogue ({@code GET /assets}) with its nested {@link Network}. Prices and
 * amounts stay strings, as the server sends them, so no precision is lost. Unknown fields are
 * ignored. Immutable and thread-safe.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record Asset(
        String id,
        String createdAt,
        String updatedAt,
        String name,
        String symbol,
        Integer decimals,
        String logoUrl,
        String address,
        String assetType,
        Boolean isNative,
        String addressType,
        Boolean isWhitelisted,
        String networkId,
        Network network,
        String priceUsd,
        String priceUsdUpdatedAt) {
}
