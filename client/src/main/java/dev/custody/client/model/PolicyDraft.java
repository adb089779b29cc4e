package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;
/**
 * The body of create policy. {@code name} and {@code approval_group_id} are required; an omitted
 * (null) {@code wallet_ids} targets every wallet. Null fields are not sent. Immutable and thread-safe.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record PolicyDraft(
        String name,
        String description,
        String approvalGroupId,
        List<String> walletIds,
        List<RuleDraft> rules) {

    public PolicyDraft {
        walletIds = walletIds == null ? null : List.copyOf(walletIds);
        rules = rules == null ? null : List.copyOf(rules);
    }
}
