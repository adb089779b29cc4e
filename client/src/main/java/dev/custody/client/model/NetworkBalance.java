package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
/**
 * The balance of one asset on one network inside a {@link BalanceBySymbol}. Immutable and
 * thread-safe.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record NetworkBalance(
        String assetId,
        String assetName,
        String assetLogo,
        String networkId,
        String networkName,
        String networkLogo,
        String balance,
        Integer walletCount) {
}
