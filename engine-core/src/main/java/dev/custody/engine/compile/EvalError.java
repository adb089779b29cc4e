package dev.custody.engine.compile;

/**
 * A CEL error raised by a compiled condition ({@link ClosureCompiler}): the error value CEL's {@code &&},
 * {@code ||} absorb, carried as an exception without a stack trace.
 *
 * <p>{@link #exprId} is the sub-expression cel-java reports the error at. {@link #detail} is cel-java's own
 * wording of the error (for the errors the compiled form words itself: an absent key, {@code / by zero},
 * {@code long overflow}, a bad number format, a double out of the int range); null for errors that the
 * compiled form knows to be errors but leaves to cel-java to word (a value of a type no overload takes, a
 * non-boolean operand), in which case {@link CompiledCondition} runs the condition on cel-java for the message.
 */
final class EvalError extends RuntimeException {
    final long exprId;
    final String detail;

    EvalError(long exprId, String detail) {
        super(detail, null, false, false);
        this.exprId = exprId;
        this.detail = detail;
    }

    /** An error that cel-java words (the condition is run on cel-java for the message). */
    static EvalError worded(long exprId) {
        return new EvalError(exprId, null);
    }

    /**
     * Not a CEL error: the compiled form met a value it was not built for (a payload made outside
     * {@link dev.custody.engine.check.PayloadValidator}, say). CEL's logical operators do not absorb it:
     * it unwinds the whole evaluation, and the condition is evaluated on cel-java instead.
     */
    static final class Defer extends RuntimeException {
        static final Defer INSTANCE = new Defer();

        private Defer() {
            super("deferred to cel-java", null, false, false);
        }
    }
}
