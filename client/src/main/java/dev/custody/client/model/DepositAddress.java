package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
/**
 * The {@code data} of the deposit address endpoint: asset id, address and a URL of a QR code image.
 * Immutable and thread-safe.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record DepositAddress(String assetId, String address, String qrCode) {
}
