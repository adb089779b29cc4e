package dev.custody.engine.metrics;

import static dev.custody.engine.Fixtures.allow;
import static dev.custody.engine.Fixtures.deny;
import static dev.custody.engine.Fixtures.policy;
import static dev.custody.engine.Fixtures.withdrawal;

import dev.custody.engine.PolicyEngine;
import dev.custody.engine.Decision;
import java.util.List;

/** Run by {@link OptionalMicrometerTest} in a class loader without Micrometer. */
public final class WithoutMicrometer {
    private WithoutMicrometer() {}

    /** Decides two withdrawals with an engine built without metrics: {@code "DENY big, ALLOW small"}. */
    public static String decide() {
        PolicyEngine engine = PolicyEngine.builder(ws -> List.of(policy("limits",
                deny("big", "withdrawal.value_usd > 10000.0"), allow("small", "withdrawal.value_usd < 100.0"))))
                .build();
        Decision big = engine.evaluate("ws-1", withdrawal(20000).build());
        Decision small = engine.evaluate("ws-1", withdrawal(50).build());
        return big.outcome() + " " + big.ruleId() + ", " + small.outcome() + " " + small.ruleId();
    }

    /** Touches the metrics binder: fails to link without Micrometer. */
    public static Object bindMetrics() {
        return EngineMetrics.builder(null);
    }
}
