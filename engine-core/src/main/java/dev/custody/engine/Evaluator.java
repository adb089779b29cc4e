package dev.custody.engine;

import dev.custody.engine.internal.bundle.BoundRule;
import dev.custody.engine.policy.BundleError;
import dev.custody.engine.internal.bundle.PolicyBundle;
import dev.custody.engine.compile.ConditionResult;
import dev.custody.engine.compile.CostMeter;
import dev.custody.engine.compile.ThreadClock;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.Payload;
import dev.custody.engine.check.PayloadResult;
import dev.custody.engine.check.PayloadValidator;
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
 * <h2>Cost budget</h2>
 * One {@link CostMeter} counts the cost of the whole evaluation, every rule together; a rule that passes the
 * limit stops there and the decision is DENY with {@code fail_closed} and failure {@code cost_budget}, attributed
 * to that rule (a DENY rule found true before it still decides, as a DENY rule found true before a failing one
 * does). The cost is a function of the rules and the action only, so the decision is the same on every machine
 * and under every load (docs/design.md §3.15). The default limit is {@link CostMeter#DEFAULT_LIMIT}.
 *
 * <h2>Time budget: a backstop</h2>
 * A deadline on the thread's CPU time ({@link ThreadClock}), so that waiting for a processor does not count, is a
 * far backstop against what the cost cannot see (default {@link #DEFAULT_BACKSTOP}, 1 s). Only rules that may run
 * long (a comprehension, more than 64 sub-expressions) are watched: the deadline is set when the first of them
 * starts, checked before each later one, inside each while it runs and, if one ran, after the last rule. Past it,
 * the decision is DENY with {@code fail_closed} and failure {@code time_budget}; such an evaluation never ends in
 * ALLOW or NO_MATCH. The cost limit is calibrated so that what it admits takes at most 50 ms of CPU on the
 * reference machine, so the backstop is reached only by work the cost model misjudges or on a machine some
 * twenty times slower; a cold JVM, which runs cel-java's interpreter 10 to 20 times slower until the JIT has
 * compiled it, is the case it exists for.
 *
 * <h2>Time</h2>
 * {@code context.hour} and {@code context.day_of_week} come from the action's {@code at} when it has one,
 * else from the injected {@link Clock} (UTC).
 *
 * <p>Immutable and thread-safe; {@link #evaluate} never throws (null arguments aside). Package-private: it lives
 * beside {@link Decision} and makes decisions with its package-private factories, so no bridge reaches them from
 * another package (docs/design.md §9.1); the engine ({@link PolicyEngine}) is how everything else decides.
 */
final class Evaluator {
    /** The default wall-clock backstop of one evaluation. */
    public static final Duration DEFAULT_BACKSTOP = Duration.ofSeconds(1);

    private final Clock clock;
    private final long budgetNanos;
    private final long costLimit;

    private Evaluator(Clock clock, Duration budget, long costLimit) {
        this.clock = clock;
        this.budgetNanos = budget.toNanos();
        this.costLimit = costLimit;
    }

    /** An evaluator on the system UTC clock with the default cost limit and 1 s backstop. */
    public static Evaluator create() {
        return builder().build();
    }

    /** A builder for the clock and the budget. */
    public static Builder builder() {
        return new Builder();
    }

    /** The wall-clock budget (the backstop) of one evaluation. */
    public Duration timeBudget() {
        return Duration.ofNanos(budgetNanos);
    }

    /** The cost limit of one evaluation ({@link CostMeter}). */
    public long costLimit() {
        return costLimit;
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
        return evaluate(bundle, action, explain, seen, System.nanoTime());
    }

    /**
     * {@link #evaluate(PolicyBundle, Action, boolean, RuleSink)} for a caller that has just read
     * {@link System#nanoTime()} itself ({@code startNanos}): the decision's elapsed time counts from there, and the
     * clock is not read again to start it ({@code PolicyEngine} checks its cached bundle's deadline with the same
     * reading).
     */
    public Decision evaluate(PolicyBundle bundle, Action action, boolean explain, RuleSink seen, long startNanos) {
        Objects.requireNonNull(bundle, "bundle");
        Objects.requireNonNull(action, "action");
        long start = startNanos;
        try {
            Decision d = decide(bundle, action, explain, start, seen);
            // the usual decisions are made in the bundle's revision at once; the rest are copied into it
            return bundle.revision() == null || d.bundleRevision() != null ? d : d.inBundle(bundle.revision());
        } catch (RuntimeException | Error e) {
            // Nothing below is expected to throw; if it does, the action is still denied.
            return Decision.failClosed(action.id(), action.action(), FailureKind.INTERNAL,
                    "internal error while evaluating: " + e.getClass().getSimpleName(), System.nanoTime() - start);
        }
    }

    /*
     * The backstop's clock (ThreadClock: the thread's CPU time) is read only around rules that may run long
     * (CompiledCondition.mayRunLong()): the deadline is set when the first of them starts, checked before each later
     * one and, if one ran, once the rules are done, before a decision other than a true DENY rule's is returned (the
     * rule itself checks it while it runs). Every other rule does a small number of steps that the cost meter
     * bounds, so a decision without such rules never reads the clock and can never be a time_budget denial. A
     * time-out found between rules is blamed on the last rule that ran (the next one when none has).
     *
     * That state is three local variables of decide() (deadline, watchedRan, last), not an object: a
     * per-decision object here was scalar-replaced or not depending on the JIT's inlining in each JVM, which was
     * one of the two modes of the collector matrix (docs/design.md §10.7).
     */
    private Decision decide(PolicyBundle bundle, Action action, boolean explain, long start, RuleSink seen) {
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

        long deadline = Long.MAX_VALUE;
        boolean watchedRan = false;
        BoundRule last = null;
        CostMeter cost = new CostMeter(costLimit);
        BoundRule firstFailed = null;
        String firstError = null;
        for (BoundRule rule : bundle.denyRules(action.action())) {
            if (!rule.targets(wallet)) {
                continue;
            }
            boolean watched = rule.condition().mayRunLong();
            if (watched && (deadline = beforeWatched(deadline)) == TIMED_OUT) {
                return timedOut(action, last != null ? last : rule, start, trace);
            }
            ConditionResult result = run(rule, payload, deadline, cost, trace, explain, seen);
            last = rule;
            watchedRan |= watched;
            if (result instanceof ConditionResult.Value v) {
                if (v.value()) {
                    return decided(action, Outcome.DENY, rule, start, trace, bundle.revision());
                }
            } else {
                ConditionResult.Failure f = (ConditionResult.Failure) result;
                if (f.costExceeded()) {
                    return overCost(action, rule, start, trace);
                }
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
            return watchedRan && ThreadClock.passed(deadline) ? timedOut(action, last, start, trace)
                    : failed(action, firstFailed, firstError, start, trace);
        }
        BoundRule firstTrue = null;
        for (BoundRule rule : bundle.allowRules(action.action())) {
            if (!rule.targets(wallet)) {
                continue;
            }
            boolean watched = rule.condition().mayRunLong();
            if (watched && (deadline = beforeWatched(deadline)) == TIMED_OUT) {
                return timedOut(action, last != null ? last : rule, start, trace);
            }
            ConditionResult result = run(rule, payload, deadline, cost, trace, explain, seen);
            last = rule;
            watchedRan |= watched;
            if (result instanceof ConditionResult.Value v) {
                if (v.value() && firstTrue == null) {
                    firstTrue = rule;
                }
            } else {
                ConditionResult.Failure f = (ConditionResult.Failure) result;
                return f.costExceeded() ? overCost(action, rule, start, trace)
                        : f.budgetExceeded() ? timedOut(action, rule, start, trace)
                        : failed(action, rule, f.message(), start, trace);
            }
        }
        if (watchedRan && ThreadClock.passed(deadline)) {
            return timedOut(action, last, start, trace);
        }
        long end = System.nanoTime();
        if (firstTrue != null) {
            return Decision.matched(action.id(), action.action(), Outcome.ALLOW, firstTrue.policyId(),
                    firstTrue.ruleId(), firstTrue.description(), end - start, trace, bundle.revision());
        }
        return Decision.noMatch(action.id(), action.action(), end - start, trace, bundle.revision());
    }

    /** What {@link #beforeWatched} returns once the backstop has passed. */
    private static final long TIMED_OUT = Long.MIN_VALUE;

    /**
     * Before a watched rule runs: the deadline, set now by the first (the state before is {@link Long#MAX_VALUE}, no
     * deadline), else as it was; {@link #TIMED_OUT} when it has passed.
     */
    private long beforeWatched(long deadline) {
        if (deadline == Long.MAX_VALUE) {
            return ThreadClock.deadline(budgetNanos);
        }
        return ThreadClock.passed(deadline) ? TIMED_OUT : deadline;
    }

    /** Runs one rule under the decision's budgets, recording it in the trace and telling {@code seen}. */
    private static ConditionResult run(BoundRule rule, Payload payload, long deadline, CostMeter cost,
            List<TraceEntry> trace, boolean explain, RuleSink seen) {
        long t0 = explain ? System.nanoTime() : 0;
        ConditionResult result = rule.condition().evaluateWithoutStartCheck(payload, deadline, cost);
        record(trace, explain, rule, result, t0);
        if (seen != null) {
            seen.evaluated(rule, payload, result);
        }
        return result;
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

    private static Decision decided(Action action, Outcome outcome, BoundRule rule, long start, List<TraceEntry> trace,
            String revision) {
        return Decision.matched(action.id(), action.action(), outcome, rule.policyId(), rule.ruleId(),
                rule.description(), System.nanoTime() - start, trace, revision);
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

    private Decision overCost(Action action, BoundRule rule, long start, List<TraceEntry> trace) {
        return Decision.failClosed(action.id(), action.action(), FailureKind.COST_BUDGET,
                "cost budget of " + costLimit + " units exceeded in rule `" + rule.ruleId() + "`", rule.policyId(),
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

    /**
     * {@code budget}, when it is a valid time budget (positive), for the builders that take one.
     *
     * @throws IllegalArgumentException if it is zero or negative
     */
    public static Duration checkTimeBudget(Duration budget) {
        Objects.requireNonNull(budget, "budget");
        if (budget.isNegative() || budget.isZero()) {
            throw new IllegalArgumentException("time budget must be positive, got " + budget);
        }
        return budget;
    }

    /** Builds an {@link Evaluator}. Not thread-safe; the evaluator it builds is. */
    public static final class Builder {
        private Clock clock = Clock.systemUTC();
        private Duration budget = DEFAULT_BACKSTOP;
        private long costLimit = CostMeter.DEFAULT_LIMIT;

        private Builder() {}

        /** The clock behind {@code context.*} for actions without an instant. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** The cost limit of one evaluation ({@link CostMeter}); must be positive. */
        public Builder costLimit(long limit) {
            this.costLimit = CostMeter.checkLimit(limit);
            return this;
        }

        /** The wall-clock budget (the backstop) of one evaluation; must be positive. */
        public Builder timeBudget(Duration budget) {
            this.budget = checkTimeBudget(budget);
            return this;
        }

        public Evaluator build() {
            return new Evaluator(clock, budget, costLimit);
        }
    }
}
