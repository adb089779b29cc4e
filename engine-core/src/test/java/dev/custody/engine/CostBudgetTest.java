package dev.custody.engine;

import static dev.custody.engine.Fixtures.allow;
import static dev.custody.engine.Fixtures.bundle;
import static dev.custody.engine.Fixtures.deny;
import static dev.custody.engine.Fixtures.policy;
import static dev.custody.engine.Fixtures.withdrawal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.compile.CostMeter;
import dev.custody.engine.internal.bundle.PolicyBundle;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The decision's cost budget (docs/design.md §3.15): one meter for every rule of a decision, failure cost_budget. */
class CostBudgetTest {
    private static Evaluator limit(long units) {
        return Evaluator.builder().timeBudget(Duration.ofSeconds(30)).costLimit(units).build();
    }

    @Test
    void aDecisionPastTheLimitIsAFailClosedDenyAttributedToTheRuleThatPassedIt() {
        // each rule costs 4 units; together 8
        PolicyBundle b = bundle(policy("p", deny("d", "withdrawal.value_usd > 1000000.0"),
                allow("a", "withdrawal.value_usd > 1000.0")));
        Decision d = limit(6).evaluate(b, withdrawal(7400).build());
        assertEquals(Outcome.DENY, d.outcome());
        assertTrue(d.failClosed());
        assertEquals(FailureKind.COST_BUDGET, d.failure());
        assertEquals("a", d.ruleId());
        assertEquals("p", d.policyId());
        assertEquals("cost budget of 6 units exceeded in rule `a`", d.error());
        // with room for both, the ALLOW rule decides
        Decision ok = limit(8).evaluate(b, withdrawal(7400).build());
        assertEquals(Outcome.ALLOW, ok.outcome());
        assertNull(ok.failure());
    }

    @Test
    void aDenyRuleFoundTrueBeforeTheLimitStillDecides() {
        PolicyBundle b = bundle(policy("p", deny("d", "withdrawal.value_usd > 1000.0"),
                deny("expensive", "[1, 2, 3, 4, 5, 6, 7, 8, 9].all(i, i > 0)")));
        Decision d = limit(5).evaluate(b, withdrawal(7400).build());
        assertEquals(Outcome.DENY, d.outcome());
        assertFalse(d.failClosed());
        assertEquals("d", d.ruleId());
    }

    @Test
    void theCostIsTheSameOnEveryRunSoTheDecisionIs() {
        // a rule that costs more than the limit, every time, whatever the machine is doing
        String range = "[" + "1,".repeat(98) + "1]"; // 99 elements: 99 + 99 x 99 = 9,900 iterations, under the bound
        PolicyBundle b = bundle(policy("p", deny("slow", range + ".all(x, " + range + ".all(y, x + y > 0))"),
                allow("a", "true")));
        Evaluator e = limit(20_000);
        for (int i = 0; i < 5; i++) {
            Decision d = e.evaluate(b, withdrawal(1).build());
            assertEquals(FailureKind.COST_BUDGET, d.failure());
            assertEquals("cost budget of 20000 units exceeded in rule `slow`", d.error());
        }
        // under the default limit the same rule runs to its end (well under the limit) and, being true, denies
        Decision admitted = Evaluator.builder().timeBudget(Duration.ofSeconds(30)).build()
                .evaluate(b, withdrawal(1).build());
        assertEquals(Outcome.DENY, admitted.outcome());
        assertFalse(admitted.failClosed(), admitted.error());
        assertEquals("slow", admitted.ruleId());
        assertEquals(CostMeter.DEFAULT_LIMIT, Evaluator.create().costLimit());
        assertEquals(Duration.ofSeconds(1), Evaluator.create().timeBudget());
    }
}
