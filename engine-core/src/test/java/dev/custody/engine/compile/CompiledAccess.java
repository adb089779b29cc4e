package dev.custody.engine.compile;

import dev.custody.engine.payload.Payload;

/**
 * Test access to {@link CompiledCondition}'s two evaluation paths, for the differential properties in
 * {@code dev.custody.engine.properties}: the compiled form alone (no fallback on cel-java) and cel-java alone.
 */
public final class CompiledAccess {
    /** The placeholder message of the compiled form's result for an error it leaves cel-java to word. */
    public static final String WORDED_BY_CEL = CompiledCondition.WORDED_BY_CEL;
    /** The placeholder message of the compiled form's result when it defers to cel-java. */
    public static final String DEFERRED = CompiledCondition.DEFERRED;

    private CompiledAccess() {}

    /** The compiled form's own result; the condition must have one. */
    public static ConditionResult compiledOnly(CompiledCondition c, Payload p) {
        return c.evaluateCompiledOnly(p);
    }

    /** The compiled form's own result, charging {@code cost}; the condition must have one. */
    public static ConditionResult compiledOnly(CompiledCondition c, Payload p, CostMeter cost) {
        return c.evaluateCompiledOnly(p, cost);
    }

    /** cel-java's result, charging {@code cost}. */
    public static ConditionResult interpreted(CompiledCondition c, Payload p, long deadlineNanos, CostMeter cost) {
        return c.evaluateInterpreted(p, deadlineNanos, cost);
    }

    /** The number of nodes of the condition's checked tree: what its compiled form is charged up front. */
    public static long nodes(CompiledCondition c) {
        return c.nodes();
    }

    /** cel-java's result. */
    public static ConditionResult interpreted(CompiledCondition c, Payload p, long deadlineNanos) {
        return c.evaluateInterpreted(p, deadlineNanos);
    }
}
