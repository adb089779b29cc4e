package dev.custody.engine.internal.bundle;

import dev.custody.engine.compile.CompiledCondition;
import dev.custody.engine.schema.Effect;
import java.util.Objects;
import dev.custody.engine.selection.RuleSelection;
import java.util.Set;

/**
 * An enabled rule of an active policy, compiled and bound to its policy's wallet targeting. Immutable
 * and thread-safe.
 *
 * @param policyId the policy's id
 * @param ruleId the rule's id (given, or derived as {@code <policy id>#<index>})
 * @param effect ALLOW or DENY
 * @param description the decision reason when the rule matches; may be null
 * @param condition the compiled condition
 * @param walletIds the lowercase wallet ids the policy targets, or empty for every wallet
 * @param order position in declaration order across the whole bundle (0-based)
 */
public record BoundRule(
        String policyId,
        String ruleId,
        Effect effect,
        String description,
        CompiledCondition condition,
        Set<String> walletIds,
        int order) {

    public BoundRule {
        Objects.requireNonNull(policyId, "policyId");
        Objects.requireNonNull(ruleId, "ruleId");
        Objects.requireNonNull(effect, "effect");
        Objects.requireNonNull(condition, "condition");
        walletIds = Set.copyOf(walletIds);
    }

    /** Whether the rule's policy targets this (lowercase) wallet. */
    public boolean targets(String walletId) {
        return RuleSelection.targetsWallet(walletIds, walletId);
    }
}
