package dev.custody.engine.validate;

import dev.custody.engine.policy.Policy;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.schema.Uuids;
import dev.custody.engine.compile.CompileResult;
import dev.custody.engine.compile.CompiledCondition;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.diagnostic.DiagnosticCode;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.Limits;
import dev.custody.engine.schema.PolicyStatus;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Validates policies and rules against the spec's fields and limits, and compiles their conditions.
 *
 * <p>Checks: name 3–100 characters (required); description ≤ 500; {@code approval_group_id} required
 * and a UUID; ≤ 500 {@code wallet_ids}, each a UUID; ≤ 50 rules; {@code status} one of the four;
 * {@code version} ≥ 1; per rule: {@code trigger_action} and {@code effect} from their enums, condition
 * 1–4000 characters that compiles ({@link RuleCompiler}), description ≤ 500, rule ids unique within the
 * policy. Every diagnostic carries the JSON pointer of the offending value ({@code /rules/3/condition});
 * condition diagnostics also carry the line and column inside the condition. Lengths count Unicode code
 * points.
 *
 * <p>Stateless apart from the compiler it holds; thread-safe.
 */
public final class PolicyValidator {
    private final RuleCompiler compiler;

    /** A validator compiling with {@code compiler}. */
    public PolicyValidator(RuleCompiler compiler) {
        this.compiler = Objects.requireNonNull(compiler, "compiler");
    }

    /** The compiler conditions are compiled with. */
    public RuleCompiler compiler() {
        return compiler;
    }

    /** Validates a policy, compiling every rule (enabled or not, as the API's create endpoint does). */
    public PolicyValidation validate(Policy policy) {
        return validate(policy, true);
    }

    /**
     * Validates a policy.
     *
     * @param compileDisabled whether disabled rules are checked too; the evaluator passes false, since
     *     disabled rules are ignored and must not make a bundle invalid
     */
    public PolicyValidation validate(Policy policy, boolean compileDisabled) {
        Objects.requireNonNull(policy, "policy");
        List<Diagnostic> out = new ArrayList<>();
        if (policy.id() != null && policy.id().isBlank()) {
            out.add(Diagnostic.at("/id", DiagnosticCode.MISSING_FIELD, "policy id is blank", "remove it or give an id"));
        }
        length(out, "/name", "name", policy.name(), Limits.POLICY_NAME_MIN, Limits.POLICY_NAME_MAX, true);
        length(out, "/description", "description", policy.description(), 0, Limits.POLICY_DESCRIPTION_MAX, false);
        if (policy.approvalGroupId() == null) {
            out.add(Diagnostic.at("/approval_group_id", DiagnosticCode.MISSING_FIELD,
                    "`approval_group_id` is required", "the approval group that reviews changes to this policy"));
        } else if (!Uuids.isUuid(policy.approvalGroupId())) {
            out.add(Diagnostic.at("/approval_group_id", DiagnosticCode.INVALID_UUID,
                    "`approval_group_id` `" + clip(policy.approvalGroupId()) + "` is not a UUID", null));
        }
        if (policy.walletIds().size() > Limits.WALLET_IDS_MAX) {
            out.add(Diagnostic.at("/wallet_ids", DiagnosticCode.TOO_MANY, "policy targets "
                    + policy.walletIds().size() + " wallets; the limit is " + Limits.WALLET_IDS_MAX,
                    "split the wallets over several policies"));
        }
        for (int i = 0; i < policy.walletIds().size(); i++) {
            String w = policy.walletIds().get(i);
            if (!Uuids.isUuid(w)) {
                out.add(Diagnostic.at("/wallet_ids/" + i, DiagnosticCode.INVALID_UUID,
                        w == null ? "wallet id is null" : "wallet id `" + clip(w) + "` is not a UUID", null));
            }
        }
        if (policy.status() != null && PolicyStatus.fromWireName(policy.status()).isEmpty()) {
            out.add(Diagnostic.at("/status", DiagnosticCode.INVALID_STATUS,
                    "unknown status `" + clip(policy.status()) + "`", "statuses: pending, active, inactive, rejected"));
        }
        if (policy.version() != null && policy.version() < 1) {
            out.add(Diagnostic.at("/version", DiagnosticCode.INVALID_TYPE,
                    "version must be 1 or more, got " + policy.version(), null));
        }
        if (policy.rules().size() > Limits.RULES_PER_POLICY_MAX) {
            out.add(Diagnostic.at("/rules", DiagnosticCode.TOO_MANY, "policy has " + policy.rules().size()
                    + " rules; the limit is " + Limits.RULES_PER_POLICY_MAX, "split the rules over several policies"));
        }
        List<CompiledCondition> compiled = new ArrayList<>();
        Set<String> ruleIds = new HashSet<>();
        for (int i = 0; i < policy.rules().size(); i++) {
            Rule rule = policy.rules().get(i);
            String base = "/rules/" + i;
            if (rule.ruleId() != null && !ruleIds.add(rule.ruleId())) {
                out.add(Diagnostic.at(base + "/rule_id", DiagnosticCode.DUPLICATE_ID,
                        "rule id `" + clip(rule.ruleId()) + "` is used by an earlier rule of this policy", null));
            }
            if (!compileDisabled && !rule.enabled()) {
                compiled.add(null);
                continue;
            }
            compiled.add(validateRule(rule, base, out).orElse(null));
        }
        out.sort(Diagnostic.BY_LOCATION);
        return new PolicyValidation(out, compiled);
    }

