package dev.custody.engine.bench;

import dev.custody.engine.PolicyEngine;
import dev.custody.engine.Decision;
import dev.custody.engine.FailureKind;
import dev.custody.engine.payload.Action;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issue 16's overload run: {@code PolicyEngine.evaluate} on the realistic bundle from many threads at once for a
 * while, each decision compared with the one a single thread gives for the same action. Prints the decisions
 * made, how many differed (spurious), how many were budget denials, and the longest wall time of one decision.
 *
 * <pre>
 * ./mvnw -B -pl engine-core -am -Pbench -DskipTests verify -Dbench.main=dev.custody.engine.bench.OverloadRun \
 *     -Djmh.args="64 10"            # or "64 10 heavy": adds rules with comprehensions and a regex
 * </pre>
 */
public final class OverloadRun {
    private OverloadRun() {}

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        boolean heavy = args.length > 2 && args[2].equals("heavy");
        List<dev.custody.engine.policy.Policy> policies = new java.util.ArrayList<>(Realistic.policies());
        if (heavy) {
            // rules the clock backstop watches: comprehensions over the address, a regex, a few thousand units each
            String range = "[" + "1,".repeat(24) + "1]";
            policies.add(0, new dev.custody.engine.policy.Policy("heavy", "heavy rules", null, Realistic.GROUP,
                    List.of(), List.of(
                            new dev.custody.engine.policy.Rule("scan", "withdrawal.create", range + ".exists(x, "
                                    + range + ".exists(y, withdrawal.destination_address.endsWith(string(x * y))))",
                                    "DENY", null, null),
                            new dev.custody.engine.policy.Rule("shape", "withdrawal.create",
                                    "!withdrawal.destination_address.matches('^0x[0-9a-f]{40}$')", "DENY", null, null)),
                    "active", null, null, null));
        }
        PolicyEngine engine = PolicyEngine.builder(workspace -> policies).build();
        String workspace = "00cd4ae6-310e-4566-99ae-1270f1ed5570";
        List<Action> actions = new java.util.ArrayList<>();
        for (String mix : Workload.MIXES) {
            actions.addAll(Workload.mix(mix, 2000, 7));
        }
        // warm up, then the single-threaded answer for every action
        for (int pass = 0; pass < (heavy ? 3 : 20); pass++) {
            actions.forEach(a -> engine.evaluate(workspace, a));
        }
        String[] alone = new String[actions.size()];
        for (int i = 0; i < alone.length; i++) {
            alone[i] = key(engine.evaluate(workspace, actions.get(i)));
        }
        AtomicLong decisions = new AtomicLong();
        AtomicLong spurious = new AtomicLong();
        AtomicLong budget = new AtomicLong();
        AtomicLong maxElapsed = new AtomicLong();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> running = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int offset = t * 997;
                running.add(pool.submit(() -> {
                    long n = 0;
                    for (int i = offset; System.nanoTime() < end; i++) {
                        int k = Math.floorMod(i, alone.length);
                        Decision d = engine.evaluate(workspace, actions.get(k));
                        n++;
                        if (d.failure() == FailureKind.TIME_BUDGET || d.failure() == FailureKind.COST_BUDGET) {
                            budget.incrementAndGet();
                        }
                        if (!Objects.equals(key(d), alone[k])) {
                            spurious.incrementAndGet();
                        }
                        maxElapsed.accumulateAndGet(d.elapsedNanos(), Math::max);
                    }
                    decisions.addAndGet(n);
                }));
            }
            for (Future<?> f : running) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        System.out.printf((heavy ? "realistic bundle + heavy rules: " : "realistic bundle: ") + "%d threads, %d s, %d distinct actions: %,d decisions, %d budget denials, %d differing from a"
                + " single thread (spurious), longest decision %.1f ms wall%n", threads, seconds, alone.length,
                decisions.get(), budget.get(), spurious.get(), maxElapsed.get() / 1e6);
    }

    private static String key(Decision d) {
        return d.outcome() + " " + d.policyId() + "/" + d.ruleId() + " " + d.failure();
    }
}
