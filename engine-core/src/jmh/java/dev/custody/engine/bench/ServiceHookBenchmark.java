package dev.custody.engine.bench;

import dev.custody.engine.Decisions;
import dev.custody.engine.Decision;
import dev.custody.engine.Outcome;
import dev.custody.engine.log.DecisionLog;
import dev.custody.engine.log.JsonLinesDecisionSink;
import dev.custody.engine.metrics.EngineMetrics;
import dev.custody.engine.payload.Action;
import dev.custody.engine.schema.TriggerAction;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The deciding thread's own work for each hook of {@link ServiceOverheadBenchmark}, alone, so that a small cost is
 * not lost in the noise of a whole decision: {@code metricsAlone} is what {@link EngineMetrics} does per decision
 * (a cache hit, the decision counter, the timer, the rule's counter), plus the two clock reads the engine makes for
 * it; {@code offerAlone} is what a {@link DecisionLog} does as an observer (read its clock, build the event, offer
 * it to the queue; a no-op listener drains it); {@code sinkRecord} is one record of the
 * {@link JsonLinesDecisionSink}, on the log's thread, not the deciding one (the action in the replay format, JSON,
 * the write; rotated at 64 MiB with no old file kept).
 *
 * <pre>
 * ./mvnw -B -pl engine-core -am -Pbench -DskipTests verify -Djmh.args="ServiceHookBenchmark -f 1 -wi 3 -i 5 -w 1s -r 1s"
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ServiceHookBenchmark {
    private EngineMetrics metrics;
    private DecisionLog log;
    private JsonLinesDecisionSink sink;
    private Path file;
    private DecisionLog.Event event;
    private final Clock clock = Clock.systemUTC();
    private Action action;
    private Decision decision;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        metrics = EngineMetrics.builder(new SimpleMeterRegistry()).build();
        log = DecisionLog.of(e -> { });
        action = Workload.mix("denyEarly", 1, 42).get(0);
        decision = Decisions.matched("a-0", TriggerAction.WITHDRAWAL_CREATE, Outcome.DENY, "treasury-limits",
                "single-limit", "rule single-limit", 1000, List.of());
        event = new DecisionLog.Event("ws-bench", action, decision.inBundle("e44fe297c984784c"), clock.instant());
        file = Files.createTempFile("custody-bench", ".jsonl");
        sink = JsonLinesDecisionSink.builder(file).maxBytes(64L << 20).keep(0).build();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        log.close(1000);
        try {
            sink.close();
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One record written by the JSON-lines sink, on the log's thread in a service. */
    @Benchmark
    public void sinkRecord() throws IOException {
        sink.onDecision(event);
    }

    @Benchmark
    public void metricsAlone() {
        long start = System.nanoTime();
        metrics.bundleCacheHit();
        metrics.decided("ws-bench", action, decision, System.nanoTime() - start);
    }

    @Benchmark
    public void offerAlone() {
        log.decided("ws-bench", action, decision, 0);
    }
}
