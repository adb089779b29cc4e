package dev.custody.analysis;

import dev.custody.engine.compile.CompiledCondition;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.selection.RuleSelection;
import dev.custody.engine.schema.TriggerAction;
import java.util.Objects;
import java.util.Set;

/**
 * An enabled rule of an active policy, as the evaluator keeps it (docs/design.md §3), with where it is written.
 * Immutable and thread-safe.
 *
 * @param policyId the policy's id
 * @param ruleId the rule's id (given or derived)
 * @param effect ALLOW or DENY
 * @param action the rule's trigger action
 * @param walletIds the lowercase wallet ids its policy targets; empty for every wallet
 * @param workspaceId the lowercase workspace its policy belongs to, or null for a policy of every workspace
 * @param condition the compiled condition
 * @param file the policy file
 * @param line 1-based line of the rule object in the file (0 when unknown)
 * @param column 1-based column of the rule object in the file (0 when unknown)
 */
public record AnalyzedRule(
        String policyId,
        String ruleId,
        Effect effect,
        TriggerAction action,
        Set<String> walletIds,
        String workspaceId,
        CompiledCondition condition,
        String file,
        int line,
        int column) {

    public AnalyzedRule {
        Objects.requireNonNull(policyId, "policyId");
        Objects.requireNonNull(ruleId, "ruleId");
        Objects.requireNonNull(effect, "effect");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(condition, "condition");
        walletIds = Set.copyOf(walletIds);
    }

    /**
     * Whether this rule's policy targets an action of this wallet and workspace, its condition aside: the engine's
     * own answer ({@link RuleSelection#targets}), with its case handling.
     *
     * @param walletId the action's wallet id, any case; null when it has none
     * @param workspaceId the action's workspace id, any case; null or blank when it names none
     */
    public boolean targets(String walletId, String workspaceId) {
        return RuleSelection.targets(walletIds, this.workspaceId, walletId, workspaceId);
    }

    /** {@code policy_id/rule_id}, for messages. */
    public String label() {
        return policyId + "/" + ruleId;
    }
}
