package dev.custody.engine;

import dev.custody.engine.internal.bundle.PolicyBundle;
import dev.custody.engine.payload.Action;
import java.time.Clock;
import java.time.Duration;

/**
 * Test support: the engine's package-private {@link Evaluator} for tests (and benchmarks) in other packages that
 * decide one compiled bundle directly, without a policy source or a bundle cache. Each method is the evaluator's
 * own; nothing is decided here.
 */
public final class TestEvaluator {
    private final Evaluator evaluator;

    private TestEvaluator(Evaluator evaluator) {
        this.evaluator = evaluator;
    }

    /** The evaluator with the engine's defaults. */
    public static TestEvaluator create() {
        return new TestEvaluator(Evaluator.create());
    }

    /** A builder of an evaluator with another clock, time budget or cost limit. */
    public static Builder builder() {
        return new Builder();
    }

    /** {@link Evaluator#evaluate(PolicyBundle, Action)}. */
    public Decision evaluate(PolicyBundle bundle, Action action) {
        return evaluator.evaluate(bundle, action);
    }

    /** {@link Evaluator#evaluate(PolicyBundle, Action, boolean)}. */
    public Decision evaluate(PolicyBundle bundle, Action action, boolean explain) {
        return evaluator.evaluate(bundle, action, explain);
    }

    /** The evaluator's time budget. */
    public Duration timeBudget() {
        return evaluator.timeBudget();
    }

    /** The evaluator's cost limit. */
    public long costLimit() {
        return evaluator.costLimit();
    }

    /** {@link Evaluator.Builder}. Not thread-safe. */
    public static final class Builder {
        private final Evaluator.Builder builder = Evaluator.builder();

        public Builder clock(Clock clock) {
            builder.clock(clock);
            return this;
        }

        public Builder costLimit(long limit) {
            builder.costLimit(limit);
            return this;
        }

        public Builder timeBudget(Duration budget) {
            builder.timeBudget(budget);
            return this;
        }

        public TestEvaluator build() {
            return new TestEvaluator(builder.build());
        }
    }
}
