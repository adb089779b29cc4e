package dev.custody.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.Decision;
import dev.custody.engine.Outcome;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** diff --semantic: equivalences proved, and each kind of change with a witness that replays as claimed. */
class SemanticDiffTest {
    @TempDir
    Path dir;

    private SemanticDiff.Result compare(String base, String head) {
        PolicySet b = Fixtures.yaml(dir, "base", base);
        PolicySet h = Fixtures.yaml(dir, "head", head);
        SemanticDiff.Result r = new SemanticDiff(5000).compare(b, h, Optional.empty());
        for (SemanticDiff.Difference d : r.differences()) {
            Decision bd = Fixtures.decide(b, d.witness());
            Decision hd = Fixtures.decide(h, d.witness());
            assertEquals(d.from(), bd.outcome(), "base decision of " + d.witness());
            assertEquals(d.to(), hd.outcome(), "head decision of " + d.witness());
            assertFalse(bd.sameAs(hd), "the witness shows a change");
            assertTrue(bd.sameAs(d.base()) && hd.sameAs(d.head()));
        }
        return r;
    }

    private static List<String> kinds(SemanticDiff.Result r) {
        List<String> out = new ArrayList<>();
        r.differences().forEach(d -> out.add(d.from() + "->" + d.to() + " " + d.base().ruleId() + " " + d.head().ruleId()));
        return out;
    }

    @Test
    void rewrittenConditionsAreEquivalent() {
        SemanticDiff.Result r = compare(
                Fixtures.policy("p", "a", "DENY", "withdrawal.value_usd > 10 && withdrawal.is_whitelisted",
                        "b", "ALLOW", "principal.role in [\"owner\", \"admin\"]"),
                Fixtures.policy("p", "a", "DENY", "!(withdrawal.value_usd <= 10) && withdrawal.is_whitelisted == true",
                        "b", "ALLOW", "principal.role == \"admin\" || principal.role == \"owner\""));
        assertTrue(r.equivalent(), r.toString());
        assertEquals(List.of(), r.differences());
    }

    @Test
    void aLowerLimitTurnsNoMatchIntoDeny() {
        SemanticDiff.Result r = compare(
                Fixtures.policy("p", "limit", "DENY", "withdrawal.value_usd > 100000"),
                Fixtures.policy("p", "limit", "DENY", "withdrawal.value_usd > 50000"));
        assertFalse(r.equivalent());
        assertEquals(List.of("NO_MATCH->DENY null limit"), kinds(r));
        double v = ((Number) ((java.util.Map<?, ?>) r.differences().get(0).witness().get("withdrawal")).get("value_usd"))
                .doubleValue();
        assertTrue(v > 50000 && v <= 100000, "witness value " + v);
    }

    @Test
    void eachKindOfChangeOnce() {
        // head: a new DENY rule that beats the ALLOW one, an error that turns NO_MATCH into a fail-closed DENY,
        // and a reordering that changes attribution
        SemanticDiff.Result r = compare(
                Fixtures.policy("p",
                        "small", "ALLOW", "withdrawal.value_usd < 100.0",
                        "big", "DENY", "withdrawal.value_usd > 1000.0",
                        "btc", "DENY", "withdrawal.asset_symbol == \"BTC\""),
                Fixtures.policy("p",
                        "small", "ALLOW", "withdrawal.value_usd < 100.0",
                        "btc", "DENY", "withdrawal.asset_symbol == \"BTC\"",
                        "big", "DENY", "withdrawal.value_usd > 1000.0",
                        "tiny", "DENY", "withdrawal.value_usd < 1.0"));
        assertFalse(r.equivalent());
        assertEquals(List.of("ALLOW->DENY small tiny", "DENY->DENY big btc"), kinds(r));
        assertEquals(List.of(), r.undecided());
    }

    @Test
    void anUnguardedOptionalFieldTurnsNoMatchIntoFailClosed() {
        SemanticDiff.Result r = compare(
                Fixtures.policy("p", "mail", "DENY", "has(principal.user_email) && principal.user_email == \"x@y.z\""),
                Fixtures.policy("p", "mail", "DENY", "principal.user_email == \"x@y.z\""));
        assertEquals(List.of("NO_MATCH->DENY null mail"), kinds(r));
        assertTrue(r.differences().get(0).head().failClosed());
        assertFalse(((java.util.Map<?, ?>) r.differences().get(0).witness().get("principal")).containsKey("user_email"));
    }

    @Test
    void rulesOutsideTheFragmentLeaveItUndecidedUnlessUnchanged() {
        String regex = "withdrawal.destination_address.matches(\"^0x0+$\")";
        SemanticDiff.Result same = compare(
                Fixtures.policy("p", "r", "DENY", regex, "x", "DENY", "context.hour < 3"),
                Fixtures.policy("p", "r", "DENY", regex, "x", "DENY", "context.hour <= 2"));
        assertTrue(same.equivalent(), same.toString());
        SemanticDiff.Result changed = compare(
                Fixtures.policy("p", "r", "DENY", regex),
                Fixtures.policy("p", "r", "DENY", "withdrawal.destination_address.matches(\"^0x00+$\")"));
        assertFalse(changed.equivalent());
        assertFalse(changed.undecided().isEmpty());
        for (SemanticDiff.Difference d : changed.differences()) {
            assertEquals(Outcome.DENY, d.from() == Outcome.DENY ? d.from() : d.to());
        }
    }

    @Test
    void theExampleRevision() {
        PolicySet b = Fixtures.read(Path.of("../examples/policies/role-limits.yaml"));
        PolicySet h = Fixtures.read(Path.of("../examples/revision/role-limits.yaml"));
        SemanticDiff.Result r = new SemanticDiff(5000).compare(b, h, Optional.empty());
        assertEquals(1, r.differences().size(), r.toString());
        SemanticDiff.Difference d = r.differences().get(0);
        assertEquals(Outcome.NO_MATCH, d.from());
        assertEquals(Outcome.DENY, d.to());
        assertEquals("signer-ceiling-2027", d.head().ruleId());
        assertEquals(Outcome.NO_MATCH, Fixtures.decide(b, d.witness()).outcome());
        assertEquals("signer-ceiling-2027", Fixtures.decide(h, d.witness()).ruleId());
    }
}
