package dev.custody.engine.bench;

import dev.custody.engine.compile.CompiledCondition;
import dev.custody.engine.compile.ConditionResult;
import dev.custody.engine.compile.CostMeter;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.Payload;
import dev.custody.engine.check.PayloadResult;
import dev.custody.engine.check.PayloadValidator;
import dev.custody.engine.schema.TriggerAction;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Calibrates the cost limit (docs/design.md §3.15, §10.6): for each kind of work a rule can make the engine do, at its
 * worst (longest strings the payload limits allow, largest regex programs, nested comprehensions, wide compiled
 * conditions), how many nanoseconds of CPU time one cost unit takes on this machine, single-threaded, warmed up,
 * as the fastest of several runs (CPU time of the thread, so that other load on the machine does not count). The most expensive evaluation the default limit admits takes about
 * {@code limit x the slowest ns per unit}; the limit is chosen so that this is at most 50 ms.
 *
 * <pre>
 * ./mvnw -B -q package -DskipTests
 * java -cp cli/target/custody.jar engine-core/src/jmh/java/dev/custody/engine/bench/CostCalibration.java [RUNS]
 * </pre>
 */
public final class CostCalibration {
    /** Thread CPU time, not wall time: the figures must not depend on what else the machine is running. */
    private static final java.lang.management.ThreadMXBean CPU = java.lang.management.ManagementFactory.getThreadMXBean();

    private CostCalibration() {}

