package dev.custody.engine.properties;

import dev.custody.engine.compile.ThreadClock;
import dev.custody.engine.compile.CompileResult;
import dev.custody.engine.compile.CompiledCondition;
import dev.custody.engine.compile.ConditionResult;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.Outcome;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.Payload;
import dev.custody.engine.check.PayloadResult;
import dev.custody.engine.check.PayloadValidator;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.PolicyStatus;
import dev.custody.engine.schema.TriggerAction;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A brute-force reading of docs/design.md §3, independent of {@code PolicyBundle} and {@code Evaluator}: it
 * selects the kept rules itself from the policies (§3.1–2), compiles and evaluates <em>every</em> kept rule
 * separately with {@link CompiledCondition#evaluate}, and applies §3.3–8 to the list of results.
 *
 * <p>Bundle validity is decided the same way as the generators can break it: an unknown status anywhere,
 * or an enabled rule of an active policy that does not compile (the generators never produce the other
 * policy errors: bad names, non-UUIDs, duplicate ids).
 */
final class Oracle {
    private static final long GENEROUS = Duration.ofSeconds(30).toNanos();

    private final RuleCompiler compiler;

    Oracle(RuleCompiler compiler) {
        this.compiler = compiler;
    }

    /** One kept rule and its result. */
    record Run(String policyId, String ruleId, Effect effect, ConditionResult result) {
        boolean isTrue() {
            return result instanceof ConditionResult.Value v && v.value();
        }

        boolean failed() {
            return result instanceof ConditionResult.Failure;
        }
    }

    /** What the engine must decide, and every kept rule's result (empty when decided before any rule). */
    record Expected(Outcome outcome, boolean failClosed, String policyId, String ruleId, List<Run> runs) {}

    Expected decide(List<Policy> policies, Action action, Instant now) {
        for (Policy p : policies) {
            if (p.status() != null && PolicyStatus.fromWireName(p.status()).isEmpty()) {
                return failClosed();
            }
        }
        for (Policy p : policies) {
            if (!active(p)) {
                continue;
            }
            for (Rule r : p.rules()) {
                if (r.enabled() && compile(r).isEmpty()) {
                    return failClosed();
                }
            }
        }
        PayloadResult checked = PayloadValidator.validate(action, now);
        if (!(checked instanceof PayloadResult.Valid valid)) {
            return failClosed();
        }
        Payload payload = valid.payload();
        List<Run> runs = new ArrayList<>();
        for (Policy p : policies) {
            if (!active(p) || !targets(p, action.walletId())) {
                continue;
            }
            for (int i = 0; i < p.rules().size(); i++) {
                Rule r = p.rules().get(i);
                if (!r.enabled() || !r.triggerAction().equals(action.action().wireName())) {
                    continue;
                }
                CompiledCondition c = compile(r).orElseThrow();
                ConditionResult result = c.evaluate(payload, ThreadClock.now() + GENEROUS);
                String ruleId = r.ruleId() != null ? r.ruleId() : p.id() + "#" + i;
                runs.add(new Run(p.id(), ruleId, Effect.valueOf(r.effect()), result));
            }
        }
        // §3.8: the first true DENY decides; else a failed DENY fails closed; else a failed ALLOW fails closed;
        // else the first true ALLOW decides; else NO_MATCH.
        Optional<Run> deny = runs.stream().filter(x -> x.effect() == Effect.DENY && x.isTrue()).findFirst();
        if (deny.isPresent()) {
            return new Expected(Outcome.DENY, false, deny.get().policyId(), deny.get().ruleId(), runs);
        }
        Optional<Run> failedDeny = runs.stream().filter(x -> x.effect() == Effect.DENY && x.failed()).findFirst();
        if (failedDeny.isPresent()) {
            return new Expected(Outcome.DENY, true, failedDeny.get().policyId(), failedDeny.get().ruleId(), runs);
        }
        Optional<Run> failedAllow = runs.stream().filter(x -> x.effect() == Effect.ALLOW && x.failed()).findFirst();
        if (failedAllow.isPresent()) {
            return new Expected(Outcome.DENY, true, failedAllow.get().policyId(), failedAllow.get().ruleId(), runs);
        }
        Optional<Run> allow = runs.stream().filter(x -> x.effect() == Effect.ALLOW && x.isTrue()).findFirst();
        if (allow.isPresent()) {
            return new Expected(Outcome.ALLOW, false, allow.get().policyId(), allow.get().ruleId(), runs);
        }
        return new Expected(Outcome.NO_MATCH, false, null, null, runs);
    }

    private Optional<CompiledCondition> compile(Rule r) {
        TriggerAction t = TriggerAction.fromWireName(r.triggerAction()).orElseThrow();
        CompileResult result = compiler.compile(t, r.condition());
        return result.condition();
    }

    private static Expected failClosed() {
        return new Expected(Outcome.DENY, true, null, null, List.of());
    }

    private static boolean active(Policy p) {
        return p.status() == null || p.status().equals("active");
    }

    private static boolean targets(Policy p, String wallet) {
        return p.walletIds().isEmpty() || p.walletIds().stream().anyMatch(w -> w.equalsIgnoreCase(wallet));
    }
}
