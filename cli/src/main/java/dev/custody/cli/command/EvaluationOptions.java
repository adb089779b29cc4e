package dev.custody.cli.command;

import dev.custody.engine.compile.CostMeter;
import dev.custody.cli.CliEnvironment;
import dev.custody.cli.Converters;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import picocli.CommandLine.Option;

/**
 * {@code --now}, {@code --cost-limit} and {@code --time-budget}, shared by the verbs that decide a stream of actions
 * ({@code replay}, {@code diff}): the clock behind {@code context.*} for actions without {@code at}, and the
 * budgets of one evaluation (docs/design.md §3.15), handed to the {@link LocalEngine}.
 */
final class EvaluationOptions {
    @Option(names = "--now", paramLabel = "INSTANT", converter = Converters.InstantConverter.class,
            description = "Instant for actions without `at` (default: now).")
    Instant now;

    @Option(names = "--cost-limit", paramLabel = "UNITS", defaultValue = "" + CostMeter.DEFAULT_LIMIT,
            converter = Converters.CostLimitConverter.class,
            description = "Cost limit of one evaluation, in units (default: ${DEFAULT-VALUE}); past it the decision is "
                    + "DENY, failure cost_budget, on every machine alike.")
    long costLimit;

    @Option(names = "--time-budget", paramLabel = "DURATION", defaultValue = "1s",
            converter = Converters.DurationConverter.class,
            description = "Wall-clock backstop of one evaluation (default: ${DEFAULT-VALUE}); past it the decision is "
                    + "DENY, failure time_budget.")
    Duration timeBudget;

    /** The clock these options describe. */
    Clock clock(CliEnvironment env) {
        return clock(env, now);
    }

    /** A clock fixed at {@code now}, or the environment's clock when null. */
    static Clock clock(CliEnvironment env, Instant now) {
        return now == null ? env.clock() : Clock.fixed(now, ZoneOffset.UTC);
    }
}
