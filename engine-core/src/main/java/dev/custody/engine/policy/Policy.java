package dev.custody.engine.policy;

import dev.custody.engine.schema.PolicyStatus;
import java.util.List;
import java.util.Optional;

/**
 * A policy as written (a create-policy body plus the optional {@code id}, {@code status}, {@code version},
 * {@code workspace_id}, {@code created_at}): wire values, unchecked, so that the policy validator can
 * report every problem. Immutable and thread-safe.
 *
 * @param id policy id; may be null (a policy file then derives one from the file name)
 * @param name 3 to 100 characters
 * @param description up to 500 characters; may be null
 * @param approvalGroupId the approval group's UUID; required
 * @param walletIds targeted wallets (UUIDs); empty targets every wallet of the workspace
 * @param rules the rules, in declaration order
 * @param status {@code pending}, {@code active}, {@code inactive} or {@code rejected}; null counts as active
 * @param version revision number; may be null
 * @param workspaceId the workspace; may be null
 * @param createdAt creation timestamp as sent by the API; may be null
 */
public record Policy(
        String id,
        String name,
        String description,
        String approvalGroupId,
        List<String> walletIds,
        List<Rule> rules,
        String status,
        Integer version,
        String workspaceId,
        String createdAt) {

    public Policy {
        walletIds = walletIds == null ? List.of() : List.copyOf(walletIds);
        rules = rules == null ? List.of() : List.copyOf(rules);
    }

    /**
     * The status the evaluator goes by: absent means active; empty when the status is not one of the
     * four (such a policy makes its workspace's bundle invalid, so the evaluator denies).
     */
    public Optional<PolicyStatus> effectiveStatus() {
        return status == null ? Optional.of(PolicyStatus.ACTIVE) : PolicyStatus.fromWireName(status);
    }

    /** This policy with another id. */
    public Policy withId(String newId) {
        return new Policy(newId, name, description, approvalGroupId, walletIds, rules, status, version, workspaceId,
                createdAt);
    }

    /** This policy with other rules. */
    public Policy withRules(List<Rule> newRules) {
        return new Policy(id, name, description, approvalGroupId, walletIds, newRules, status, version, workspaceId,
                createdAt);
    }
}
