package dev.custody.engine;

import static dev.custody.engine.Fixtures.allow;
import static dev.custody.engine.Fixtures.deny;
import static dev.custody.engine.Fixtures.policy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.payload.Action;
import dev.custody.engine.policy.Policy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Issue 16's "same decision everywhere": a pathological policy set (regexes over the longest fields, string
 * building, comprehensions, rules that pass the cost limit on some actions) decided from 16 threads at once on a
 * 2-core machine gives, action for action, the decision a single thread gives, and no decision is a
 * {@code time_budget} denial. Under the first round's 100 ms wall-clock budget a loaded machine denied such
 * actions at random.
 */
class CostDeterminismTest {
    private static final int THREADS = 16;
    private static final String WORKSPACE = "00cd4ae6-310e-4566-99ae-1270f1ed5570";
    private static final String RANGE = "[" + "1,".repeat(98) + "1]";

    private static List<Policy> pathological() {
        return List.of(
                policy("regexes",
                        deny("hex-address", "withdrawal.destination_address.matches('^0x([0-9a-f]{2})*(dead|beef)$')"),
                        deny("alternation", "withdrawal.destination_address.matches('(a|b|c|d|e|f|0|1|2|3|4|5|6|7|8|9|x)*"
                                + "(abc|bcd|cde|def){2,8}z')"),
                        allow("any-hex", "withdrawal.destination_address.matches('^0x[0-9a-f]+$')")),
                policy("comprehensions",
                        // past the test's limit when the address is long and the amount large, never otherwise
                        deny("runaway", "withdrawal.value_usd > 5000.0 && " + RANGE + ".all(x, " + RANGE
                                + ".all(y, (withdrawal.destination_address + withdrawal.destination_address).size() > x))"),
                        deny("building", RANGE + ".map(x, withdrawal.destination_address + string(x)).size() < 0"),
                        allow("cheap", "withdrawal.value_usd < 100000.0")));
    }

    private static List<Action> actions() {
        List<Action> out = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            // addresses from 6 to 1,024 characters; every third one ends in `dead`
            String address = "0x" + "ab".repeat((i * 37) % 509 + 1) + (i % 3 == 0 ? "dead" : "cd");
            out.add(Fixtures.withdrawal(i % 2 == 0 ? 7400 : 1200).id("p-" + i)
                    .field("withdrawal.destination_address", address)
                    .build());
        }
        return out;
    }

    private static String record(Decision d) {
        return d.outcome() + " " + d.policyId() + "/" + d.ruleId() + " " + d.failure() + " " + d.error();
    }

    @Test
    void sixteenThreadsDecideExactlyAsOneDoes() throws Exception {
        PolicyEngine engine = PolicyEngine.builder(ws -> pathological()).costLimit(60_000).build();
        List<Action> actions = actions();
        List<String> alone = new ArrayList<>();
        // A service decides warm. The first decisions of a fresh JVM run cel-java's interpreter before the JIT has
        // compiled it, 10-20 times slower per cost unit (measured here: 192 ms, then 10-40 ms of CPU for the same
        // decision), which only the clock backstop bounds: warm up first, as Warmup does for a bundle.
        for (int pass = 0; pass < 3; pass++) {
            actions.forEach(a -> engine.evaluate(WORKSPACE, a));
        }
        for (Action a : actions) {
            Decision d0 = engine.evaluate(WORKSPACE, a);
            alone.add(record(d0));
        }
        // the set exercises every path: allowed, denied by a rule, denied for cost
        assertTrue(alone.stream().anyMatch(r -> r.startsWith("ALLOW")), String.join("\n", alone));
        assertTrue(alone.stream().anyMatch(r -> r.startsWith("DENY regexes/hex-address null")), String.join("\n", alone));
        assertTrue(alone.stream().anyMatch(r -> r.contains("COST_BUDGET")), String.join("\n", alone));
        assertTrue(alone.stream().noneMatch(r -> r.contains("TIME_BUDGET")), String.join("\n", alone));

        Map<String, String> differences = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int offset = t;
                running.add(pool.submit(() -> {
                    for (int i = 0; i < actions.size(); i++) {
                        int k = (i + offset * 7) % actions.size(); // each thread in its own order
                        Decision d = engine.evaluate(WORKSPACE, actions.get(k));
                        if (d.failure() == FailureKind.TIME_BUDGET || !Objects.equals(record(d), alone.get(k))) {
                            differences.put(actions.get(k).id() + " on thread " + offset, record(d) + " != " + alone.get(k));
                        }
                    }
                }));
            }
            for (Future<?> f : running) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(Map.of(), differences);
    }
}
