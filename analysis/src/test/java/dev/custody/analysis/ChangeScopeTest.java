package dev.custody.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.Decision;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code custody review} asks of the analysis: a rule analysed alone against the whole set gets exactly the
 * findings the whole analysis gives it; {@link PolicyAnalyzer#touched} names the rules a change may alter the
 * findings of; a focused semantic comparison gives only changes a rule of its group decides, each replayed.
 */
class ChangeScopeTest {
    @TempDir
    Path dir;

    static final PolicySet REVIEW = Fixtures.read(Path.of("../examples/analysis/review.yaml"));

    private static List<String> described(List<AnalysisFinding> findings) {
        List<String> out = new ArrayList<>();
        for (AnalysisFinding f : findings) {
            out.add(f.kind().wireName() + " " + f.rule().label() + " " + PolicyAnalyzer.labels(f.related()) + " "
                    + f.message());
        }
        return out;
    }

    private static List<String> kinds(SemanticDiff.Result r) {
        return r.differences().stream().map(d -> d.from() + "->" + d.to()).toList();
    }

    @Test
    void aRuleAnalysedAloneGetsTheFindingsOfTheWholeAnalysis() {
        PolicyAnalyzer analyzer = new PolicyAnalyzer(5000);
        AnalysisReport whole = analyzer.analyze(REVIEW, Optional.empty());
        assertEquals(8, whole.rules());
        for (AnalyzedRule r : REVIEW.rules()) {
            AnalysisReport alone = analyzer.analyze(REVIEW, Optional.empty(),
                    new PolicyAnalyzer.Run(1, null, PolicyAnalyzer.Progress.NONE), x -> x == r);
            assertEquals(1, alone.rules(), r.label());
            assertEquals(described(whole.findings().stream().filter(f -> f.rule() == r).toList()),
                    described(alone.findings()), r.label());
        }
    }

    @Test
    void aChangedDenyRuleTouchesTheLaterDenyRulesAndTheAllowRulesItMayBeTrueWith() {
        List<String> touched = PolicyAnalyzer.touched(REVIEW, r -> r.ruleId().equals("large")).stream()
                .map(AnalyzedRule::ruleId).toList();
        // every later DENY rule: each may be true together with `large` (FieldBounds does not bound context.hour,
        // so the unsatisfiable after-midnight is kept too: more is analysed, never less)
        assertEquals(List.of("large", "large-btc", "large-again", "after-midnight", "company-accounts", "vanity-address",
                "big-whitelisted-payout", "every-role"), touched);
        // an ALLOW rule touches only the later ALLOW rules it may be true with
        assertEquals(List.of("big-whitelisted-payout", "every-role"),
                PolicyAnalyzer.touched(REVIEW, r -> r.ruleId().equals("big-whitelisted-payout")).stream()
                        .map(AnalyzedRule::ruleId).toList());
        // bounds that exclude each other: a DENY rule above $50,000 does not touch an ALLOW rule below $1,000
        PolicySet s = Fixtures.yaml(dir, "s", Fixtures.policy("p", "big", "DENY", "withdrawal.value_usd > 50000",
                "small", "ALLOW", "withdrawal.value_usd < 1000", "any", "ALLOW", "withdrawal.is_whitelisted"));
        assertEquals(List.of("big", "any"),
                PolicyAnalyzer.touched(s, r -> r.ruleId().equals("big")).stream().map(AnalyzedRule::ruleId).toList());
    }

    @Test
    void aFocusedComparisonGivesTheChangesItsRulesDecide() {
        PolicySet base = Fixtures.yaml(dir, "base", Fixtures.policy("p",
                "limit", "DENY", "withdrawal.value_usd > 100000",
                "night", "DENY", "context.hour < 6 && withdrawal.value_usd > 1000"));
        PolicySet head = Fixtures.yaml(dir, "head", Fixtures.policy("p",
                "limit", "DENY", "withdrawal.value_usd > 50000",
                "night", "DENY", "context.hour < 5 && withdrawal.value_usd > 1000"));
        List<Predicate<AnalyzedRule>> focus = List.of(r -> r.ruleId().equals("limit"), r -> r.ruleId().equals("night"),
                r -> r.ruleId().equals("none"));
        SemanticDiff.Focused f = new SemanticDiff(5000).compare(base, head, Optional.empty(), focus);
        assertFalse(f.whole().equivalent());
        assertEquals(3, f.focused().size());
        for (int g = 0; g < 2; g++) {
            String rule = g == 0 ? "limit" : "night";
            SemanticDiff.Result r = f.focused().get(g);
            assertFalse(r.equivalent(), rule);
            assertFalse(r.differences().isEmpty(), rule);
            for (SemanticDiff.Difference d : r.differences()) {
                Decision bd = Fixtures.decide(base, d.witness());
                Decision hd = Fixtures.decide(head, d.witness());
                assertTrue(bd.sameAs(d.base()) && hd.sameAs(d.head()), d.witness().toString());
                assertTrue(rule.equals(bd.ruleId()) || rule.equals(hd.ruleId()), d.witness().toString());
            }
        }
        // through `limit`: a night action between $50,000 and $100,000 moves from `night` to `limit`, a day one
        // from no rule to `limit`; through `night`: an action at 05:xx above $1,000 is no longer denied by it
        assertEquals(List.of("DENY->DENY", "NO_MATCH->DENY"), kinds(f.focused().get(0)));
        assertTrue(kinds(f.focused().get(1)).contains("DENY->NO_MATCH"), kinds(f.focused().get(1)).toString());
        // a group no rule is in: nothing asked, nothing found
        assertTrue(f.focused().get(2).equivalent());
    }
}
