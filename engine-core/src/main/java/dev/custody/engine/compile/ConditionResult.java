package dev.custody.engine.compile;

import java.util.Objects;

/**
 * The result of evaluating one condition: true, false, or an error. An error is anything that is not
 * a boolean: an exception, a read of an absent field, a non-boolean value, or running out of cost or time.
 */
public sealed interface ConditionResult permits ConditionResult.Value, ConditionResult.Failure {

    /** The shared {@code true} result. */
    Value TRUE = new Value(true);
    /** The shared {@code false} result. */
    Value FALSE = new Value(false);

    /** The condition evaluated to a boolean. */
    record Value(boolean value) implements ConditionResult {}

    /**
     * The condition did not evaluate to a boolean.
     *
     * @param message one-line message, with the position inside the condition when known
     * @param budgetExceeded whether evaluation was stopped because the wall-clock budget (the backstop) ran out
     * @param costExceeded whether evaluation was stopped because the decision's cost passed its limit
     *     ({@link CostMeter})
     */
    record Failure(String message, boolean budgetExceeded, boolean costExceeded) implements ConditionResult {
        public Failure {
            Objects.requireNonNull(message, "message");
        }

        /** A failure that is not a cost overrun. */
        public Failure(String message, boolean budgetExceeded) {
            this(message, budgetExceeded, false);
        }

        /** Whether evaluation was stopped by a budget, of time or of cost, rather than by an error of the rule. */
        public boolean stopped() {
            return budgetExceeded || costExceeded;
        }
    }

    /** {@link #TRUE} or {@link #FALSE}. */
    static Value of(boolean b) {
        return b ? TRUE : FALSE;
    }
}
