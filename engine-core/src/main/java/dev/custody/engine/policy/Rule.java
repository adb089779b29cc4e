package dev.custody.engine.policy;

import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.Limits;
import dev.custody.engine.schema.TriggerAction;
import java.util.Objects;

/**
 * A rule as written in a policy: the wire values, unchecked, so that the policy validator can report
 * every problem with its JSON pointer. Immutable and thread-safe.
 *
 * <p>Code that builds a rule (rather than mapping one from the wire) uses {@link #builder}: typed trigger action
 * and effect, and every structural problem refused at {@link Builder#build()} with a precise message.
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

    /**
     * A builder of the rule {@code ruleId}.
     *
     * <pre>{@code
     * Rule big = Rule.builder("big")
     *         .triggerAction(TriggerAction.WITHDRAWAL_CREATE)
     *         .condition("withdrawal.value_usd > 10000")
     *         .effect(Effect.DENY)
     *         .description("above $10,000")
     *         .build();
     * }</pre>
     *
     * @param ruleId the id decisions are attributed to; checked by {@link Builder#build()} (required, not blank)
     */
    public static Builder builder(String ruleId) {
        return new Builder(ruleId);
    }

    /**
     * Builds a {@link Rule} from typed values. {@link #build()} fails fast, with a one-line message naming the rule
     * and the field, on what is structurally wrong: a missing or blank id, no trigger action, no effect, a missing
     * or blank condition, a condition or description over its limit. Whether the condition compiles is the engine's
     * business (a rule that does not compile makes its workspace's bundle invalid: every action denied, failure
     * {@code compile}); {@code custody lint} reports it with a position. Setters take only non-null values
     * (a null is a {@link NullPointerException} naming the parameter). Not thread-safe; the rule built is immutable.
     */
    public static final class Builder {
        private final String ruleId;
        private TriggerAction triggerAction;
        private String condition;
        private Effect effect;
        private String description;
        private boolean enabled = true;

        private Builder(String ruleId) {
            this.ruleId = ruleId;
        }

        /** The action the rule is for; required. */
        public Builder triggerAction(TriggerAction action) {
            this.triggerAction = Objects.requireNonNull(action, "triggerAction");
            return this;
        }

        /** The CEL boolean expression; required, not blank, at most {@value Limits#CONDITION_MAX} characters. */
        public Builder condition(String condition) {
            this.condition = Objects.requireNonNull(condition, "condition");
            return this;
        }

        /** What a true condition means; required. */
        public Builder effect(Effect effect) {
            this.effect = Objects.requireNonNull(effect, "effect");
            return this;
        }

        /**
         * The decision message when the rule decides, at most {@value Limits#RULE_DESCRIPTION_MAX} characters;
         * default none.
         */
        public Builder description(String description) {
            this.description = Objects.requireNonNull(description, "description");
            return this;
        }

        /** Whether the rule takes part in evaluation; default true. */
        public Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        /**
         * The rule.
         *
         * @throws IllegalStateException naming the rule and the first problem found
         */
        public Rule build() {
            Rule rule = new Rule(ruleId, triggerAction == null ? null : triggerAction.wireName(), condition,
                    effect == null ? null : effect.name(), description, enabled);
            check(rule, "");
            return rule;
        }

        /**
         * Checks a rule's structure (what {@link #build()} checks, on wire values): throws
         * {@link IllegalStateException} with the first problem, {@code where} (e.g. {@code "policy `limits`: "})
         * before the message.
         */
        static void check(Rule rule, String where) {
            String id = rule.ruleId();
            if (id == null) {
                throw new IllegalStateException(where + "rule id is required");
            }
            if (id.isBlank()) {
                throw new IllegalStateException(where + "rule id is blank");
            }
            String what = where + "rule `" + id + "`: ";
            if (rule.triggerAction() == null) {
                throw new IllegalStateException(what + "trigger action is required");
            }
            if (TriggerAction.fromWireName(rule.triggerAction()).isEmpty()) {
                throw new IllegalStateException(what + "unknown trigger action `" + rule.triggerAction() + "`");
            }
            if (rule.effect() == null) {
                throw new IllegalStateException(what + "effect is required");
            }
            if (Effect.fromWireName(rule.effect()).isEmpty()) {
                throw new IllegalStateException(what + "unknown effect `" + rule.effect() + "`");
            }
            if (rule.condition() == null) {
                throw new IllegalStateException(what + "condition is required");
            }
            if (rule.condition().isBlank()) {
                throw new IllegalStateException(what + "condition is blank");
            }
            Policy.Builder.atMost(what + "condition", rule.condition(), Limits.CONDITION_MAX);
            Policy.Builder.atMost(what + "description", rule.description(), Limits.RULE_DESCRIPTION_MAX);
        }
    }
}
