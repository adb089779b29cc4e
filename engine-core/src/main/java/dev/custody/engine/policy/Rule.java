package dev.custody.engine.policy;

/**
 * A rule as written in a policy: the wire values, unchecked, so that the policy validator can report
 * every problem with its JSON pointer. Immutable and thread-safe.
 *
 * @param ruleId identifier used to attribute decisions; null when not given (the bundle then derives
 *     {@code <policy id>#<index>})
 * @param triggerAction {@code withdrawal.create} or {@code web3.contract_call}
 * @param condition a CEL boolean expression over the action's sections
 * @param effect {@code ALLOW} or {@code DENY}
 * @param description the decision message when the rule matches; may be null
 * @param isEnabled null means enabled (the spec's default)
 */
public record Rule(
        String ruleId, String triggerAction, String condition, String effect, String description, Boolean isEnabled) {

    /** Whether the rule takes part in evaluation ({@code is_enabled} absent or true). */
    public boolean enabled() {
        return isEnabled == null || isEnabled;
    }

    /** This rule with another id. */
    public Rule withRuleId(String id) {
        return new Rule(id, triggerAction, condition, effect, description, isEnabled);
    }
}
