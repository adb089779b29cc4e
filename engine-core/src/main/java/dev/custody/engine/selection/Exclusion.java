package dev.custody.engine.selection;

import dev.custody.engine.diagnostic.Diagnostic;
import java.util.Objects;

/**
 * A policy or a rule that a {@link RuleSelection} left out, and why. Immutable and thread-safe.
 *
 * @param policyIndex the policy's position in the list the selection was made from (0-based)
 * @param ruleIndex the rule's position in its policy, or -1 when the whole policy is left out
 * @param policyId the policy's id, or {@code #<policy index>} when it has none
 * @param reason why
 * @param error the error, for the reasons that make the selection invalid; null for the others
 */
public record Exclusion(int policyIndex, int ruleIndex, String policyId, Reason reason, Diagnostic error) {

    /** Why a policy or rule is left out. */
    public enum Reason {
        /** The policy is {@code pending}, {@code inactive} or {@code rejected}: it is ignored, whatever it holds. */
        NOT_ACTIVE,
        /** The policy's status is none of the four: an error. */
        UNKNOWN_STATUS,
        /** An earlier active policy of the same list has the policy's id: an error. */
        DUPLICATE_POLICY_ID,
        /** The active policy does not validate (a rule does not compile, a bad effect, wallet id, …): an error. */
        INVALID,
        /** The rule of an active policy is disabled ({@code is_enabled: false}): never compiled, never evaluated. */
        DISABLED
    }

    public Exclusion {
        Objects.requireNonNull(policyId, "policyId");
        Objects.requireNonNull(reason, "reason");
    }

    /** Whether this exclusion is an error that makes the selection invalid. */
    public boolean isError() {
        return error != null;
    }
}
