package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
/**
 * One revision of {@code GET .../policies/{policy_id}/history} (newest first). The spec shows only
 * the field-level {@code changes} list, whose elements have no documented shape, so they stay JSON
 * trees. Immutable and thread-safe as long as nobody modifies those trees.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record PolicyRevision(List<JsonNode> changes) {
    public PolicyRevision {
        changes = changes == null ? List.of() : List.copyOf(changes);
    }
}
