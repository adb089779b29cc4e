package dev.custody.engine.policy;

import dev.custody.engine.schema.Limits;
import dev.custody.engine.schema.PolicyStatus;
import dev.custody.engine.schema.Uuids;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A policy as written (a create-policy body plus the optional {@code id}, {@code status}, {@code version},
 * {@code workspace_id}, {@code created_at}): wire values, unchecked, so that the policy validator can
 * report every problem. Immutable and thread-safe.
 *
 * <p>Code that builds a policy (a service's baseline policies, a test, a mapping from its own store) uses
 * {@link #builder}: typed status, rules from {@link Rule#builder}, and every structural problem refused at
 * {@link Builder#build()} with a precise message. The record stays what the wire maps to.
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

    /**
     * A builder of the policy {@code id}.
     *
     * <pre>{@code
     * Policy limits = Policy.builder("limits")
     *         .name("withdrawal limits")
     *         .approvalGroupId("985976e8-9faf-4e44-a2ed-b01af2ca04cf")
     *         .status(PolicyStatus.ACTIVE)
     *         .rule(Rule.builder("big").triggerAction(TriggerAction.WITHDRAWAL_CREATE)
     *                 .condition("withdrawal.value_usd > 10000").effect(Effect.DENY).build())
     *         .build();
     * }</pre>
     *
     * @param id the policy's id (decisions name it); checked by {@link Builder#build()} (required, not blank)
     */
    public static Builder builder(String id) {
        return new Builder(id);
    }

    /**
     * Builds a {@link Policy} from typed values. {@link #build()} fails fast, with a one-line message naming the
     * policy (and the rule) and the field, on what is structurally wrong: a missing or blank id, a name outside 3 to
     * 100 characters, no approval group or one that is not a UUID, no status (required: a policy built without one
     * must not go live by default), a wallet id that is not a UUID, too many wallets or rules, a rule id used twice,
     * a version below 1, a blank workspace id, and whatever {@link Rule.Builder#build()} refuses in a rule. Whether
     * the conditions compile is the engine's business (and {@code custody lint}'s). Setters take only non-null values
     * (a null is a {@link NullPointerException} naming the parameter). Not thread-safe; the policy built is
     * immutable.
     */
    public static final class Builder {
        private final String id;
        private String name;
        private String description;
        private String approvalGroupId;
        private final List<String> walletIds = new ArrayList<>();
        private final List<Rule> rules = new ArrayList<>();
        private PolicyStatus status;
        private Integer version;
        private String workspaceId;
        private Instant createdAt;

        private Builder(String id) {
            this.id = id;
        }

        /** The name, 3 to 100 characters; required. */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /** At most 500 characters; default none. */
        public Builder description(String description) {
            this.description = Objects.requireNonNull(description, "description");
            return this;
        }

        /** The approval group (a UUID) that reviews changes to the policy; required. */
        public Builder approvalGroupId(String approvalGroupId) {
            this.approvalGroupId = Objects.requireNonNull(approvalGroupId, "approvalGroupId");
            return this;
        }

        /** Adds a targeted wallet (a UUID); none targets every wallet of the workspace. */
        public Builder walletId(String walletId) {
            walletIds.add(Objects.requireNonNull(walletId, "walletId"));
            return this;
        }

        /** Adds targeted wallets (UUIDs), in order. */
        public Builder walletIds(List<String> ids) {
            Objects.requireNonNull(ids, "walletIds").forEach(this::walletId);
            return this;
        }

        /** Adds a rule (after those added before: declaration order decides attribution). */
        public Builder rule(Rule rule) {
            rules.add(Objects.requireNonNull(rule, "rule"));
            return this;
        }

        /** Adds rules, in order. */
        public Builder rules(List<Rule> rules) {
            Objects.requireNonNull(rules, "rules").forEach(this::rule);
            return this;
        }

        /** The status; required (only {@link PolicyStatus#ACTIVE} policies are evaluated). */
        public Builder status(PolicyStatus status) {
            this.status = Objects.requireNonNull(status, "status");
            return this;
        }

        /** The revision number, 1 or more; default none. */
        public Builder version(int version) {
            this.version = version;
            return this;
        }

        /** The workspace the policy belongs to; default none. */
        public Builder workspaceId(String workspaceId) {
            this.workspaceId = Objects.requireNonNull(workspaceId, "workspaceId");
            return this;
        }

        /** When the policy was created; default none. */
        public Builder createdAt(Instant createdAt) {
            this.createdAt = Objects.requireNonNull(createdAt, "createdAt");
            return this;
        }

        /**
         * The policy.
         *
         * @throws IllegalStateException naming the policy and the first problem found
         */
        public Policy build() {
            if (id == null) {
                throw new IllegalStateException("policy id is required");
            }
            if (id.isBlank()) {
                throw new IllegalStateException("policy id is blank");
            }
            String what = "policy `" + id + "`: ";
            if (name == null) {
                throw new IllegalStateException(what + "name is required");
            }
            int n = name.codePointCount(0, name.length());
            if (n < Limits.POLICY_NAME_MIN || n > Limits.POLICY_NAME_MAX) {
                throw new IllegalStateException(what + "name is " + n + " characters long; it must be "
                        + Limits.POLICY_NAME_MIN + " to " + Limits.POLICY_NAME_MAX);
            }
            atMost(what + "description", description, Limits.POLICY_DESCRIPTION_MAX);
            if (approvalGroupId == null) {
                throw new IllegalStateException(what + "approval group id is required");
            }
            if (!Uuids.isUuid(approvalGroupId)) {
                throw new IllegalStateException(what + "approval group id `" + approvalGroupId + "` is not a UUID");
            }
            if (status == null) {
                throw new IllegalStateException(what + "status is required (active, pending, inactive or rejected)");
            }
            if (walletIds.size() > Limits.WALLET_IDS_MAX) {
                throw new IllegalStateException(what + walletIds.size() + " wallet ids; the limit is "
                        + Limits.WALLET_IDS_MAX);
            }
            for (String w : walletIds) {
                if (!Uuids.isUuid(w)) {
                    throw new IllegalStateException(what + "wallet id `" + w + "` is not a UUID");
                }
            }
            if (rules.size() > Limits.RULES_PER_POLICY_MAX) {
                throw new IllegalStateException(what + rules.size() + " rules; the limit is "
                        + Limits.RULES_PER_POLICY_MAX);
            }
            Set<String> ruleIds = new HashSet<>();
            for (Rule r : rules) {
                Rule.Builder.check(r, what);
                if (!ruleIds.add(r.ruleId())) {
                    throw new IllegalStateException(what + "rule id `" + r.ruleId() + "` is used twice");
                }
            }
            if (version != null && version < 1) {
                throw new IllegalStateException(what + "version must be 1 or more, got " + version);
            }
            if (workspaceId != null && workspaceId.isBlank()) {
                throw new IllegalStateException(what + "workspace id is blank");
            }
            return new Policy(id, name, description, approvalGroupId, walletIds, rules, status.wireName(), version,
                    workspaceId, createdAt == null ? null : createdAt.toString());
        }

        /** Refuses a value longer than {@code max} code points (null passes): {@code "<what> is N characters…"}. */
        static void atMost(String what, String value, int max) {
            if (value != null) {
                int n = value.codePointCount(0, value.length());
                if (n > max) {
                    throw new IllegalStateException(what + " is " + n + " characters long; the limit is " + max);
                }
            }
        }
    }
}
