package dev.custody.engine.internal.access;

import dev.custody.engine.Decision;
import dev.custody.engine.FailureKind;
import dev.custody.engine.Outcome;
import dev.custody.engine.TraceEntry;
import dev.custody.engine.schema.TriggerAction;
import java.util.List;

/**
 * Internal, not API: the only way to make a {@link Decision} outside its package (the evaluator, the engine's
 * replay code, engine-core's tests). The combinations stay consistent: a failure is always a DENY, a match always
 * names its rule. Thread-safe (stateless).
 */
public final class Decisions {
    private Decisions() {}

    /**
     * A rule decided: ALLOW or DENY, attributed to the first true rule of the winning effect.
     *
     * @throws IllegalArgumentException when {@code outcome} is NO_MATCH
     */
    public static Decision matched(String actionId, TriggerAction action, Outcome outcome, String policyId,
            String ruleId, String reason, long elapsedNanos, List<TraceEntry> trace) {
        return matched(actionId, action, outcome, policyId, ruleId, reason, elapsedNanos, trace, null);
    }

    /** {@link #matched(String, TriggerAction, Outcome, String, String, String, long, List)} in that bundle revision. */
    public static Decision matched(String actionId, TriggerAction action, Outcome outcome, String policyId,
            String ruleId, String reason, long elapsedNanos, List<TraceEntry> trace, String bundleRevision) {
        return EngineAccess.decisions().matched(actionId, action, outcome, policyId, ruleId, reason, elapsedNanos,
                trace, bundleRevision);
    }

    /** No rule matched: the normal approval flow continues. */
    public static Decision noMatch(String actionId, TriggerAction action, long elapsedNanos, List<TraceEntry> trace) {
        return noMatch(actionId, action, elapsedNanos, trace, null);
    }

    /** {@link #noMatch(String, TriggerAction, long, List)} in that bundle revision (null for none). */
    public static Decision noMatch(String actionId, TriggerAction action, long elapsedNanos, List<TraceEntry> trace,
            String bundleRevision) {
        return EngineAccess.decisions().noMatch(actionId, action, elapsedNanos, trace, bundleRevision);
    }

    /** A fail-closed DENY with no rule attribution. */
    public static Decision failClosed(String actionId, TriggerAction action, FailureKind failure, String error,
            long elapsedNanos) {
        return failClosed(actionId, action, failure, error, null, null, elapsedNanos, List.of());
    }

    /**
     * A fail-closed DENY, attributed to the rule that failed (or null ids when no rule is to blame).
     *
     * @param error one line saying what failed
     */
    public static Decision failClosed(String actionId, TriggerAction action, FailureKind failure, String error,
            String policyId, String ruleId, long elapsedNanos, List<TraceEntry> trace) {
        return EngineAccess.decisions().failClosed(actionId, action, failure, error, policyId, ruleId, elapsedNanos,
                trace);
    }
}
