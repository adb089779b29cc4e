package dev.custody.engine.compile;

import com.google.common.collect.ImmutableMap;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelEvaluationListener;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelVariableResolver;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.Payload;
import dev.custody.engine.check.PayloadResult;
import dev.custody.engine.check.PayloadValidator;
import dev.custody.engine.schema.TriggerAction;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What evaluating one condition through {@link CompiledCondition#evaluate} (the deadline listener when the
 * condition {@linkplain CompiledCondition#mayRunLong() may run long}, the variable resolver, the result
 * wrapping) costs over running the very same cel-java program directly:
 * {@code ours} (the compiled form when the condition has one) and {@code oursCelJava} (the same on cel-java
 * only) against {@code programEvalMap} ({@code program.eval(Map)}, which copies a map that is not a Guava
 * {@code ImmutableMap}) and {@code programEvalImmutableMap} (no copy), and, to tell the parts apart,
 * {@code programEvalResolver} ({@code program.eval(resolver)}: our resolver, no listener) and
 * {@code programTraceResolver} ({@code program.trace(resolver, no-op listener)}: what any listener costs).
 *
 * <p>Run (from the repository root; results in {@code engine-core/BENCHMARKS.md}):
 * <pre>
 * ./mvnw -B -pl engine-core -am -Pbench -DskipTests verify -Djmh.args="ListenerOverheadBenchmark -f 1 -wi 3 -i 5 -w 1s -r 1s"
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ListenerOverheadBenchmark {
    /**
     * A one-comparison rule and a four-term rule with a list membership (both small: since commit 417a0ab they
     * run without the listener), and a rule with a comprehension, which still runs under it.
     */
    @Param({"simple", "complex", "comprehension"})
    public String rule;

    private static final Map<String, String> CONDITIONS = Map.of(
            "simple", "withdrawal.value_usd > 250000.0",
            "complex", "withdrawal.is_whitelisted && withdrawal.address_age_sec >= 604800.0"
                    + " && withdrawal.value_usd <= 5000.0 && principal.role in ['owner', 'admin', 'signer']",
            "comprehension", "['USDC', 'USDT', 'DAI', 'EURC', 'PYUSD', 'ETH'].exists(s, s == withdrawal.asset_symbol)"
                    + " && withdrawal.value_usd < 10000.0");
    private static final CelEvaluationListener NO_OP = (expr, result) -> { };

    private CompiledCondition condition;
    private CelRuntime.Program program;
    private Payload payload;
    private Map<String, Map<String, Object>> sections;
    private ImmutableMap<String, Object> immutableSections;
    private CelVariableResolver resolver;
    private long deadline;

    @Setup(Level.Trial)
    public void setUp() {
        condition = RuleCompiler.create().compile(TriggerAction.WITHDRAWAL_CREATE, CONDITIONS.get(rule)).condition()
                .orElseThrow();
        program = condition.program();
        Action a = Action.builder(TriggerAction.WITHDRAWAL_CREATE)
                .walletId("a1a1a1a1-0000-4000-8000-000000000001")
                .at(Instant.parse("2026-11-03T14:05:00Z"))
                .field("principal.role", "signer")
                .field("withdrawal.value_usd", 4200.0)
                .field("withdrawal.is_whitelisted", true)
                .field("withdrawal.address_age_sec", 900_000.0)
                .field("withdrawal.asset_symbol", "ETH")
                .build();
        payload = ((PayloadResult.Valid) PayloadValidator.validate(a, Instant.now())).payload();
        sections = payload.sections();
        immutableSections = ImmutableMap.copyOf(sections);
        Map<String, Map<String, Object>> s = sections;
        resolver = name -> Optional.ofNullable(s.get(name));
        deadline = ThreadClock.now() + TimeUnit.HOURS.toNanos(1);
    }

    @Benchmark
    public ConditionResult ours() {
        return condition.evaluate(payload, deadline);
    }

    /** {@code ours} on cel-java only, as if the condition had no compiled form (the path before the compiled one). */
    @Benchmark
    public ConditionResult oursCelJava() {
        return condition.evaluateInterpreted(payload, deadline);
    }

    @Benchmark
    public Object programEvalMap() throws CelEvaluationException {
        return program.eval(sections);
    }

    @Benchmark
    public Object programEvalImmutableMap() throws CelEvaluationException {
        return program.eval(immutableSections);
    }

    @Benchmark
    public Object programEvalResolver() throws CelEvaluationException {
        return program.eval(resolver);
    }

    @Benchmark
    public Object programTraceResolver() throws CelEvaluationException {
        return program.trace(resolver, NO_OP);
    }
}
