package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;
/**
 * The body of update policy. Null fields are omitted and so stay unchanged on the server; an empty
 * {@code rules} list clears every rule, a non-empty one replaces the whole rule set. Immutable and thread-safe.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record PolicyUpdate(
        String name,
        String description,
        String approvalGroupId,
        List<String> walletIds,
        List<RuleDraft> rules) {

    public PolicyUpdate {
        walletIds = walletIds == null ? null : List.copyOf(walletIds);
        rules = rules == null ? null : List.copyOf(rules);
    }
}
