package dev.custody.engine.validate;

import dev.custody.engine.policy.Rule;

/**
 * The body of a rule update ({@code PUT …/policies/rules/{rule_id}}): every field optional, null meaning
 * unchanged. {@code triggerAction} is here only so that an attempt to change it can be refused.
 * Immutable and thread-safe.
 */
public record RuleUpdate(String triggerAction, String condition, String effect, String description, Boolean isEnabled) {

    /** The rule after this update is applied to {@code existing}. */
    public Rule applyTo(Rule existing) {
        return new Rule(existing.ruleId(), existing.triggerAction(),
                condition != null ? condition : existing.condition(),
                effect != null ? effect : existing.effect(),
                description != null ? description : existing.description(),
                isEnabled != null ? isEnabled : existing.isEnabled());
    }
}
