package dev.custody.engine.coverage;

import static dev.custody.engine.Fixtures.allow;
import static dev.custody.engine.Fixtures.deny;
import static dev.custody.engine.Fixtures.policy;
import static dev.custody.engine.Fixtures.withdrawal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.PolicyEngine;
import dev.custody.engine.PolicySource;
import dev.custody.engine.compile.ConditionResult;
import dev.custody.engine.coverage.CoverageReport.BranchCoverage;
import dev.custody.engine.coverage.CoverageReport.RuleCoverage;
import dev.custody.engine.Decision;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.Payload;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.TriggerAction;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Coverage counts what the evaluator did, through the one decision path: rule counts as the evaluator ran the
 * rules (a true DENY rule stops it), branch counts as cel-java evaluated the sub-expressions (a false left
 * operand of {@code &&} leaves the right one uncounted), positions inside the condition, and never a changed
 * decision.
 */
class CoverageRecorderTest {
    private static final Duration PATIENT = Duration.ofSeconds(30);
    private static final String WS = "ws";

    private static final Policy POLICY = policy("limits",
            deny("big-untrusted", "withdrawal.value_usd > 1000.0 && !withdrawal.is_whitelisted"),
            deny("night", "context.hour < 6 ||\n  context.hour >= 22"),
            allow("small", "withdrawal.value_usd <= 100.0 ? principal.role == 'signer' : false"));

    private static PolicyEngine engine(PolicySource source, EvaluationObserver observer) {
        return PolicyEngine.builder(source).timeBudget(PATIENT).observer(new RuleObserver(observer)).build();
    }

    private static RuleCoverage rule(CoverageReport r, String id) {
        return r.rules().stream().filter(x -> x.ruleId().equals(id)).findFirst().orElseThrow();
    }

    private static List<String> branches(CoverageReport r, String ruleId) {
        List<String> out = new ArrayList<>();
        for (BranchCoverage b : r.branches()) {
            if (b.ruleId().equals(ruleId)) {
                out.add(b.line() + ":" + b.column() + " " + b.text() + " T" + b.trueCount() + " F" + b.falseCount());
            }
        }
        return out;
    }

    @Test
    void countsRulesAndBranchesExactly() {
        CoverageRecorder recorder = new CoverageRecorder();
        PolicyEngine engine = engine(ws -> List.of(POLICY), recorder);
        // 50 $ at 14h by a signer: both DENY rules false, `small` true -> ALLOW
        assertEquals("ALLOW", engine.evaluate(WS, withdrawal(50).build()).outcome().name());
        // 5000 $ to an address not whitelisted: `big-untrusted` true, evaluation stops -> DENY
        assertEquals("DENY", engine.evaluate(WS, withdrawal(5000).build()).outcome().name());
        // 500 $: both DENY rules false, `small` takes the false arm -> NO_MATCH
        assertEquals("NO_MATCH", engine.evaluate(WS, withdrawal(500).build()).outcome().name());

        CoverageReport r = recorder.report();
        assertEquals(List.of("big-untrusted", "night", "small"), r.rules().stream().map(RuleCoverage::ruleId).toList());
        assertEquals(new RuleCoverage("limits", "big-untrusted", TriggerAction.WITHDRAWAL_CREATE, Effect.DENY,
                "withdrawal.value_usd > 1000.0 && !withdrawal.is_whitelisted", 3, 1, 2, 0), rule(r, "big-untrusted"));
        assertEquals(new RuleCoverage("limits", "night", TriggerAction.WITHDRAWAL_CREATE, Effect.DENY,
                "context.hour < 6 ||\n  context.hour >= 22", 2, 0, 2, 0), rule(r, "night"));
        assertEquals(2, rule(r, "small").evaluated());
        assertEquals(1, rule(r, "small").trueCount());
        assertEquals(1, rule(r, "small").falseCount());

        // the right operand of `&&` ran only when the left was true (once); `!x` and `x` agree, inverted
        assertEquals(List.of(
                "1:1 withdrawal.value_usd > 1000.0 T1 F2",
                "1:34 !withdrawal.is_whitelisted T1 F0",
                "1:35 withdrawal.is_whitelisted T0 F1"), branches(r, "big-untrusted"));
        // a branch on the second line of the condition is at line 2
        assertEquals(List.of(
                "1:1 context.hour < 6 T0 F2",
                "2:3 context.hour >= 22 T0 F2"), branches(r, "night"));
        // a ?: arm that is a boolean is a branch; the one not taken is not counted
        assertEquals(List.of(
                "1:1 withdrawal.value_usd <= 100.0 T1 F1",
                "1:33 principal.role == 'signer' T1 F0",
                "1:62 false T0 F1"), branches(r, "small"));
        // 8 branches, 16 outcomes; seen: 2 + 1 + 1 (big-untrusted) + 1 + 1 (night) + 2 + 1 + 1 (small) = 10
        assertEquals(16, r.outcomes());
        assertEquals(10, r.outcomesSeen());
        assertEquals(62.5, r.percent(), 1e-9);
        assertFalse(r.below(new BigDecimal("62.5")));
        assertTrue(r.below(new BigDecimal("62.51")));
    }

