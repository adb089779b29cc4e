package dev.custody.engine.selection;

import dev.custody.engine.compile.CompiledCondition;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.TriggerAction;
import java.util.Objects;
import java.util.Set;

/**
 * An enabled rule of an active policy, as the engine keeps it: compiled, with its policy's wallet targeting and
 * its place in declaration order. Immutable and thread-safe.
 *
 * @param policyIndex the policy's position in the list the selection was made from (0-based)
 * @param ruleIndex the rule's position in its policy (0-based)
 * @param order the rule's position among the selected rules, in declaration order (0-based)
 * @param policyId the policy's id, or {@code #<policy index>} when it has none
 * @param ruleId the rule's id, or {@code <policy id>#<rule index>} when it has none
 * @param action the rule's trigger action
 * @param effect ALLOW or DENY
 * @param description the decision reason when the rule matches; may be null
 * @param walletIds the lowercase wallet ids the policy targets; empty for every wallet
 * @param condition the compiled condition
 */
public record SelectedRule(
        int policyIndex,
        int ruleIndex,
        int order,
        String policyId,
        String ruleId,
        TriggerAction action,
        Effect effect,
        String description,
        Set<String> walletIds,
        CompiledCondition condition) {

    public SelectedRule {
        Objects.requireNonNull(policyId, "policyId");
        Objects.requireNonNull(ruleId, "ruleId");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(effect, "effect");
        Objects.requireNonNull(condition, "condition");
        walletIds = Set.copyOf(walletIds);
    }
}
