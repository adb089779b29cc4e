package dev.custody.engine;

import dev.custody.engine.schema.Effect;
import java.util.Objects;

/**
 * One evaluated rule in a decision's trace. Immutable and thread-safe.
 *
 * @param policyId the rule's policy
 * @param ruleId the rule
 * @param effect the rule's effect
 * @param result true, false or error
 * @param error the error message when {@code result} is {@link Result#ERROR}, else null
 * @param elapsedNanos time spent evaluating this rule
 */
public record TraceEntry(String policyId, String ruleId, Effect effect, Result result, String error, long elapsedNanos) {

    /** The result of one rule. */
    public enum Result {
        TRUE, FALSE, ERROR
    }

    public TraceEntry {
        Objects.requireNonNull(policyId, "policyId");
        Objects.requireNonNull(ruleId, "ruleId");
        Objects.requireNonNull(effect, "effect");
        Objects.requireNonNull(result, "result");
    }
}
