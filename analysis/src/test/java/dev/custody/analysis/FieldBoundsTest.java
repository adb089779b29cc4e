package dev.custody.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.microsoft.z3.Status;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FieldBounds}' pre-filter: which pairs of rules it finds never true together, and that the exact solver
 * agrees wherever it says so (it may only ever spare a query whose answer is UNSAT).
 */
class FieldBoundsTest {
    @TempDir
    Path dir;

    /** Whether the bounds exclude the two conditions; when they do, the solver must prove it. */
    private boolean excludes(String a, String b) {
        PolicySet set = Fixtures.yaml(dir, "p", Fixtures.policy("p", "a", "DENY", a, "b", "DENY", b));
        AnalyzedRule x = set.rules().get(0);
        AnalyzedRule y = set.rules().get(1);
        boolean out = FieldBounds.of(x).excludes(FieldBounds.of(y));
        assertEquals(out, FieldBounds.of(y).excludes(FieldBounds.of(x)), "symmetric");
        if (out) {
            try (Formulas f = new Formulas(x.action(), List.of(set), PolicyAnalyzer.DEFAULT_TIMEOUT_MS)) {
                assertEquals(Status.UNSATISFIABLE, f.check(f.rule(x).isTrue(), f.rule(y).isTrue()).status(),
                        a + " / " + b);
            }
        }
        return out;
    }

    @Test
    void aStrictAndANonStrictBoundAtTheSameConstantExcludeEachOther() {
        assertEquals(true, excludes("withdrawal.value_usd > 50000", "withdrawal.value_usd <= 50000.0"));
        assertEquals(true, excludes("50000 < withdrawal.value_usd", "withdrawal.value_usd <= 50000.0"));
        assertEquals(true, excludes("withdrawal.value_usd < 7.5", "withdrawal.value_usd >= 7.5"));
        assertEquals(true, excludes("withdrawal.address_age_sec < 3600", "withdrawal.address_age_sec >= 3600"));
        assertEquals(true, excludes("withdrawal.value_usd > 10.0 && withdrawal.value_usd <= 10.0",
                "principal.role == \"owner\""));
    }

    @Test
    void closedBoundsThatMeetAndBoundsAtZeroAreLeftToTheSolver() {
        assertEquals(false, excludes("withdrawal.value_usd >= 50000", "withdrawal.value_usd <= 50000.0"));
        assertEquals(false, excludes("withdrawal.value_usd > 0", "withdrawal.value_usd <= 0.0"));
        assertEquals(false, excludes("withdrawal.value_usd > 100 && principal.role == \"owner\"",
                "withdrawal.value_usd <= 200.0"));
    }

    /** What the probe's repair asks of the bounds: whether a value of a field lies within them. */
    @Test
    void theBoundsAdmitTheValuesWithinThemOnly() {
        PolicySet set = Fixtures.yaml(dir, "p", Fixtures.policy("p", "a", "DENY",
                "withdrawal.value_usd > 500 && withdrawal.value_usd <= 2000.0 && withdrawal.asset_symbol in [\"SOL\"]"
                        + " && !withdrawal.is_whitelisted && wallet.outflow_24h + withdrawal.amount > 1.0"));
        FieldBounds b = FieldBounds.of(set.rules().get(0));
        assertEquals(List.of(false, true, true, false, false), List.of(b.admits("withdrawal.value_usd", 500.0),
                b.admits("withdrawal.value_usd", 500.5), b.admits("withdrawal.value_usd", 2000L),
                b.admits("withdrawal.value_usd", 2000.5), b.admits("withdrawal.value_usd", null)));
        assertEquals(List.of(true, false, false), List.of(b.admits("withdrawal.asset_symbol", "SOL"),
                b.admits("withdrawal.asset_symbol", "DAI"), b.admits("withdrawal.asset_symbol", null)));
        assertEquals(List.of(true, false), List.of(b.admits("withdrawal.is_whitelisted", false),
                b.admits("withdrawal.is_whitelisted", true)));
        // a field read only inside a sum is not bounded
        assertEquals(List.of(true, true), List.of(b.admits("wallet.outflow_24h", 0.0),
                b.admits("wallet.outflow_24h", null)));
    }
}
