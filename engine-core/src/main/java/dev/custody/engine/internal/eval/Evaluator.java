package dev.custody.engine.internal.eval;

import dev.custody.engine.internal.bundle.BoundRule;
import dev.custody.engine.policy.BundleError;
import dev.custody.engine.eval.Decision;
import dev.custody.engine.eval.FailureKind;
import dev.custody.engine.eval.Outcome;
import dev.custody.engine.eval.TraceEntry;
import dev.custody.engine.internal.bundle.PolicyBundle;
import dev.custody.engine.compile.ConditionResult;
import dev.custody.engine.payload.Action;
import dev.custody.engine.payload.Payload;
import dev.custody.engine.payload.PayloadResult;
import dev.custody.engine.payload.PayloadValidator;
import dev.custody.engine.schema.Limits;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Decides actions against a {@link PolicyBundle}, fail-closed.
 *
 * <h2>Semantics (docs/design.md §3, pinned by the conformance corpus)</h2>
 * <ol>
 *   <li>An invalid bundle, or a malformed action ({@link PayloadValidator}), is DENY with
 *       {@code fail_closed}.
 *   <li>The bundle's DENY rules for the action whose policy targets the action's wallet are evaluated in
 *       declaration order. The first true one decides DENY ({@code fail_closed: false}), even when an
 *       earlier DENY rule failed; evaluation stops there.
 *   <li>If no DENY rule is true but one failed: DENY, {@code fail_closed}, attributed to the first that
 *       failed.
 *   <li>Otherwise every kept ALLOW rule is evaluated, in declaration order (stopping at the first
 *       failure, which makes the decision DENY, {@code fail_closed}); if none failed, the first true one
 *       decides ALLOW; if none is true, NO_MATCH.
 * </ol>
 * A failure is anything but a boolean: an error, an absent field, a non-boolean value. So the decision
 * never depends on the order rules happen to be evaluated in, except for attribution, which is first
 * match in declaration order.
 *
 * <h2>Time budget</h2>
 * One deadline covers the whole evaluation (payload check and every rule): it is checked between rules
 * (before the first, around every rule that can run long, at least every {@value #CHECK_EVERY_RULES} others,
 * and after the last) and, through {@link dev.custody.engine.compile.CompiledCondition}, inside a running rule
 * that can run long. Past it, the decision is DENY with {@code fail_closed} and evaluation stops; an
 * evaluation past its deadline never ends in ALLOW or NO_MATCH. The default is
 * {@link Limits#EVALUATION_TIMEOUT} (100 ms).
 *
 * <h2>Time</h2>
 * {@code context.hour} and {@code context.day_of_week} come from the action's {@code at} when it has one,
 * else from the injected {@link Clock} (UTC).
 *
 * <p>Immutable and thread-safe; {@link #evaluate} never throws (null arguments aside).
 */
public final class Evaluator {
    /** At most this many rules that cannot run long are evaluated between two reads of the clock. */
    static final int CHECK_EVERY_RULES = 8;

    private final Clock clock;
    private final long budgetNanos;

    private Evaluator(Clock clock, Duration budget) {
        this.clock = clock;
        this.budgetNanos = budget.toNanos();
    }

    /** An evaluator on the system UTC clock with the default 100 ms budget. */
    public static Evaluator create() {
        return builder().build();
    }

    /** A builder for the clock and the budget. */
    public static Builder builder() {
        return new Builder();
    }

    /** The time budget of one evaluation. */
    public Duration timeBudget() {
        return Duration.ofNanos(budgetNanos);
    }

    /** The clock behind {@code context.*} when an action carries no instant. */
    public Clock clock() {
        return clock;
    }

    /** Decides an action, without a trace. */
    public Decision evaluate(PolicyBundle bundle, Action action) {
        return evaluate(bundle, action, false);
    }

    /**
     * Decides an action.
     *
     * @param explain whether to record every evaluated rule with its result in {@link Decision#trace()}
     */
    public Decision evaluate(PolicyBundle bundle, Action action, boolean explain) {
        return evaluate(bundle, action, explain, null);
    }

    /**
     * Decides an action, telling {@code seen} (when not null) of every rule it evaluated, in the order it did,
     * with the rule's result: what coverage counts. {@code seen} is told on the deciding thread, inside the
     * time budget, so it must only remember (the engine reports to its observer once the decision is made).
     */
    public Decision evaluate(PolicyBundle bundle, Action action, boolean explain, RuleSink seen) {
        Objects.requireNonNull(bundle, "bundle");
        Objects.requireNonNull(action, "action");
        long start = System.nanoTime();
        long deadline = start + budgetNanos;
        try {
            Decision d = decide(bundle, action, explain, start, deadline, seen);
            return bundle.revision() == null ? d : d.inBundle(bundle.revision());
        } catch (RuntimeException | Error e) {
            // Nothing below is expected to throw; if it does, the action is still denied.
            return Decision.failClosed(action.id(), action.action(), FailureKind.INTERNAL,
                    "internal error while evaluating: " + e.getClass().getSimpleName(), System.nanoTime() - start);
        }
    }

    private Decision decide(PolicyBundle bundle, Action action, boolean explain, long start, long deadline,
            RuleSink seen) {
        if (!bundle.valid()) {
            List<BundleError> errors = bundle.errors();
            String more = errors.size() > 1 ? " (and " + (errors.size() - 1) + " more)" : "";
            return Decision.failClosed(action.id(), action.action(), FailureKind.COMPILE,
                    "policies do not compile: " + errors.get(0).describe() + more, System.nanoTime() - start);
        }
        PayloadResult checked = PayloadValidator.validate(action, action.at() != null ? action.at() : clock.instant());
        if (checked instanceof PayloadResult.Invalid invalid) {
            return Decision.failClosed(action.id(), action.action(), FailureKind.MALFORMED_ACTION,
                    "malformed action: " + invalid.error(),
                    System.nanoTime() - start);
        }
        Payload payload = ((PayloadResult.Valid) checked).payload();
        String wallet = payload.walletId();
        List<TraceEntry> trace = explain ? new ArrayList<>() : List.of();

        Budget budget = new Budget(deadline);
        BoundRule firstFailed = null;
        String firstError = null;
        for (BoundRule rule : bundle.denyRules(action.action())) {
            if (!rule.targets(wallet)) {
                continue;
            }
            if (budget.passedBefore(rule)) {
                return timedOut(action, budget.blame(rule), start, trace);
            }
            long t0 = explain ? System.nanoTime() : 0;
            ConditionResult result = rule.condition().evaluateWithoutStartCheck(payload, deadline);
            budget.ran(rule);
            record(trace, explain, rule, result, t0);
            if (seen != null) {
                seen.evaluated(rule, payload, result);
            }
            if (result instanceof ConditionResult.Value v) {
                if (v.value()) {
                    return decided(action, Outcome.DENY, rule, start, trace);
                }
            } else {
                ConditionResult.Failure f = (ConditionResult.Failure) result;
                if (f.budgetExceeded()) {
                    return timedOut(action, rule, start, trace);
                }
                if (firstFailed == null) {
                    firstFailed = rule;
                    firstError = f.message();
                }
            }
        }
        if (firstFailed != null) {
            return budget.passedAtEnd() ? timedOut(action, budget.blame(null), start, trace)
                    : failed(action, firstFailed, firstError, start, trace);
        }
        BoundRule firstTrue = null;
        for (BoundRule rule : bundle.allowRules(action.action())) {
            if (!rule.targets(wallet)) {
                continue;
            }
            if (budget.passedBefore(rule)) {
                return timedOut(action, budget.blame(rule), start, trace);
            }
            long t0 = explain ? System.nanoTime() : 0;
            ConditionResult result = rule.condition().evaluateWithoutStartCheck(payload, deadline);
            budget.ran(rule);
            record(trace, explain, rule, result, t0);
            if (seen != null) {
                seen.evaluated(rule, payload, result);
            }
            if (result instanceof ConditionResult.Value v) {
                if (v.value() && firstTrue == null) {
                    firstTrue = rule;
                }
            } else {
                ConditionResult.Failure f = (ConditionResult.Failure) result;
                return f.budgetExceeded() ? timedOut(action, rule, start, trace)
                        : failed(action, rule, f.message(), start, trace);
            }
        }
        long end = System.nanoTime();
        if (budget.ranAny() && end - deadline > 0) {
            return timedOut(action, budget.blame(null), start, trace);
        }
        if (firstTrue != null) {
            return Decision.matched(action.id(), action.action(), Outcome.ALLOW, firstTrue.policyId(),
                    firstTrue.ruleId(), firstTrue.description(), end - start, trace);
        }
        return Decision.noMatch(action.id(), action.action(), end - start, trace);
    }

    /**
     * When to read the clock between rules. Reading it costs about as much as evaluating a small rule, so it
     * is read before the first rule (after the payload check), before and after every rule that
     * {@linkplain dev.custody.engine.compile.CompiledCondition#mayRunLong() may run long} (which also watches
     * the deadline while it runs), before every {@value #CHECK_EVERY_RULES}th other rule, and after the last
     * rule, before a decision other than a true DENY rule's is returned: an evaluation past its deadline never
     * ends in ALLOW or NO_MATCH. A time-out found between rules is blamed on the last rule that ran (the first
     * rule when none has); a DENY rule found true before the next read decides, as it does when the deadline
     * passes while it runs. Not thread-safe: one per evaluation.
     */
    private static final class Budget {
        private final long deadline;
        private boolean due = true;
        private int unchecked;
        private BoundRule last;

        Budget(long deadline) {
            this.deadline = deadline;
        }

        /** Whether the deadline has passed before {@code next} runs (reading the clock only when due). */
        boolean passedBefore(BoundRule next) {
            if (!due && unchecked < CHECK_EVERY_RULES && !next.condition().mayRunLong()) {
                return false;
            }
            due = false;
            unchecked = 0;
            return System.nanoTime() - deadline > 0;
        }

        void ran(BoundRule rule) {
            last = rule;
            unchecked++;
            due |= rule.condition().mayRunLong();
        }

        /** Whether the deadline has passed once the rules are done (read only if a rule ran). */
        boolean passedAtEnd() {
            return ranAny() && System.nanoTime() - deadline > 0;
        }

        /** Whether any rule ran: with none, there is no rule to blame and nothing to stop. */
        boolean ranAny() {
            return last != null;
        }

        /** The rule a time-out is reported in: the last that ran, or {@code next} when none has. */
        BoundRule blame(BoundRule next) {
            return last != null ? last : next;
        }
    }

    private static void record(List<TraceEntry> trace, boolean explain, BoundRule rule, ConditionResult result,
            long t0) {
        if (!explain) {
            return;
        }
        long elapsed = System.nanoTime() - t0;
        if (result instanceof ConditionResult.Value v) {
            trace.add(new TraceEntry(rule.policyId(), rule.ruleId(), rule.effect(),
                    v.value() ? TraceEntry.Result.TRUE : TraceEntry.Result.FALSE, null, elapsed));
        } else {
            trace.add(new TraceEntry(rule.policyId(), rule.ruleId(), rule.effect(), TraceEntry.Result.ERROR,
                    ((ConditionResult.Failure) result).message(), elapsed));
        }
    }

    private static Decision decided(Action action, Outcome outcome, BoundRule rule, long start, List<TraceEntry> trace) {
        return Decision.matched(action.id(), action.action(), outcome, rule.policyId(), rule.ruleId(),
                rule.description(), System.nanoTime() - start, trace);
    }

    private static Decision failed(Action action, BoundRule rule, String error, long start, List<TraceEntry> trace) {
        return Decision.failClosed(action.id(), action.action(), FailureKind.RULE_ERROR,
                "rule `" + rule.ruleId() + "` failed: " + error, rule.policyId(), rule.ruleId(),
                System.nanoTime() - start, trace);
    }

    private Decision timedOut(Action action, BoundRule rule, long start, List<TraceEntry> trace) {
        return Decision.failClosed(action.id(), action.action(), FailureKind.TIME_BUDGET,
                "time budget of " + budgetText() + " exceeded in rule `" + rule.ruleId() + "`", rule.policyId(),
                rule.ruleId(), System.nanoTime() - start, trace);
    }

    private String budgetText() {
        Duration d = Duration.ofNanos(budgetNanos);
        return d.toMillis() > 0 && d.toNanos() % 1_000_000 == 0 ? d.toMillis() + " ms" : d.toNanos() / 1000 + " µs";
    }

    /** Told of each rule an evaluation ran, with its result (see {@link #evaluate(PolicyBundle, Action, boolean, RuleSink)}). */
    @FunctionalInterface
    public interface RuleSink {
        /** A rule ran on {@code payload} (the action as checked) and gave {@code result}. */
        void evaluated(BoundRule rule, Payload payload, ConditionResult result);
    }

    /** Builds an {@link Evaluator}. Not thread-safe; the evaluator it builds is. */
    public static final class Builder {
        private Clock clock = Clock.systemUTC();
        private Duration budget = Limits.EVALUATION_TIMEOUT;

        private Builder() {}

        /** The clock behind {@code context.*} for actions without an instant. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** The time budget of one evaluation; must be positive. */
        public Builder timeBudget(Duration budget) {
            Objects.requireNonNull(budget, "budget");
            if (budget.isNegative() || budget.isZero()) {
                throw new IllegalArgumentException("time budget must be positive, got " + budget);
            }
            this.budget = budget;
            return this;
        }

        public Evaluator build() {
            return new Evaluator(clock, budget);
        }
    }
}
