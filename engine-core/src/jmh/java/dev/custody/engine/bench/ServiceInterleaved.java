package dev.custody.engine.bench;

import dev.custody.engine.PolicyEngine;
import dev.custody.engine.log.DecisionLog;
import dev.custody.engine.log.JsonLinesDecisionSink;
import dev.custody.engine.metrics.EngineMetrics;
import dev.custody.engine.payload.Action;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A cross-check of {@link ServiceOverheadBenchmark} for a busy machine, as {@link Interleaved} is of
 * {@link EvaluateBenchmark}: the five engines (plain, decision log with a no-op listener, decision log into a
 * JSON-lines file, metrics, log and metrics) decide in short alternating rounds in one JVM, rotating which goes
 * first, so a burst of load from other processes hits all alike; prints the median and fastest round and the
 * ratios of medians to {@code plain}. The JSON-lines writers run on their own threads between and during every
 * round, so they weigh on the other engines' rounds too: their ratio here is a lower bound. For ratios, not
 * absolute figures.
 *
 * <pre>
 * ./mvnw -B -pl engine-core -am -Pbench -DskipTests verify -Dbench.main=dev.custody.engine.bench.ServiceInterleaved -Djmh.args=40
 * </pre>
 */
public final class ServiceInterleaved {
    private static volatile Object sink;

    private ServiceInterleaved() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        int perRound = 4096;
        Path dir = Files.createTempDirectory("custody-bench-log");
        List<DecisionLog> logs = new ArrayList<>();
        DecisionLog noop = DecisionLog.of(e -> { });
        DecisionLog jsonl = DecisionLog.of(JsonLinesDecisionSink.builder(dir.resolve("a.jsonl")).maxBytes(16L << 20)
                .keep(1).build());
        DecisionLog both = DecisionLog.of(JsonLinesDecisionSink.builder(dir.resolve("b.jsonl")).maxBytes(16L << 20)
                .keep(1).build());
        logs.addAll(List.of(noop, jsonl, both));
        List<String> names = List.of("plain", "logNoop", "logJsonl", "metrics", "logJsonlAndMetrics");
        List<PolicyEngine> engines = List.of(engine().build(), engine().observer(noop).build(),
                engine().observer(jsonl).build(),
                engine().observer(EngineMetrics.builder(new SimpleMeterRegistry()).build()).build(),
                engine().observer(both).observer(EngineMetrics.builder(new SimpleMeterRegistry())
                        .decisionLog(both).build()).build());
        int n = names.size();
        System.out.printf(Locale.ROOT, "%-14s %-19s %12s %12s %8s%n", "mix", "engine", "median ns/op", "min ns/op",
                "ratio");
        for (String mix : Workload.MIXES) {
            Action[] actions = Workload.mix(mix, 256, 42).toArray(new Action[0]);
            for (int w = 0; w < 30; w++) {
                for (PolicyEngine e : engines) {
                    time(e, actions, perRound);
                }
            }
            double[][] samples = new double[n][rounds];
            for (int r = 0; r < rounds; r++) {
                for (int k = 0; k < n; k++) {
                    int e = (r + k) % n;
                    samples[e][r] = time(engines.get(e), actions, perRound);
                }
            }
            double[] medians = new double[n];
            for (int e = 0; e < n; e++) {
                double[] s = samples[e].clone();
                Arrays.sort(s);
                medians[e] = s[s.length / 2];
                System.out.printf(Locale.ROOT, "%-14s %-19s %12.0f %12.0f %8.2f%n", mix, names.get(e), medians[e], s[0],
                        medians[e] / medians[0]);
            }
        }
        for (DecisionLog log : logs) {
            log.close(1000);
        }
        System.out.printf(Locale.ROOT, "decision logs (noop, jsonl, jsonl+metrics): dropped %d, %d, %d of %d, %d, %d%n",
                noop.dropped(), jsonl.dropped(), both.dropped(), noop.dropped() + noop.delivered(),
                jsonl.dropped() + jsonl.delivered(), both.dropped() + both.delivered());
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static PolicyEngine.Builder engine() {
        return PolicyEngine.builder(ws -> Realistic.policies()).timeBudget(Duration.ofMinutes(1));
    }

    private static double time(PolicyEngine engine, Action[] actions, int n) {
        long t0 = System.nanoTime();
        Object last = null;
        for (int i = 0; i < n; i++) {
            last = engine.evaluate("ws-bench", actions[i & (actions.length - 1)]);
        }
        long t1 = System.nanoTime();
        sink = last;
        return (t1 - t0) / (double) n;
    }
}
