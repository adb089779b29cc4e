package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;
/**
 * The {@code policy} object inside a create-policy answer: id, name, status, version, wallet ids.
 * Immutable and thread-safe.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record PolicySummary(String id, String name, String status, Integer version, List<String> walletIds) {
    public PolicySummary {
        walletIds = walletIds == null ? List.of() : List.copyOf(walletIds);
    }
}