    public static void main(String[] args) {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        String address = "0x" + "ab".repeat(511); // 1,024 characters, the longest a string field may be
        String as = "a".repeat(1024);
        String range = "[" + "1,".repeat(98) + "1]"; // 99 elements: 99 + 99 x 99 iterations fit the bound
        Map<String, String[]> kinds = new LinkedHashMap<>();
        // name -> {condition, destination_address}
        kinds.put("nested comprehension, arithmetic", new String[] {
                range + ".all(x, " + range + ".all(y, x + y > 0))", address});
        kinds.put("comprehension building lists", new String[] {
                range + ".map(x, " + range + ").size() > 0", address});
        kinds.put("comprehension concatenating strings", new String[] {
                range + ".all(x, (withdrawal.destination_address + withdrawal.destination_address).size() > 0)", address});
        kinds.put("comprehension comparing long strings", new String[] {
                range + ".all(x, " + range + ".all(y, withdrawal.destination_address == withdrawal.destination_address))",
                address});
        kinds.put("regex, small program, long input", new String[] {
                "withdrawal.destination_address.matches('^0x([0-9a-f]{2})*z$')", address});
        kinds.put("regex, large program, long input", new String[] {
                "withdrawal.destination_address.matches('(a|b|c|d|e|f|0|1|2|3|4|5|6|7|8|9|x)*(abc|bcd|cde|def){1,20}z')",
                address});
        kinds.put("regex in a comprehension", new String[] {
                range + ".all(x, withdrawal.destination_address.matches('^(0x[0-9a-f]*)+$'))", address});
        kinds.put("contains, worst case for indexOf", new String[] {
                range + ".all(x, !withdrawal.destination_address.contains('" + "a".repeat(200) + "b'))", as});
        kinds.put("in over a list literal", new String[] {
                range + ".all(x, !(withdrawal.destination_address in ['" + "a".repeat(1023) + "b', '"
                        + "a".repeat(1023) + "c', '" + "a".repeat(1023) + "d']))", as});
        kinds.put("concat and size, short strings", new String[] {
                range + ".all(x, " + range + ".all(y, (withdrawal.destination_address + withdrawal.destination_address)"
                        + ".size() > x))", "0x" + "ab".repeat(10)});
        kinds.put("size, short strings", new String[] {
                range + ".all(x, " + range + ".all(y, withdrawal.destination_address.size() > x))", "0x" + "ab".repeat(10)});
        kinds.put("concat, short strings", new String[] {
                range + ".all(x, " + range + ".all(y, withdrawal.destination_address + withdrawal.destination_address != ''))",
                "0x" + "ab".repeat(10)});
        StringBuilder wide = new StringBuilder("withdrawal.value_usd > 0.0");
        for (int i = 0; i < 60; i++) {
            wide.append(" && withdrawal.value_usd > ").append(i).append(".0");
        }
        kinds.put("wide compiled condition", new String[] {wide.toString(), address});

        RuleCompiler compiler = RuleCompiler.create();
        double worst = 0;
        String worstKind = null;
        System.out.printf("%-40s %10s %12s %10s%n", "kind", "units", "best cpu ns", "ns/unit");
        for (Map.Entry<String, String[]> k : kinds.entrySet()) {
            CompiledCondition c = compiler.compile(TriggerAction.WITHDRAWAL_CREATE, k.getValue()[0]).condition()
                    .orElseThrow(() -> new IllegalStateException("does not compile: " + k.getKey()));
            Payload p = payload(k.getValue()[1]);
            long[] units = {0};
            Runnable once = () -> {
                CostMeter meter = CostMeter.unlimited();
                ConditionResult r = c.evaluate(p, dev.custody.engine.compile.ThreadClock.now() + 60_000_000_000L, meter);
                if (r instanceof ConditionResult.Failure f) {
                    throw new IllegalStateException(k.getKey() + ": " + f.message());
                }
                units[0] = meter.used();
            };
            // warm up for half a second (so the JIT has compiled what runs), counting how long one run takes
            long warmStart = CPU.getCurrentThreadCpuTime();
            long warmRuns = 0;
            long warmEnd = System.nanoTime() + 500_000_000L;
            while (System.nanoTime() < warmEnd) {
                once.run();
                warmRuns++;
            }
            long perRun = Math.max(1, (CPU.getCurrentThreadCpuTime() - warmStart) / warmRuns);
            // then time batches of at least 5 ms of CPU each (the CPU clock is coarse next to a fast rule)
            int batch = (int) Math.max(1, 5_000_000L / perRun);
            long best = Long.MAX_VALUE;
            for (int sample = 0; sample < runs; sample++) {
                long t0 = CPU.getCurrentThreadCpuTime();
                for (int i = 0; i < batch; i++) {
                    once.run();
                }
                best = Math.min(best, (CPU.getCurrentThreadCpuTime() - t0) / batch);
            }
            double perUnit = (double) best / units[0];
            if (perUnit > worst) {
                worst = perUnit;
                worstKind = k.getKey();
            }
            System.out.printf("%-40s %10d %12d %10.2f%s%n", k.getKey(), units[0], best, perUnit, c.compiled() ? " (compiled)" : "");
        }
        // what the realistic bundle costs: every withdrawal rule of it (as when no rule matches) on each action
        long most = 0;
        long total = 0;
        java.util.List<Action> sample = Workload.mix("mostlyNoMatch", 256, 42);
        for (Action a : sample) {
            Payload p = ((PayloadResult.Valid) PayloadValidator.validate(a, a.at())).payload();
            CostMeter meter = CostMeter.unlimited();
            for (dev.custody.engine.policy.Policy policy : Realistic.policies()) {
                for (dev.custody.engine.policy.Rule rule : policy.rules()) {
                    if (rule.triggerAction().equals(TriggerAction.WITHDRAWAL_CREATE.wireName())) {
                        compiler.compile(TriggerAction.WITHDRAWAL_CREATE, rule.condition()).condition().orElseThrow()
                                .evaluate(p, dev.custody.engine.compile.ThreadClock.now() + 60_000_000_000L, meter);
                    }
                }
            }
            most = Math.max(most, meter.used());
            total += meter.used();
        }
        System.out.printf("%nthe realistic bundle, every withdrawal rule evaluated: %d units per decision on average,"
                + " %d at most (%d actions)%n", total / sample.size(), most, sample.size());
        long limit = CostMeter.DEFAULT_LIMIT;
        System.out.printf("%nslowest: %.2f ns/unit (%s); the default limit of %,d units admits at most %.1f ms of it%n",
                worst, worstKind, limit, worst * limit / 1e6);
        System.out.printf("the largest limit that keeps that under 50 ms: %,d units%n", (long) (50e6 / worst));
    }

    private static Payload payload(String address) {
        Action a = Action.builder(TriggerAction.WITHDRAWAL_CREATE)
                .id("calibration")
                .walletId("92e0490b-f666-47c5-8c1a-dd0688c6fc87")
                .at(Instant.parse("2026-11-03T14:05:00Z"))
                .field("principal.user_email", "dara@example.com")
                .field("principal.role", "signer")
                .field("withdrawal.amount", 1.5)
                .field("withdrawal.value_usd", 7400.0)
                .field("withdrawal.asset_symbol", "ETH")
                .field("withdrawal.asset_is_native", true)
                .field("withdrawal.destination_address", address)
                .field("withdrawal.network_code", "ETHEREUM_MAINNET")
                .field("withdrawal.is_whitelisted", false)
                .field("withdrawal.address_age_sec", 0)
                .build();
        PayloadResult r = PayloadValidator.validate(a, a.at());
        if (r instanceof PayloadResult.Invalid invalid) {
            throw new IllegalStateException(invalid.error());
        }
        return ((PayloadResult.Valid) r).payload();
    }
}
