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

    /** {@link #probe}, its moves guided by each rule's {@link FieldBounds}, as the analysis builds it. */
    private static Probe guided(Formulas f) {
        return new Probe(f.space.action(), f.space.wallets(), f.space.workspaces(), r -> f.rule(r).reason() != null,
                FieldBounds::of);
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

    /**
     * Two rules true together where the one changes a field the other must keep low (a sum of two fields against
     * a ceiling on one of them): from an action on which only the sum is true (its value high, its outflow 0), no
     * single change or combination of the ceiling rule's own fields gets there (the probe used to give up, and the
     * solver was asked: 60 ms a query with double sums); the bounds' repair (the ceiling rule's fields into its
     * bounds), then one change (the outflow up), finds the action.
     */
    @Test
    void theBoundsRepairMeetsASumAndACeilingTogether() {
        PolicySet set = Fixtures.yaml(dir, "p", Fixtures.policy("p",
                "sum", "DENY", "has(wallet.outflow_24h) && wallet.outflow_24h + withdrawal.value_usd > 20000.0",
                "low", "DENY", "withdrawal.asset_symbol in [\"SOL\", \"DAI\"] && withdrawal.value_usd <= 2000.0"));
        AnalyzedRule sum = set.rules().get(0);
        AnalyzedRule low = set.rules().get(1);
        try (Formulas f = new Formulas(sum.action(), List.of(set), PolicyAnalyzer.DEFAULT_TIMEOUT_MS)) {
            List<Probe.Lit> goal = List.of(Probe.Lit.of(Probe.Kind.TRUE, sum), Probe.Lit.of(Probe.Kind.TRUE, low));
            Probe guided = guided(f);
            Probe.Point start = guided.point(start(guided.zero().witness));
            assertTrue(start.isTrue(sum) && !start.isTrue(low));
            Probe.Point x = guided.find(goal, List.of(start));
            assertNotNull(x);
            assertEquals(Optional.of(true), Replay.value(sum, x.witness));
            assertEquals(Optional.of(true), Replay.value(low, x.witness));
            assertEquals(Status.SATISFIABLE, f.check(f.rule(sum).isTrue(), f.rule(low).isTrue()).status());
        }
    }

    /** The plainest action with a high value and an outflow of 0: the sum rule true on its value alone. */
    @SuppressWarnings("unchecked")
    private static java.util.Map<String, Object> start(java.util.Map<String, Object> zero) {
        java.util.Map<String, Object> w = new java.util.LinkedHashMap<>();
        zero.forEach((k, v) -> w.put(k, v instanceof java.util.Map<?, ?> m ? new java.util.LinkedHashMap<>(m) : v));
        ((java.util.Map<String, Object>) w.get("withdrawal")).put("value_usd", 20001.0);
        ((java.util.Map<String, Object>) w.get("wallet")).put("outflow_24h", 0.0);
        return w;
    }

    /**
     * A rule of one workspace whose condition needs two fields changed (one of them already right on the
     * plainest action) besides the workspace: the canonical search, with no history to graft from, reaches it
     * through the repair; without bounds it does not (the combined move over every field the rule reads, the
     * hour and the day among them, is too large to make).
     */
    @Test
    void theCanonicalSearchReachesARuleOfAWorkspaceThroughTheRepair() {
        String workspace = "f7cd7efa-0fd8-4bd3-a166-8ff096191bcc";
        PolicySet set = Fixtures.yaml(dir, "p", Fixtures.policy("p", "night", "DENY",
                "(context.hour < 1 || context.day_of_week in [\"Saturday\", \"Sunday\"]) && withdrawal.value_usd > 50000")
                .replace("rules:\n", "workspace_id: " + workspace + "\nrules:\n"));
        AnalyzedRule night = set.rules().get(0);
        try (Formulas f = new Formulas(night.action(), List.of(set), PolicyAnalyzer.DEFAULT_TIMEOUT_MS)) {
            List<Probe.Lit> goal = List.of(Probe.Lit.of(Probe.Kind.TRUE, night));
            assertNull(probe(f).findCanonical(goal));
            Probe guided = guided(f);
            Probe.Point x = guided.findCanonical(goal);
            assertNotNull(x);
            assertEquals(workspace, x.witness.get("workspace_id"));
            assertEquals(Optional.of(true), Replay.value(night, x.witness));
            assertEquals(x.witness, guided.findCanonical(goal).witness, "the same action every time");
        }
    }

    /**
     * A rule true and two others not, where breaking the first of them (the value above its ceiling) makes the
     * second true (a night rule over the same value) unless the hour moves too: no single change gains, so the
     * probe takes a sideways step (as many literals unmet as before) and then one change more.
     */
    @Test
    @SuppressWarnings("unchecked")
    void aSidewaysStepThenOneChangeMeetsTwoRulesThatMustMoveTogether() {
        PolicySet set = Fixtures.yaml(dir, "p", Fixtures.policy("p",
                "usdc", "ALLOW", "withdrawal.asset_symbol in [\"USDC\", \"USDC\"] && withdrawal.value_usd <= 50000.0",
                "small", "ALLOW", "withdrawal.asset_symbol in [\"USDC\", \"USDT\"] && withdrawal.value_usd <= 25000.0",
                "night", "ALLOW", "(context.hour < 5 || context.day_of_week in [\"Saturday\", \"Sunday\"])"
                        + " && withdrawal.value_usd > 25000"));
        AnalyzedRule usdc = set.rules().get(0);
        AnalyzedRule small = set.rules().get(1);
        AnalyzedRule night = set.rules().get(2);
        try (Formulas f = new Formulas(usdc.action(), List.of(set), PolicyAnalyzer.DEFAULT_TIMEOUT_MS)) {
            Probe p = probe(f);
            java.util.Map<String, Object> w = start(p.zero().witness);
            ((java.util.Map<String, Object>) w.get("withdrawal")).put("value_usd", 0.0);
            ((java.util.Map<String, Object>) w.get("withdrawal")).put("asset_symbol", "USDC");
            Probe.Point from = p.point(w);
            assertTrue(from.isTrue(usdc) && from.isTrue(small) && !from.isTrue(night));
            List<Probe.Lit> goal = List.of(Probe.Lit.of(Probe.Kind.TRUE, usdc),
                    Probe.Lit.of(Probe.Kind.NOT_TRUE, small), Probe.Lit.of(Probe.Kind.NOT_TRUE, night));
            Probe.Point x = p.find(goal, List.of(from));
            assertNotNull(x);
            assertEquals(List.of(Optional.of(true), Optional.of(false), Optional.of(false)),
                    List.of(Replay.value(usdc, x.witness), Replay.value(small, x.witness), Replay.value(night, x.witness)));
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
