package dev.custody.engine.bench;

import dev.custody.engine.PolicyEngine;
import dev.custody.engine.payload.Action;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One JVM's figure for the collector matrix (engine-core/BENCHMARKS.md, "Every collector, Java 17 and 25"): one
 * workload decided by ONE engine only, as a service running only that engine would, so that neither engine's
 * warm-up shapes the other's compiled code:
 * <ul>
 *   <li>workload {@code realistic}: {@link Realistic}'s bundle (8 policies, 21 rules) over the three mixes of
 *       {@link Workload} (256 actions each, 768 in all), the workload of {@code EvaluateBenchmark} and
 *       {@code Interleaved}; engine {@code engine} is {@code PolicyEngine.evaluate} (the bundle cache, the payload
 *       check, the budgets, the attribution), {@code hand} is {@link HandWrittenEngine};
 *   <li>workload {@code stream}: {@link StreamWorkload} (the example policies over 20,000 pre-read actions of the
 *       examples' generator), {@code PolicyEngine.evaluate} against its hand-written Java over the action's maps.
 * </ul>
 * It warms up for {@code WARMUP} seconds, then times {@code PASSES} passes over the actions and prints one line: the
 * engine, the Java, the collector, the median and fastest pass in <b>thread CPU time</b> per decision (the machine
 * is shared: waiting for a core is not the engine's), the median pass in wall time, the collections during the
 * passes, and the bytes allocated per decision.
 *
 * <pre>
 * java -cp $CP -XX:+UseG1GC dev.custody.engine.bench.CollectorRun realistic engine 4 200
 * java -cp $CP -XX:+UseG1GC -Dworkload.actions=/tmp/stream-20k.jsonl dev.custody.engine.bench.CollectorRun stream hand 4 10
 * </pre>
 * {@code engine-core/bench/collector-matrix.sh} runs it for every collector on Java 17 and 25, the two engines in
 * alternating JVMs. With {@code -Dprofile=FILE -DprofilerLib=.../libasyncProfiler.so} and async-profiler's jar on
 * the class path it profiles the measured passes only (CPU, flat and traces).
 */
public final class CollectorRun {
    private static volatile Object sink;

    private CollectorRun() {}

    public static void main(String[] args) throws Exception {
        String workload = args.length > 0 ? args[0] : "realistic";
        String which = args.length > 1 ? args[1] : "engine";
        double warmupSeconds = args.length > 2 ? Double.parseDouble(args[2]) : 4;
        int passes = args.length > 3 ? Integer.parseInt(args[3]) : 100;
        if (!List.of("engine", "hand", "both").contains(which)) {
            throw new IllegalArgumentException("engine, hand or both, got " + which);
        }
        Action[] actions;
        Function<Action, Object> engine;
        Function<Action, Object> hand;
        switch (workload) {
            case "realistic" -> {
                List<Action> all = new ArrayList<>();
                for (String mix : Workload.MIXES) {
                    all.addAll(Workload.mix(mix, 256, 42));
                }
                actions = all.toArray(new Action[0]);
                PolicyEngine e = PolicyEngine.builder(ws -> Realistic.policies()).build();
                engine = a -> e.evaluate(a, false);
                HandWrittenEngine h = new HandWrittenEngine();
                hand = h::decide;
            }
            case "stream" -> {
                StreamWorkload w = StreamWorkload.load();
                actions = w.actions;
                engine = a -> w.engine.evaluate(a, false);
                hand = w.handWritten::decide;
            }
            default -> throw new IllegalArgumentException("realistic or stream, got " + workload);
        }
        if (which.equals("both")) {
            both(workload, engine, hand, actions, warmupSeconds, passes);
            return;
        }
        Function<Action, Object> decide = which.equals("engine") ? engine : hand;
        long warmEnd = System.nanoTime() + (long) (warmupSeconds * 1e9);
        while (System.nanoTime() < warmEnd) {
            pass(decide, actions);
        }
        String profile = System.getProperty("profile");
        Object profiler = null;
        if (profile != null) { // async-profiler on the class path: profile the measured passes only
            profiler = Class.forName("one.profiler.AsyncProfiler").getMethod("getInstance", String.class)
                    .invoke(null, System.getProperty("profilerLib"));
            profiler.getClass().getMethod("execute", String.class).invoke(profiler, "start,event=cpu,interval=" + System.getProperty("profileInterval", "500us") + "");
        }
        long gcBefore = collections();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double[] cpu = new double[passes];
        double[] wall = new double[passes];
        for (int p = 0; p < passes; p++) {
            long c0 = threads.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            pass(decide, actions);
            wall[p] = (System.nanoTime() - t0) / (double) actions.length;
            cpu[p] = (threads.getCurrentThreadCpuTime() - c0) / (double) actions.length;
        }
        long gc = collections() - gcBefore;
        if (Boolean.getBoolean("passes")) { // every pass, in order: to see a JVM change mode while it runs
            StringBuilder b = new StringBuilder("passes (CPU ns per decision):");
            for (double c : cpu) {
                b.append(' ').append(Math.round(c));
            }
            System.out.println(b);
        }
        if (profiler != null) {
            profiler.getClass().getMethod("execute", String.class).invoke(profiler, "stop,file=" + profile
                    + ",flat=30,traces=20");
        }
        long a0 = allocatedBytes();
        pass(decide, actions);
        double allocated = (allocatedBytes() - a0) / (double) actions.length;
        Arrays.sort(cpu);
        Arrays.sort(wall);
        String collectors = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName).collect(Collectors.joining("+"));
        System.out.printf(Locale.ROOT, "%s %s java=%s gc=%s median=%.0f min=%.0f wall=%.0f collections=%d"
                + " bytes/decision=%.0f%n", workload, which, Runtime.version().feature(), collectors.replace(' ', '_'),
                cpu[passes / 2], cpu[0], wall[passes / 2], gc, allocated);
    }

    /**
     * Both engines in this one JVM, in alternating passes (which goes first alternates too), so that whatever the
     * machine does to one pass it does to its neighbour: the ratio per JVM is the engine's median pass over the
     * hand-written Java's, both in thread CPU time.
     */
    private static void both(String workload, Function<Action, Object> engine, Function<Action, Object> hand,
            Action[] actions, double warmupSeconds, int passes) {
        long warmEnd = System.nanoTime() + (long) (warmupSeconds * 1e9);
        while (System.nanoTime() < warmEnd) {
            pass(engine, actions);
            pass(hand, actions);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double[][] cpu = new double[2][passes];
        for (int p = 0; p < passes; p++) {
            for (int k = 0; k < 2; k++) {
                int e = (p + k) % 2;
                long c0 = threads.getCurrentThreadCpuTime();
                pass(e == 0 ? engine : hand, actions);
                cpu[e][p] = (threads.getCurrentThreadCpuTime() - c0) / (double) actions.length;
            }
        }
        Arrays.sort(cpu[0]);
        Arrays.sort(cpu[1]);
        String collectors = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName).collect(Collectors.joining("+"));
        System.out.printf(Locale.ROOT, "%s both java=%s gc=%s engine=%.0f hand=%.0f ratio=%.2f%n", workload,
                Runtime.version().feature(), collectors.replace(' ', '_'), cpu[0][passes / 2], cpu[1][passes / 2],
                cpu[0][passes / 2] / cpu[1][passes / 2]);
    }

    private static void pass(Function<Action, Object> decide, Action[] actions) {
        Object last = null;
        for (Action a : actions) {
            last = decide.apply(a);
        }
        sink = last;
    }

    /** This thread's allocated bytes, through the platform MBean server (this module does not read jdk.management). */
    private static long allocatedBytes() throws Exception {
        return (Long) ManagementFactory.getPlatformMBeanServer().invoke(
                new javax.management.ObjectName("java.lang:type=Threading"), "getThreadAllocatedBytes",
                new Object[] {Thread.currentThread().getId()}, new String[] {"long"});
    }

    private static long collections() {
        long n = 0;
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(0, b.getCollectionCount());
        }
        return n;
    }
}