    /**
     * Validates a rule (as the create-rule endpoint does), adding diagnostics under {@code base} (e.g.
     * {@code /rules/3}, or {@code ""} for a lone rule).
     *
     * @return the compiled condition, when the rule is valid
     */
    public Optional<CompiledCondition> validateRule(Rule rule, String base, List<Diagnostic> out) {
        Optional<TriggerAction> action = TriggerAction.fromWireName(rule.triggerAction());
        if (action.isEmpty()) {
            out.add(RuleCompiler.invalidTriggerAction(rule.triggerAction()).withPointer(base + "/trigger_action"));
        }
        if (Effect.fromWireName(rule.effect()).isEmpty()) {
            out.add(RuleCompiler.invalidEffect(rule.effect()).withPointer(base + "/effect"));
        }
        length(out, base + "/description", "rule description", rule.description(), 0, Limits.RULE_DESCRIPTION_MAX,
                false);
        if (rule.ruleId() != null && rule.ruleId().isBlank()) {
            out.add(Diagnostic.at(base + "/rule_id", DiagnosticCode.MISSING_FIELD, "rule id is blank",
                    "remove it (an id is derived) or give an id"));
        }
        if (rule.condition() == null) {
            out.add(Diagnostic.at(base + "/condition", DiagnosticCode.MISSING_FIELD, "`condition` is required",
                    "write a boolean expression, e.g. `withdrawal.value_usd > 10000`"));
            return Optional.empty();
        }
        if (action.isEmpty()) {
            return Optional.empty();
        }
        CompileResult result = compiler.compile(action.get(), rule.condition());
        for (Diagnostic d : result.diagnostics()) {
            out.add(d.withPointer(base + "/condition"));
        }
        boolean ok = out.stream().filter(d -> d.pointer().startsWith(base + "/") || d.pointer().equals(base))
                .noneMatch(Diagnostic::isError);
        return ok ? result.condition() : Optional.empty();
    }

    /**
     * Validates a rule update against the rule it changes: the trigger action is immutable (delete and
     * recreate the rule instead), and the updated rule must be valid.
     */
    public List<Diagnostic> validateRuleUpdate(Rule existing, RuleUpdate update) {
        List<Diagnostic> out = new ArrayList<>();
        if (update.triggerAction() != null && !update.triggerAction().equals(existing.triggerAction())) {
            out.add(Diagnostic.at("/trigger_action", DiagnosticCode.IMMUTABLE_FIELD,
                    "`trigger_action` cannot change from `" + clip(String.valueOf(existing.triggerAction()))
                            + "` to `" + clip(update.triggerAction()) + "`",
                    "delete the rule and create a new one with the other trigger action"));
        }
        validateRule(update.applyTo(existing), "", out);
        out.sort(Diagnostic.BY_LOCATION);
        return List.copyOf(out);
    }

    private static void length(List<Diagnostic> out, String pointer, String what, String value, int min, int max,
            boolean required) {
        if (value == null) {
            if (required) {
                out.add(Diagnostic.at(pointer, DiagnosticCode.MISSING_FIELD, "`" + pointer.substring(1) + "` is required",
                        min > 0 ? what + " must be " + min + " to " + max + " characters" : null));
            }
            return;
        }
        int n = value.codePointCount(0, value.length());
        if (n < min) {
            out.add(Diagnostic.at(pointer, DiagnosticCode.TOO_SHORT,
                    what + " is " + n + " characters long; the minimum is " + min, null));
        } else if (n > max) {
            out.add(Diagnostic.at(pointer, DiagnosticCode.TOO_LONG,
                    what + " is " + n + " characters long; the limit is " + max, null));
        }
    }

    private static String clip(String s) {
        return s.length() <= 64 ? s : s.substring(0, 61) + "...";
    }
}