    @Test
    void aLeftOperandThatIsFalseLeavesTheRightOneAtZero() {
        CoverageRecorder recorder = new CoverageRecorder();
        PolicyEngine engine = engine(ws -> List.of(policy("p",
                deny("d", "withdrawal.value_usd > 1000.0 && withdrawal.network_code == 'BTC'"))), recorder);
        for (int i = 0; i < 4; i++) {
            engine.evaluate(WS, withdrawal(10).build());
        }
        assertEquals(List.of(
                "1:1 withdrawal.value_usd > 1000.0 T0 F4",
                "1:34 withdrawal.network_code == 'BTC' T0 F0"), branches(recorder.report(), "d"));
    }

    @Test
    void rulesThatAreNeverEvaluatedAreListedWithZeroes() {
        CoverageRecorder recorder = new CoverageRecorder();
        PolicyEngine engine = engine(ws -> List.of(policy("p", deny("first", "true"),
                allow("never", "withdrawal.value_usd < 5.0 || principal.role == 'admin'"))), recorder);
        engine.evaluate(WS, withdrawal(1).build());
        CoverageReport r = recorder.report();
        assertEquals(new RuleCoverage("p", "first", TriggerAction.WITHDRAWAL_CREATE, Effect.DENY, "true", 1, 1, 0, 0),
                rule(r, "first"));
        assertEquals(0, rule(r, "never").evaluated());
        assertEquals(List.of("1:1 withdrawal.value_usd < 5.0 T0 F0", "1:31 principal.role == 'admin' T0 F0"),
                branches(r, "never"));
        assertEquals(0.0, r.percent(), 1e-9);
    }

    @Test
    void anErrorIsCountedAsSuchAndTheOperandsThatRanStillCount() {
        CoverageRecorder recorder = new CoverageRecorder();
        // `wallet.outflow_1h` is absent from this payload: the left operand errs, cel-java still runs the right
        PolicyEngine engine = engine(ws -> List.of(policy("p",
                deny("d", "wallet.outflow_1h > 5.0 || withdrawal.value_usd > 100.0"))), recorder);
        Decision d = engine.evaluate(WS, withdrawal(50).build());
        assertTrue(d.failClosed());
        CoverageReport r = recorder.report();
        assertEquals(1, rule(r, "d").errorCount());
        assertEquals(List.of("1:1 wallet.outflow_1h > 5.0 T0 F0", "1:28 withdrawal.value_usd > 100.0 T0 F1"),
                branches(r, "d"));
    }

    @Test
    void anObserverNeverChangesADecision() {
        PolicySource source = ws -> List.of(POLICY);
        PolicyEngine plain = PolicyEngine.builder(source).timeBudget(PATIENT).build();
        AtomicInteger told = new AtomicInteger();
        PolicyEngine throwing = engine(source, new EvaluationObserver() {
            @Override
            public void rulesLoaded(List<ObservedRule> rules) {
                throw new IllegalStateException("boom");
            }

            @Override
            public void ruleEvaluated(ObservedRule rule, Payload payload, ConditionResult result) {
                told.incrementAndGet();
                throw new StackOverflowError();
            }
        });
        for (double usd : new double[] {1, 50, 500, 5000}) {
            Action a = withdrawal(usd).build();
            Decision expected = plain.evaluate(WS, a, true);
            Decision actual = throwing.evaluate(WS, a, true);
            assertEquals(expected.outcome(), actual.outcome());
            assertEquals(expected.ruleId(), actual.ruleId());
            assertEquals(expected.failClosed(), actual.failClosed());
        }
        assertEquals(4, told.get(), "the observer was told, and its failures dropped");
    }

    @Test
    void theWarmUpRunIsNotCounted() {
        CoverageRecorder recorder = new CoverageRecorder();
        PolicyEngine engine = engine(ws -> List.of(POLICY), recorder);
        engine.preload(withdrawal(1).build());
        CoverageReport r = recorder.report();
        assertEquals(3, r.rules().size());
        assertTrue(r.rules().stream().allMatch(x -> x.evaluated() == 0));
        assertTrue(r.branches().stream().allMatch(b -> b.trueCount() == 0 && b.falseCount() == 0));
    }

    @Test
    void thresholdsCompareExactly() {
        CoverageReport none = new CoverageReport(List.of(), List.of());
        assertEquals(100.0, none.percent());
        assertFalse(none.below(new BigDecimal("100")));
        BranchCoverage seenOnce = new BranchCoverage("p", "r", TriggerAction.WITHDRAWAL_CREATE, 1, 1, 0, 1, "x", 1, 0);
        BranchCoverage never = new BranchCoverage("p", "r", TriggerAction.WITHDRAWAL_CREATE, 1, 5, 4, 1, "y", 0, 0);
        CoverageReport third = new CoverageReport(List.of(), List.of(seenOnce, never, never));
        // 1 of 6 outcomes: 16.666… %
        assertFalse(third.below(new BigDecimal("16.66")));
        assertTrue(third.below(new BigDecimal("16.67")));
    }
}
