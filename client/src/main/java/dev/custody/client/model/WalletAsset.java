package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
/**
 * The wallet asset record returned by {@code PUT /wallets/{wallet_id}/asset/{asset_id}}.
 * Immutable and thread-safe.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record WalletAsset(String id, String walletId, String assetId, String depositAddress, Boolean hidden) {
}
