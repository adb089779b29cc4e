package dev.custody.engine.coverage;

import dev.custody.engine.compile.CompiledCondition;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.TriggerAction;
import java.util.Objects;

/**
 * A rule as an {@link EvaluationObserver} sees it: an enabled rule of an active policy, compiled. Immutable
 * and thread-safe.
 *
 * @param policyId the policy's id
 * @param ruleId the rule's id (given, or derived as {@code <policy id>#<index>})
 * @param effect ALLOW or DENY
 * @param condition the compiled condition
 */
public record ObservedRule(String policyId, String ruleId, Effect effect, CompiledCondition condition) {
    public ObservedRule {
        Objects.requireNonNull(policyId, "policyId");
        Objects.requireNonNull(ruleId, "ruleId");
        Objects.requireNonNull(effect, "effect");
        Objects.requireNonNull(condition, "condition");
    }

    /** The trigger action the rule is for. */
    public TriggerAction action() {
        return condition.action();
    }
}
