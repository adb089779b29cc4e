package dev.custody.engine.bench;

import dev.custody.engine.Decision;
import dev.custody.engine.payload.Action;
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
 * The realistic workload ({@link StreamWorkload}: the example policies, 20,000 distinct actions of both kinds) on
 * the three engines in one run: each invocation decides the next action of the stream, round-robin. Sample-time
 * mode, so JMH reports the mean and the percentiles (p0.99 is the p99 of issue 11's target) of single decisions,
 * each timed with two {@code System.nanoTime()} calls (about 30 ns here, in every engine's figure alike).
 *
 * <pre>
 * ./mvnw -B -pl engine-core -am -Pbench -DskipTests verify \
 *     -Djmh.args="StreamWorkloadBenchmark -f 1 -wi 3 -i 5 -w 2s -r 2s -jvmArgs -Dworkload.actions=/tmp/stream-20k.jsonl"
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class StreamWorkloadBenchmark {
    @Param({"engine", "rawCel", "handWritten"})
    public String engine;

    private StreamWorkload workload;
    private Action[] actions;
    private int next;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        workload = StreamWorkload.load();
        actions = workload.actions;
    }

    private Action nextAction() {
        Action a = actions[next];
        next = next + 1 == actions.length ? 0 : next + 1;
        return a;
    }

    @Benchmark
    public Object decide() {
        Action a = nextAction();
        return switch (engine) {
            case "engine" -> {
                Decision d = workload.engine.evaluate(a, false);
                yield d.outcome();
            }
            case "rawCel" -> workload.rawCel.decide(a);
            default -> workload.handWritten.decide(a);
        };
    }
}
