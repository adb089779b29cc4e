package dev.custody.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.Decision;
import dev.custody.engine.FailureKind;
import dev.custody.engine.Outcome;
import dev.custody.engine.schema.TriggerAction;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The claims the reals-based encoding got wrong (issue 23), each pinned: the exact findings, and the action the
 * solver finds, replayed through the engine. Numbers are cel-java's: an int meets a double as the double nearest
 * to it, double arithmetic rounds, int arithmetic overflows at 64 bits, {@code -0.0} is below int {@code 0}.
 */
class ExactNumbersTest {
    private static final long TWO_53 = 1L << 53;

    @TempDir
    Path dir;

    private PolicySet set(String name, String... rules) {
        PolicySet set = Fixtures.yaml(dir, name, Fixtures.policy("p", rules));
        assertEquals(List.of(), set.problems());
        return set;
    }

    private static List<String> findings(AnalysisReport report, PolicySet set) {
        List<String> got = new ArrayList<>();
        for (AnalysisFinding f : report.findings()) {
            StringBuilder s = new StringBuilder(f.kind().wireName() + " " + f.rule().ruleId());
            f.related().forEach(r -> s.append(' ').append(r.ruleId()));
            got.add(s.toString());
            FindingKindsTest.checkWitness(set, f);
        }
        return got;
    }

    /** The action the solver finds on which rule {@code index} of the set is true. */
    private static Map<String, Object> trueOn(PolicySet set, int index) {
        AnalyzedRule r = set.rules().get(index);
        try (Formulas f = new Formulas(r.action(), List.of(set), PolicyAnalyzer.DEFAULT_TIMEOUT_MS)) {
            Formulas.Answer a = f.check(f.rule(r).isTrue());
            assertTrue(a.sat(), a.status().toString());
            return f.space.witness(a.model(), "true-" + r.ruleId());
        }
    }

    private static Object field(Map<String, Object> action, String section, String name) {
        return ((Map<?, ?>) action.get(section)).get(name);
    }

    @Test
    void anIntConstantAboveTwoTo53MeetsTheDoubleNearestIt() {
        PolicySet set = set("range", "r1", "DENY",
                "withdrawal.amount >= 9007199254740993 && withdrawal.amount <= 9007199254740992");
        assertEquals(List.of(), findings(Fixtures.analyze(set), set));
        Map<String, Object> w = trueOn(set, 0);
        // the only double that satisfies it: 2^53, which 2^53+1 rounds to
        assertEquals((double) TWO_53, field(w, "withdrawal", "amount"));
        Decision d = Fixtures.decide(set, w);
        assertEquals(Outcome.DENY, d.outcome());
        assertEquals("r1", d.ruleId());
    }

    @Test
    void overriddenShadowedDuplicateAndAlwaysTrueAboveTwoTo53() {
        PolicySet overridden = set("overridden",
                "big", "DENY", "withdrawal.value_usd > 9007199254740992",
                "bigger", "ALLOW", "withdrawal.value_usd >= 9007199254740993");
        assertEquals(List.of(), findings(Fixtures.analyze(overridden), overridden));
        // the actions on which `bigger` is true and `big` is not: value_usd = 2^53 alone
        Map<String, Object> w = trueOn(set("overridden-gap", "gap", "DENY",
                "withdrawal.value_usd >= 9007199254740993 && !(withdrawal.value_usd > 9007199254740992)"), 0);
        assertEquals((double) TWO_53, field(w, "withdrawal", "value_usd"));
        Decision d = Fixtures.decide(overridden, w);
        assertEquals(Outcome.ALLOW, d.outcome());
        assertEquals("bigger", d.ruleId());

        PolicySet shadowed = set("shadowed",
                "big", "DENY", "withdrawal.value_usd > 9007199254740992",
                "bigger", "DENY", "withdrawal.value_usd >= 9007199254740993");
        assertEquals(List.of(), findings(Fixtures.analyze(shadowed), shadowed));

        // 2^62 as an int and as a double: at 2^62+1 the int is above one and (rounded) equal to the other
        PolicySet duplicate = set("duplicate",
                "c1", "DENY", "wallet.withdrawal_count_1h <= 4611686018427387904",
                "c2", "DENY", "wallet.withdrawal_count_1h <= 4611686018427387904.0");
        assertEquals(List.of(), findings(Fixtures.analyze(duplicate), duplicate));
        Map<String, Object> c = trueOn(set("duplicate-c2", "c2", "DENY",
                "wallet.withdrawal_count_1h <= 4611686018427387904.0 && wallet.withdrawal_count_1h > 4611686018427387904"
                        + " && wallet.withdrawal_count_1h <= 4611686018427387905"),
                0);
        assertEquals((1L << 62) + 1, field(c, "wallet", "withdrawal_count_1h"));

        // the largest int rounds to 2^63: not below it, but never above it
        PolicySet always = set("always",
                "below", "DENY", "wallet.withdrawal_count_1h < 9223372036854775807.0",
                "at-most", "DENY", "wallet.withdrawal_count_1h <= 9223372036854775807.0");
        assertEquals(List.of("always_true at-most"), findings(Fixtures.analyze(always), always));
    }

