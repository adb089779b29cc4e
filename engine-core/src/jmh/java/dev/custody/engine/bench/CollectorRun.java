package dev.custody.engine.bench;

import dev.custody.engine.payload.Action;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * One JVM's figure for the collector matrix (engine-core/BENCHMARKS.md, "Every collector"): {@link StreamWorkload}
 * decided by ONE engine only, the engine ({@code PolicyEngine.evaluate}) or the hand-written Java, as a service
 * running only that engine would, so neither engine's warm-up shapes the other's compiled code. It warms up for
 * {@code WARMUP} seconds, then times {@code PASSES} passes over the 20,000 actions and prints one line: the
 * engine, the JVM, the collector, the median and fastest pass in ns per decision, and the collections seen.
 *
 * <pre>
 * java -cp $CP -XX:+UseG1GC -Dworkload.actions=/tmp/stream-20k.jsonl dev.custody.engine.bench.CollectorRun engine 4 15
 * </pre>
 * {@code engine-core/bench/collector-matrix.sh} runs it for every collector on Java 17 and 25, the two engines in
 * alternating JVMs.
 */
public final class CollectorRun {
    private static volatile Object sink;
    private static java.util.function.Function<Action, Object> direct;

    private CollectorRun() {}

    public static void main(String[] args) throws Exception {
        String which = args.length > 0 ? args[0] : "engine";
        double warmupSeconds = args.length > 1 ? Double.parseDouble(args[1]) : 4;
        int passes = args.length > 2 ? Integer.parseInt(args[2]) : 15;
        StreamWorkload w = StreamWorkload.load();
        if (Boolean.getBoolean("experiment.gcAfterLoad")) {
            System.gc();
        }
        if (Boolean.getBoolean("experiment.freshEngine")) {
            w = w.withFreshEngine();
        }
        Action[] actions = w.actions;
        int limit = Integer.getInteger("experiment.actions", actions.length);
        if (limit < actions.length) {
            actions = Arrays.copyOf(actions, limit);
        }
        boolean engine = switch (which) {
            case "engine" -> true;
            case "hand" -> false;
            case "evaluator" -> true;
            default -> throw new IllegalArgumentException("engine or hand, got " + which);
        };
        if (which.equals("evaluator")) {
            java.util.Map<String, dev.custody.engine.internal.bundle.PolicyBundle> bundles = new java.util.HashMap<>();
            dev.custody.engine.files.FilePolicySource src = dev.custody.engine.files.FilePolicySource.read(java.util.List.of(
                    java.nio.file.Path.of(System.getProperty("workload.policies", "examples/policies"))));
            dev.custody.engine.internal.eval.Evaluator ev = dev.custody.engine.internal.eval.Evaluator.create();
            dev.custody.engine.validate.PolicyValidator validator = new dev.custody.engine.validate.PolicyValidator(
                    dev.custody.engine.compile.RuleCompiler.create());
            for (Action a : actions) {
                bundles.computeIfAbsent(StreamWorkload.workspace(a), k -> {
                    try {
                        return dev.custody.engine.internal.bundle.PolicyBundle.compile(src.policies(k), validator);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
            }
            direct = a -> ev.evaluate(bundles.get(StreamWorkload.workspace(a)), a);
        }
        long warmEnd = System.nanoTime() + (long) (warmupSeconds * 1e9);
        while (System.nanoTime() < warmEnd) {
            pass(w, actions, engine);
        }
        String profile = System.getProperty("experiment.profile");
        Object profiler = null;
        if (profile != null) { // async-profiler on the class path: profile the measured passes only
            profiler = Class.forName("one.profiler.AsyncProfiler").getMethod("getInstance", String.class)
                    .invoke(null, System.getProperty("experiment.profilerLib"));
            profiler.getClass().getMethod("execute", String.class).invoke(profiler, "start,event=cpu,interval=500us");
        }
        long gcBefore = collections();
        double[] ns = new double[passes];
        java.lang.management.ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        double[] wall = new double[passes];
        for (int p = 0; p < passes; p++) {
            long c0 = cpu.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            pass(w, actions, engine);
            wall[p] = (System.nanoTime() - t0) / (double) actions.length;
            ns[p] = (cpu.getCurrentThreadCpuTime() - c0) / (double) actions.length;
        }
        Arrays.sort(wall);
        long gc = collections() - gcBefore;
        if (profiler != null) {
            profiler.getClass().getMethod("execute", String.class).invoke(profiler, "stop,file=" + profile + "," + System.getProperty("experiment.profileFormat", "flat=40,traces=0"));
        }
        long a0 = allocatedBytes();
        pass(w, actions, engine);
        double allocated = (allocatedBytes() - a0) / (double) actions.length;
        Arrays.sort(ns);
        String collectors = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName).collect(Collectors.joining("+"));
        System.out.printf(Locale.ROOT, "%s java=%s gc=%s median=%.0f min=%.0f wall=%.0f collections=%d bytes/decision=%.0f%n",
                which, Runtime.version().feature(), collectors, ns[passes / 2], ns[0], wall[passes / 2], gc, allocated);
    }

    private static void pass(StreamWorkload w, Action[] actions, boolean engine) {
        Object last = null;
        if (direct != null) {
            for (Action a : actions) {
                last = direct.apply(a);
            }
        } else if (engine) {
            for (Action a : actions) {
                last = w.engine.evaluate(a, false);
            }
        } else {
            for (Action a : actions) {
                last = w.handWritten.decide(a);
            }
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
