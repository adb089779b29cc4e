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

    /** cel-java's result. */
    public static ConditionResult interpreted(CompiledCondition c, Payload p, long deadlineNanos) {
        return c.evaluateInterpreted(p, deadlineNanos);
    }
}
