package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;
/**
 * One element of {@code GET /workspaces/{workspace_id}/balances}: a symbol aggregated over every
 * network, with the per-network breakdown. Immutable and thread-safe.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record BalanceBySymbol(
        String symbol,
        String totalBalance,
        String totalValueUsd,
        Integer totalWalletCount,
        List<NetworkBalance> networks) {

    public BalanceBySymbol {
        networks = networks == null ? List.of() : List.copyOf(networks);
    }
}
