package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;
/**
 * A policy as the server returns it (list, get). The spec leaves the full shape of these responses
 * out, so only the documented fields are typed; the raw JSON stays available through
 * {@code ApiResponse#raw()}. Lists are never {@code null}. Immutable and thread-safe.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record Policy(
        String id,
        String workspaceId,
        String name,
        String description,
        String approvalGroupId,
        List<String> walletIds,
        List<Rule> rules,
        String status,
        Integer version,
        String createdAt,
        String updatedAt) {

    public Policy {
        walletIds = walletIds == null ? List.of() : List.copyOf(walletIds);
        rules = rules == null ? List.of() : List.copyOf(rules);
    }
}
