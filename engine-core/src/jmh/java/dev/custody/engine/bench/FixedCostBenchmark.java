package dev.custody.engine.bench;

import dev.custody.engine.internal.bundle.PolicyBundle;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.Decision;
import dev.custody.engine.TestEvaluator;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.PayloadResult;
import dev.custody.engine.check.PayloadValidator;
import dev.custody.engine.validate.PolicyValidator;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of deciding an action before any rule runs: our payload check ({@code firstCheck} on a new action,
 * less {@code build}; {@code validate} when the action was checked before) and a whole
 * evaluation against a bundle with no rule ({@code emptyBundle}), against what the raw cel-java baseline
 * does instead (build its activation map: {@code rawActivation}). The per-action floor of
 * {@link EvaluateBenchmark}'s {@code denyEarly} mix.
 *
 * <p>Run: {@code ./mvnw -B -pl engine-core -am -Pbench -DskipTests verify -Djmh.args="FixedCostBenchmark -f 1 -wi 3 -i 5 -w 1s -r 1s"}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FixedCostBenchmark {
    private Action action;
    private Instant now;
    private PolicyBundle empty;
    private TestEvaluator evaluator;

    @Setup(Level.Trial)
    public void setUp() {
        action = Workload.mix("mostlyNoMatch", 1, 7).get(0);
        now = Instant.now();
        empty = PolicyBundle.compile(List.of(), new PolicyValidator(RuleCompiler.create()));
        evaluator = TestEvaluator.create();
    }

    /** The check of an action decided before: the action remembers it (docs/design.md §10.5). */
    @Benchmark
    public PayloadResult validate() {
        return PayloadValidator.validate(action, now);
    }

    /** Building a new action from its sections (each copied): what {@link #firstCheck} pays besides the check. */
    @Benchmark
    public Action build() {
        return new Action(action.id(), action.action(), action.walletId(), action.workspaceId(), action.at(),
                new java.util.HashMap<>(action.sections()));
    }

    /** Building a new action and checking it, as the first decision of an action read from a stream does. */
    @Benchmark
    public PayloadResult firstCheck() {
        return PayloadValidator.validate(build(), now);
    }

    @Benchmark
    public Decision emptyBundle() {
        return evaluator.evaluate(empty, action);
    }

    @Benchmark
    public Map<String, Object> rawActivation() {
        return RawCelEngine.activation(action);
    }
}
