package dev.custody.engine;

import dev.custody.engine.schema.TriggerAction;
import java.util.List;
import java.util.Objects;

/**
 * The decision on one action: what to do, which rule decided it, and whether (and why) it was decided by
 * failure.
 *
 * <p><b>Fail-closed.</b> {@link Outcome#DENY} is also returned, with a {@link #failure() failure kind} and an
 * {@link #error() error}, whenever the engine cannot decide soundly: the policies could not be loaded
 * ({@link FailureKind#LOAD}) or do not compile ({@link FailureKind#COMPILE}), the action is malformed
 * ({@link FailureKind#MALFORMED_ACTION}), a rule that had to be evaluated failed
 * ({@link FailureKind#RULE_ERROR}: an absent field, a non-boolean result, an exception), the time budget ran
 * out ({@link FailureKind#TIME_BUDGET}), or the engine itself failed ({@link FailureKind#INTERNAL}). A decision
 * is always returned; evaluation never throws.
 *
 * <p><b>Attribution.</b> For ALLOW and DENY-by-rule, {@link #policyId()}/{@link #ruleId()} name the first true
 * rule of the winning effect in declaration order, and {@link #reason()} is its description. For a fail-closed
 * DENY caused by a rule (a rule error, or the budget running out in a rule), they name that rule and
 * {@code reason} is null; for other fail-closed DENYs and for NO_MATCH they are null.
 *
 * <p>Only the engine decides: the factories of ALLOW, DENY-by-rule and NO_MATCH are package-private (the evaluator,
 * in this package, calls them), and they keep the combinations consistent: a failure is always a DENY, a match
 * always names its rule. What code outside the engine can make is a refusal ({@link #refused}): a fail-closed
 * DENY, for an action that a caller denies before the engine sees it. Immutable and thread-safe. {@link #equals} compares every field, elapsed time included; {@link #sameAs} compares what two
 * decisions say.
 */
public final class Decision {
    private final String actionId;
    private final TriggerAction action;
    private final Outcome outcome;
    private final String policyId;
    private final String ruleId;
    private final String reason;
    private final FailureKind failure;
    private final String error;
    private final long elapsedNanos;
    private final List<TraceEntry> trace;
    private final String bundleRevision;

    private Decision(String actionId, TriggerAction action, Outcome outcome, String policyId, String ruleId,
            String reason, FailureKind failure, String error, long elapsedNanos, List<TraceEntry> trace) {
        this(actionId, action, outcome, policyId, ruleId, reason, failure, error, elapsedNanos, trace, null);
    }

    private Decision(String actionId, TriggerAction action, Outcome outcome, String policyId, String ruleId,
            String reason, FailureKind failure, String error, long elapsedNanos, List<TraceEntry> trace,
            String bundleRevision) {
        this.bundleRevision = bundleRevision;
        this.actionId = actionId;
        this.action = action;
        this.outcome = Objects.requireNonNull(outcome, "outcome");
        this.policyId = policyId;
        this.ruleId = ruleId;
        this.reason = reason;
        this.failure = failure;
        this.error = error;
        this.elapsedNanos = elapsedNanos;
        this.trace = List.copyOf(trace);
    }

    /**
     * A rule decided: ALLOW or DENY, attributed to the first true rule of the winning effect.
     *
     * @throws IllegalArgumentException when {@code outcome} is NO_MATCH
     */
    static Decision matched(String actionId, TriggerAction action, Outcome outcome, String policyId,
            String ruleId, String reason, long elapsedNanos, List<TraceEntry> trace) {
        if (outcome == Outcome.NO_MATCH) {
            throw new IllegalArgumentException("a matched rule decides ALLOW or DENY, not NO_MATCH");
        }
        return new Decision(actionId, action, outcome, Objects.requireNonNull(policyId, "policyId"),
                Objects.requireNonNull(ruleId, "ruleId"), reason, null, null, elapsedNanos, trace);
    }

    /**
     * {@link #matched(String, TriggerAction, Outcome, String, String, String, long, List)} in the bundle of that
     * revision ({@link #bundleRevision()}; null for none), made at once rather than copied by {@link #inBundle}.
     */
    static Decision matched(String actionId, TriggerAction action, Outcome outcome, String policyId,
            String ruleId, String reason, long elapsedNanos, List<TraceEntry> trace, String bundleRevision) {
        if (outcome == Outcome.NO_MATCH) {
            throw new IllegalArgumentException("a matched rule decides ALLOW or DENY, not NO_MATCH");
        }
        return new Decision(actionId, action, outcome, Objects.requireNonNull(policyId, "policyId"),
                Objects.requireNonNull(ruleId, "ruleId"), reason, null, null, elapsedNanos, trace, bundleRevision);
    }

    /** No rule matched: the normal approval flow continues. */
    static Decision noMatch(String actionId, TriggerAction action, long elapsedNanos, List<TraceEntry> trace) {
        return new Decision(actionId, action, Outcome.NO_MATCH, null, null, null, null, null, elapsedNanos, trace);
    }

    /** {@link #noMatch(String, TriggerAction, long, List)} in the bundle of that revision (null for none). */
    static Decision noMatch(String actionId, TriggerAction action, long elapsedNanos, List<TraceEntry> trace,
            String bundleRevision) {
        return new Decision(actionId, action, Outcome.NO_MATCH, null, null, null, null, null, elapsedNanos, trace,
                bundleRevision);
    }

