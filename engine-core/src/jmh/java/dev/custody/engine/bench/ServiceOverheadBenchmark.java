package dev.custody.engine.bench;

import dev.custody.engine.PolicyEngine;
import dev.custody.engine.Decision;
import dev.custody.engine.log.DecisionLog;
import dev.custody.engine.log.JsonLinesDecisionSink;
import dev.custody.engine.metrics.EngineMetrics;
import dev.custody.engine.payload.Action;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.List;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a service pays per decision for the decision log and for metrics: {@link PolicyEngine#evaluate} on
 * {@link Realistic}'s bundle (cached: every call a cache hit), the same {@link Workload} streams as
 * {@link EvaluateBenchmark}, on five engines that differ only in what is registered:
 * <ul>
 *   <li>{@code plain}: nothing;
 *   <li>{@code logNoop}: a {@link DecisionLog} whose listener does nothing (the deciding thread's share: building
 *       the event, reading the clock, offering it to the bounded queue);
 *   <li>{@code logJsonl}: a {@link DecisionLog} into a {@link JsonLinesDecisionSink} on a temporary file (the
 *       writer thread competes for the cores; what it could not keep up with is dropped and counted, and the
 *       tear-down prints how many);
 *   <li>{@code metrics}: {@link EngineMetrics} on a {@link SimpleMeterRegistry};
 *   <li>{@code logJsonlAndMetrics}: both.
 * </ul>
 * Ratios to {@code plain} are the figures to read ({@code engine-core/BENCHMARKS.md}).
 *
 * <pre>
 * ./mvnw -B -pl engine-core -am -Pbench -DskipTests verify -Djmh.args="ServiceOverheadBenchmark -f 1 -wi 3 -i 5 -w 1s -r 1s"
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ServiceOverheadBenchmark {
    private static final String WS = "ws-bench";
    private static final int STREAM = 256;

    @Param({"mostlyNoMatch", "denyEarly", "allow"})
    public String mix;

    private PolicyEngine plain;
    private PolicyEngine logNoop;
    private PolicyEngine logJsonl;
    private PolicyEngine metrics;
    private PolicyEngine logJsonlAndMetrics;
    private final Map<String, DecisionLog> logs = new LinkedHashMap<>();
    private Path dir;
    private Action[] actions;
    private int next;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("custody-bench-log");
        plain = engine().build();
        logNoop = engine().observer(log("logNoop", DecisionLog.of(e -> { }))).build();
        logJsonl = engine().observer(log("logJsonl", jsonl("decisions.jsonl"))).build();
        metrics = engine().observer(EngineMetrics.builder(new SimpleMeterRegistry()).build()).build();
        DecisionLog both = log("logJsonlAndMetrics", jsonl("both.jsonl"));
        logJsonlAndMetrics = engine().observer(both)
                .observer(EngineMetrics.builder(new SimpleMeterRegistry()).decisionLog(both).build()).build();
        actions = Workload.mix(mix, STREAM, 42).toArray(new Action[0]);
        for (PolicyEngine e : List.of(plain, logNoop, logJsonl, metrics, logJsonlAndMetrics)) {
            for (Action a : actions) {
                Decision d = e.evaluate(WS, a);
                Decision p = plain.evaluate(WS, a);
                if (!d.sameAs(p) || d.failClosed()) {
                    throw new IllegalStateException("engines disagree on " + a + ": " + d + " vs " + p);
                }
            }
        }
    }

    private static PolicyEngine.Builder engine() {
        // a generous budget: a cold first pass (the agreement check) must not deny on time
        return PolicyEngine.builder(ws -> Realistic.policies()).timeBudget(Duration.ofMinutes(1));
    }

    private DecisionLog jsonl(String file) {
        return DecisionLog.of(JsonLinesDecisionSink.builder(dir.resolve(file)).maxBytes(16L << 20).keep(1).build());
    }

    private DecisionLog log(String name, DecisionLog log) {
        logs.put(name, log);
        return log;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        // every trial builds all five engines; only the measured one's log saw more than the agreement check
        for (Map.Entry<String, DecisionLog> e : logs.entrySet()) {
            DecisionLog log = e.getValue();
            log.close(1000);
            if (log.delivered() + log.dropped() > 2L * STREAM) {
                System.out.printf("%n[%s %s] decision log: %,d delivered, %,d dropped (%.0f %%)%n", e.getKey(), mix,
                        log.delivered(), log.dropped(),
                        100.0 * log.dropped() / (log.delivered() + log.dropped()));
            }
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private Action nextAction() {
        Action a = actions[next];
        next = (next + 1) & (STREAM - 1);
        return a;
    }

    @Benchmark
    public Decision plain() {
        return plain.evaluate(WS, nextAction());
    }

    @Benchmark
    public Decision logNoop() {
        return logNoop.evaluate(WS, nextAction());
    }

    @Benchmark
    public Decision logJsonl() {
        return logJsonl.evaluate(WS, nextAction());
    }

    @Benchmark
    public Decision metrics() {
        return metrics.evaluate(WS, nextAction());
    }

    @Benchmark
    public Decision logJsonlAndMetrics() {
        return logJsonlAndMetrics.evaluate(WS, nextAction());
    }
}
