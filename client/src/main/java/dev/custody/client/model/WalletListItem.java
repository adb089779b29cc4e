package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
/**
 * One element of the bare array returned by list wallets ({@code GET /workspaces/{id}/wallets}).
 * {@code top_assets} has no documented shape, so its elements stay JSON trees. Immutable and
 * thread-safe as long as nobody modifies those trees.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record WalletListItem(
        String id,
        String name,
        String role,
        String walletType,
        String valueUsd,
        List<JsonNode> topAssets,
        String walletPurpose) {

    public WalletListItem {
        topAssets = topAssets == null ? List.of() : List.copyOf(topAssets);
    }
}
