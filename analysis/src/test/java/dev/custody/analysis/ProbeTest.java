package dev.custody.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.z3.Status;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Probe}'s searches, and the sums' abstraction of {@link Formulas}: what they may answer and what not. */
class ProbeTest {
    @TempDir
    Path dir;

    private PolicySet set() {
        return Fixtures.yaml(dir, "p", Fixtures.policy("p",
                "sum", "DENY", "wallet.outflow_24h + withdrawal.value_usd > 20000.0",
                "big", "DENY", "withdrawal.value_usd > 50000 && principal.role == \"viewer\"",
                "pair", "ALLOW", "withdrawal.asset_symbol in [\"DAI\", \"SOL\"] && withdrawal.is_whitelisted"
                        + " && withdrawal.address_age_sec < 3600",
                "never", "ALLOW", "withdrawal.value_usd > 10.0 && withdrawal.value_usd < 5.0"));
    }

    private static Probe probe(Formulas f) {
        return new Probe(f.space.action(), f.space.wallets(), f.space.workspaces(), r -> f.rule(r).reason() != null);
    }

    @Test
    void aGoalSomeActionMeetsIsMetAndTheActionIsWhatTheEngineSays() {
        PolicySet set = set();
        AnalyzedRule sum = set.rules().get(0);
        AnalyzedRule big = set.rules().get(1);
        AnalyzedRule pair = set.rules().get(2);
        try (Formulas f = new Formulas(sum.action(), List.of(set), PolicyAnalyzer.DEFAULT_TIMEOUT_MS)) {
            Probe p = probe(f);
            // three fields must change at once from the plainest action
            List<Probe.Lit> goal = List.of(Probe.Lit.of(Probe.Kind.TRUE, pair), Probe.Lit.of(Probe.Kind.NOT_TRUE, sum));
            Probe.Point x = p.findCanonical(goal);
            assertNotNull(x);
            assertEquals(Optional.of(true), Replay.value(pair, x.witness));
            assertEquals(Optional.of(false), Replay.value(sum, x.witness));
            // the same goal gives the same action whatever was asked before
            p.find(List.of(Probe.Lit.of(Probe.Kind.TRUE, big)), List.of());
            assertEquals(x.witness, p.findCanonical(goal).witness);
            Probe.Point y = p.find(List.of(Probe.Lit.of(Probe.Kind.TRUE, big), Probe.Lit.of(Probe.Kind.TRUE, sum)),
                    List.of(x));
            assertNotNull(y);
            assertTrue(y.isTrue(big) && y.isTrue(sum));
        }
    }

    @Test
    void aGoalNoActionMeetsIsNeverMet() {
        PolicySet set = set();
        AnalyzedRule sum = set.rules().get(0);
        AnalyzedRule big = set.rules().get(1);
        AnalyzedRule never = set.rules().get(3);
        try (Formulas f = new Formulas(sum.action(), List.of(set), PolicyAnalyzer.DEFAULT_TIMEOUT_MS)) {
            Probe p = probe(f);
            assertNull(p.findCanonical(List.of(Probe.Lit.of(Probe.Kind.TRUE, never))));
            // big implies sum (outflow_24h is never negative): no action has big true and sum not
            assertNull(p.findCanonical(List.of(Probe.Lit.of(Probe.Kind.TRUE, big),
                    Probe.Lit.of(Probe.Kind.NOT_TRUE, sum))));
            assertEquals(Status.UNSATISFIABLE, f.check(f.rule(big).isTrue(), f.not(f.rule(sum).isTrue())).status());
        }
    }

    @Test
    void theSumsAbstractionAnswersYesOnlyWithAModelOfTheRealQuery() {
        PolicySet set = set();
        AnalyzedRule sum = set.rules().get(0);
        AnalyzedRule big = set.rules().get(1);
        try (Formulas f = new Formulas(sum.action(), List.of(set), PolicyAnalyzer.DEFAULT_TIMEOUT_MS)) {
            // sum true and big not: an action exists; the answer's model must make the real formulas true
            Formulas.Answer a = f.check(f.rule(sum).isTrue(), f.not(f.rule(big).isTrue()));
            assertEquals(Status.SATISFIABLE, a.status());
            assertTrue(a.model().eval(f.rule(sum).isTrue(), true).isTrue());
            assertFalse(a.model().eval(f.rule(big).isTrue(), true).isTrue());
            var w = f.space.witness(a.model(), "w");
            assertEquals(Optional.of(true), Replay.value(sum, w));
        }
    }

    @Test
    void theFindingsOfACoverAreTheExactOnes() {
        PolicySet set = set();
        // big is covered by sum (an earlier DENY): shadowed, related to sum alone; never is unsatisfiable
        AnalysisReport r = Fixtures.analyze(set);
        List<String> got = r.findings().stream().map(x -> x.kind().wireName() + " " + x.rule().ruleId() + " "
                + x.related().stream().map(AnalyzedRule::ruleId).toList()).toList();
        assertEquals(List.of("shadowed big [sum]", "unsatisfiable never []"), got);
        for (AnalysisFinding x : r.findings()) {
            FindingKindsTest.checkWitness(set, x);
        }
    }
}
