package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.math.BigDecimal;
/**
 * Sweep task parameters of a wallet creation: once the wallet's USD value reaches
 * {@code min_trigger_value_usd}, its funds are swept to the destination. {@code destination_type}
 * is {@code internal_wallet} (server default when {@code null}) or {@code address_book}.
 * Immutable and thread-safe.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record SweepTaskParams(BigDecimal minTriggerValueUsd, String destinationWalletId, String destinationType) {
}