    @Test
    void negativeZeroFromArithmeticAndLiteralsIsBelowIntZero() {
        // x * -1.0 is -0.0 at x = 0.0, and -0.0 < 0 holds (cel-java's Double.compare); x < 0 covers x = -0.0
        PolicySet set = set("zero", "flip", "DENY", "wallet.outflow_1h * -1.0 < 0 || wallet.outflow_1h < 0");
        assertEquals(List.of("always_true flip"), findings(Fixtures.analyze(set), set));
        PolicySet literal = set("literal", "literal", "DENY", "-0.0 < 0 && -0.0 == 0.0 && !(-0.0 >= 0)");
        assertEquals(List.of("always_true literal"), findings(Fixtures.analyze(literal), literal));
    }

    @Test
    void aFieldHoldsNegativeZeroOnlyWhenTheEngineKeepsIt() {
        PolicySet set = set("outflow", "negative", "DENY", "wallet.outflow_1h < 0");
        List<String> got = findings(Fixtures.analyze(set), set);
        if (ActionSpace.PAYLOADS_KEEP_NEGATIVE_ZERO) {
            // -0.0 is a valid outflow here, and it is below int 0
            assertEquals(List.of(), got);
            Map<String, Object> w = trueOn(set, 0);
            assertEquals(Double.doubleToRawLongBits(-0.0),
                    Double.doubleToRawLongBits((Double) field(w, "wallet", "outflow_1h")));
            assertEquals(Outcome.DENY, Fixtures.decide(set, w).outcome());
        } else {
            assertEquals(List.of("unsatisfiable negative"), got);
        }
    }

    @Test
    void doubleArithmeticRounds() {
        PolicySet set = set("rounding",
                "half", "DENY", "withdrawal.value_usd - 0.5 >= withdrawal.value_usd",
                "one", "DENY", "(withdrawal.amount + 1.0) - withdrawal.amount == 1.0");
        assertEquals(List.of(), findings(Fixtures.analyze(set), set));
        Map<String, Object> w = trueOn(set, 0);
        double v = (Double) field(w, "withdrawal", "value_usd");
        assertTrue(v - 0.5 >= v, () -> "witness " + v);
        assertEquals("half", Fixtures.decide(set, w).ruleId());
    }

    @Test
    void intArithmeticIsSixtyFourBitAndWitnessesStayInRange() {
        PolicySet set = set("ints",
                "neg", "ALLOW", "-wallet.withdrawal_count_1h < 5",
                "gas web3.contract_call", "DENY", "resource.gas_limit - context.hour >= 0.1",
                "plus", "DENY", "wallet.withdrawal_count_1h + 1 > 5");
        AnalysisReport r = Fixtures.analyze(set);
        assertEquals(List.of("always_true neg", "may_error plus"), findings(r, set));
        AnalysisFinding plus = r.findings().get(1);
        assertEquals(Long.MAX_VALUE, field(plus.witness(), "wallet", "withdrawal_count_1h"));
        Decision d = Fixtures.decide(set, plus.witness());
        assertEquals(FailureKind.RULE_ERROR, d.failure());
        assertEquals("plus", d.ruleId());
        Map<String, Object> gas = trueOn(set, 1);
        assertEquals(TriggerAction.WEB3_CONTRACT_CALL.wireName(), gas.get("action"));
        assertEquals("gas", Fixtures.decide(set, gas).ruleId());
        assertEquals(3, r.rules());
        assertEquals(3, r.analyzed());
        assertEquals(Optional.of(true), Replay.value(set.rules().get(1), gas));
    }

    @Test
    void unsignedIntsCompareAsCelJavaDoes() {
        // cel-java's compareIntUint puts every uint from 2^63-1 up above every int (the largest int included)
        PolicySet above = set("uint-above", "u1", "DENY", "wallet.withdrawal_count_1h < 9223372036854775807u");
        assertEquals(List.of("always_true u1"), findings(Fixtures.analyze(above), above));
        PolicySet never = set("uint-never", "u2", "DENY", "wallet.withdrawal_count_1h >= 18446744073709551615u");
        assertEquals(List.of("unsatisfiable u2"), findings(Fixtures.analyze(never), never));
        // a double above 2^64 is above the largest uint
        PolicySet dbl = set("uint-double", "u3", "DENY", "withdrawal.value_usd > 18446744073709551615u");
        assertEquals(List.of(), findings(Fixtures.analyze(dbl), dbl));
        Map<String, Object> w = trueOn(dbl, 0);
        assertTrue((Double) field(w, "withdrawal", "value_usd") > 0x1p64, w::toString);
        assertEquals("u3", Fixtures.decide(dbl, w).ruleId());
    }
}
