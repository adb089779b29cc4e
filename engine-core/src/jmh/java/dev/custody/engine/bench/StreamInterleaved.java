package dev.custody.engine.bench;

import dev.custody.engine.payload.Action;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.Function;

/**
 * {@link StreamWorkload} on its three engines in alternating passes over the 20,000 actions, in one JVM, rotating
 * which engine goes first, each decision timed alone (two {@code System.nanoTime()} calls, about 30 ns here, in
 * every engine's figures alike): mean, p50, p99 and p99.9 of every engine over all measured passes, and the ratios
 * of the means. A burst of load from other processes hits the three alike, so the ratios hold on a noisy machine.
 *
 * <pre>
 * CP=engine-core/target/test-classes:engine-core/target/classes:engine-schema/target/classes:$(cat /tmp/cp.txt)
 * java -cp $CP -Dworkload.actions=/tmp/stream-20k.jsonl dev.custody.engine.bench.StreamInterleaved [PASSES]
 * </pre>
 * (default 30 passes per engine after 10 of warm-up.)
 */
public final class StreamInterleaved {
    private StreamInterleaved() {}

    public static void main(String[] args) throws Exception {
        int passes = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        int warmup = 10;
        StreamWorkload w = StreamWorkload.load();
        Action[] actions = w.actions;
        String[] names = {"engine", "rawCel", "handWritten"};
        @SuppressWarnings("unchecked")
        Function<Action, Object>[] engines = new Function[] {
            a -> w.engine.evaluate((Action) a, false).outcome(),
            a -> w.rawCel.decide((Action) a),
            a -> w.handWritten.decide((Action) a)
        };
        long[][] samples = new long[names.length][(int) ((long) passes * actions.length)];
        int sink = 0;
        for (int pass = 0; pass < warmup + passes; pass++) {
            for (int k = 0; k < names.length; k++) {
                int e = (pass + k) % names.length;
                int base = (pass - warmup) * actions.length;
                for (int i = 0; i < actions.length; i++) {
                    long t0 = System.nanoTime();
                    Object d = engines[e].apply(actions[i]);
                    long t = System.nanoTime() - t0;
                    sink += d.hashCode();
                    if (pass >= warmup) {
                        samples[e][base + i] = t;
                    }
                }
            }
        }
        double[] means = new double[names.length];
        System.out.printf(Locale.ROOT, "%d actions, %d measured passes per engine (%,d decisions each)%n", actions.length,
                passes, samples[0].length);
        System.out.printf(Locale.ROOT, "%-12s %10s %10s %10s %10s%n", "engine", "mean ns", "p50 ns", "p99 ns", "p99.9 ns");
        for (int e = 0; e < names.length; e++) {
            long[] s = samples[e];
            means[e] = Arrays.stream(s).average().orElse(0);
            Arrays.sort(s);
            System.out.printf(Locale.ROOT, "%-12s %10.0f %10d %10d %10d%n", names[e], means[e], s[s.length / 2],
                    s[(int) (s.length * 0.99)], s[(int) (s.length * 0.999)]);
        }
        System.out.printf(Locale.ROOT, "engine/handWritten %.2f, engine/rawCel %.2f, rawCel/handWritten %.2f%n",
                means[0] / means[2], means[0] / means[1], means[1] / means[2]);
        System.out.println("load average: " + java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim()
                + (sink == 42 ? "" : ""));
    }
}