    /** A fail-closed DENY with no rule attribution. */
    static Decision failClosed(String actionId, TriggerAction action, FailureKind failure, String error,
            long elapsedNanos) {
        return failClosed(actionId, action, failure, error, null, null, elapsedNanos, List.of());
    }

    /**
     * A fail-closed DENY, attributed to the rule that failed (or null ids when no rule is to blame).
     *
     * @param error one line saying what failed
     */
    static Decision failClosed(String actionId, TriggerAction action, FailureKind failure, String error,
            String policyId, String ruleId, long elapsedNanos, List<TraceEntry> trace) {
        return new Decision(actionId, action, Outcome.DENY, policyId, ruleId, null,
                Objects.requireNonNull(failure, "failure"), Objects.requireNonNull(error, "error"), elapsedNanos, trace);
    }

    /**
     * A fail-closed DENY made outside the engine, by code that refuses an action before any rule is evaluated: a
     * velocity ledger that cannot answer ({@link FailureKind#LEDGER}), a settlement or a velocity figure refused
     * ({@link FailureKind#MALFORMED_ACTION}). It names no rule and no bundle; it can only deny, so it cannot stand
     * in for a decision of the engine's rules.
     *
     * @param error one line saying what failed
     */
    public static Decision refused(String actionId, TriggerAction action, FailureKind failure, String error) {
        return failClosed(actionId, action, failure, error, 0);
    }

    /** The action's id, echoed; may be null. */
    public String actionId() {
        return actionId;
    }

    /** The trigger action; null only for a line that could not be read as any action. */
    public TriggerAction action() {
        return action;
    }

    /** ALLOW, DENY or NO_MATCH. */
    public Outcome outcome() {
        return outcome;
    }

    /** The deciding (or failing) rule's policy, or null. */
    public String policyId() {
        return policyId;
    }

    /** The deciding (or failing) rule, or null. */
    public String ruleId() {
        return ruleId;
    }

    /** The deciding rule's description, or null. */
    public String reason() {
        return reason;
    }

    /** Whether the DENY comes from a failure rather than from a DENY rule. */
    public boolean failClosed() {
        return failure != null;
    }

    /** Why the decision failed closed, or null when it did not. */
    public FailureKind failure() {
        return failure;
    }

    /** What failed, one line for people, or null when the decision did not fail closed. */
    public String error() {
        return error;
    }

    /** Time spent deciding (bundle lookup excluded). */
    public long elapsedNanos() {
        return elapsedNanos;
    }

    /** Every evaluated rule with its result, when a trace was asked for; else empty. */
    public List<TraceEntry> trace() {
        return trace;
    }

    /**
     * The revision of the policies that decided ({@code bundle_revision} in records): a content hash of the active
     * policies and rules, equal on every engine with the same policies and different when a condition, an effect,
     * the order, an enabled flag, targeting or a version changes. Null when no bundle was reached (the policies
     * could not be loaded, the action could not be read).
     */
    public String bundleRevision() {
        return bundleRevision;
    }

    /** This decision, taken with the policies of this revision. */
    public Decision inBundle(String revision) {
        return new Decision(actionId, action, outcome, policyId, ruleId, reason, failure, error, elapsedNanos, trace,
                revision);
    }

    /** Whether the action may proceed without approval. */
    public boolean allowed() {
        return outcome == Outcome.ALLOW;
    }

    /** Whether the action is blocked. */
    public boolean denied() {
        return outcome == Outcome.DENY;
    }

    /** This decision with another action id (a stream's line, say, decided under the id it was read with). */
    public Decision withActionId(String id) {
        return new Decision(id, action, outcome, policyId, ruleId, reason, failure, error, elapsedNanos, trace,
                bundleRevision);
    }

    /** Whether two decisions say the same thing: outcome, attribution, failure kind (not timing, trace or text). */
    public boolean sameAs(Decision other) {
        return outcome == other.outcome && failure == other.failure && Objects.equals(policyId, other.policyId)
                && Objects.equals(ruleId, other.ruleId);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Decision d && outcome == d.outcome && failure == d.failure && action == d.action
                && elapsedNanos == d.elapsedNanos && Objects.equals(actionId, d.actionId)
                && Objects.equals(policyId, d.policyId) && Objects.equals(ruleId, d.ruleId)
                && Objects.equals(reason, d.reason) && Objects.equals(error, d.error) && trace.equals(d.trace)
                && Objects.equals(bundleRevision, d.bundleRevision);
    }

    @Override
    public int hashCode() {
        return Objects.hash(actionId, action, outcome, policyId, ruleId, reason, failure, error, elapsedNanos, trace,
                bundleRevision);
    }

    @Override
    public String toString() {
        return "Decision[" + outcome + (failure == null ? "" : " " + failure.wireName()) + ", actionId=" + actionId
                + ", action=" + action + ", policyId=" + policyId + ", ruleId=" + ruleId + ", reason=" + reason
                + ", error=" + error + ", elapsedNanos=" + elapsedNanos + ", bundleRevision=" + bundleRevision + "]";
    }
}
