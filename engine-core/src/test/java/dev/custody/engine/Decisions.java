package dev.custody.engine;

import dev.custody.engine.schema.TriggerAction;
import java.util.List;

/**
 * Test support: decisions made with {@link Decision}'s package-private factories, for tests (of engine-core and,
 * through its test jar, of the tools) that need a decision of every kind without deciding rules. Not in the main
 * code: there only the evaluator, beside {@link Decision}, makes decisions.
 */
public final class Decisions {
    private Decisions() {}

    /** A rule decided: ALLOW or DENY, attributed to that rule. */
    public static Decision matched(String actionId, TriggerAction action, Outcome outcome, String policyId,
            String ruleId, String reason, long elapsedNanos, List<TraceEntry> trace) {
        return Decision.matched(actionId, action, outcome, policyId, ruleId, reason, elapsedNanos, trace);
    }

    /** A rule decided, in that bundle revision. */
    public static Decision matched(String actionId, TriggerAction action, Outcome outcome, String policyId,
            String ruleId, String reason, long elapsedNanos, List<TraceEntry> trace, String bundleRevision) {
        return Decision.matched(actionId, action, outcome, policyId, ruleId, reason, elapsedNanos, trace,
                bundleRevision);
    }

    /** No rule matched. */
    public static Decision noMatch(String actionId, TriggerAction action, long elapsedNanos, List<TraceEntry> trace) {
        return Decision.noMatch(actionId, action, elapsedNanos, trace);
    }

    /** No rule matched, in that bundle revision. */
    public static Decision noMatch(String actionId, TriggerAction action, long elapsedNanos, List<TraceEntry> trace,
            String bundleRevision) {
        return Decision.noMatch(actionId, action, elapsedNanos, trace, bundleRevision);
    }

    /** A fail-closed DENY with no rule attribution. */
    public static Decision failClosed(String actionId, TriggerAction action, FailureKind failure, String error,
            long elapsedNanos) {
        return Decision.failClosed(actionId, action, failure, error, elapsedNanos);
    }

    /** A fail-closed DENY attributed to a rule. */
    public static Decision failClosed(String actionId, TriggerAction action, FailureKind failure, String error,
            String policyId, String ruleId, long elapsedNanos, List<TraceEntry> trace) {
        return Decision.failClosed(actionId, action, failure, error, policyId, ruleId, elapsedNanos, trace);
    }
}
