package dev.custody.engine.internal.bundle;

import static dev.custody.engine.Fixtures.allow;
import static dev.custody.engine.Fixtures.deny;
import static dev.custody.engine.Fixtures.policy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.custody.engine.Fixtures;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.Decision;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.policy.Rule;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** A bundle's revision: the same for the same policies everywhere, different for anything that decides. */
class BundleRevisionTest {
    static final String W1 = "11111111-1111-4111-8111-111111111111";
    static final String W2 = "22222222-2222-4222-8222-222222222222";
    static final Rule BIG = deny("big", "withdrawal.value_usd > 10000");
    static final Rule LISTED = allow("listed", "withdrawal.is_whitelisted");

    static List<Policy> base() {
        return List.of(
                policy("a", "active", List.of(W1, W2), BIG, LISTED),
                policy("b", deny("night", "context.hour < 6")),
                policy("c", "inactive", List.of(), deny("off", "true")));
    }

    static List<Policy> change(UnaryOperator<List<Policy>> f) {
        return f.apply(base());
    }

    static Policy withFirstRule(Policy p, Rule r) {
        List<Rule> rules = new ArrayList<>(p.rules());
        rules.set(0, r);
        return p.withRules(rules);
    }

    static Map<String, List<Policy>> changes() {
        Map<String, List<Policy>> m = new TreeMap<>();
        m.put("a condition", change(l -> List.of(withFirstRule(l.get(0), new Rule("big", "withdrawal.create",
                "withdrawal.value_usd > 9000", "DENY", null, null)), l.get(1), l.get(2))));
        m.put("an effect", change(l -> List.of(withFirstRule(l.get(0), new Rule("big", "withdrawal.create",
                BIG.condition(), "ALLOW", null, null)), l.get(1), l.get(2))));
        m.put("the order of policies", change(l -> List.of(l.get(1), l.get(0), l.get(2))));
        m.put("the order of rules", change(l -> List.of(l.get(0).withRules(List.of(LISTED, BIG)), l.get(1),
                l.get(2))));
        m.put("an enabled flag", change(l -> List.of(withFirstRule(l.get(0), new Rule("big", "withdrawal.create",
                BIG.condition(), "DENY", null, false)), l.get(1), l.get(2))));
        m.put("targeting", change(l -> List.of(policy("a", "active", List.of(W1), BIG, LISTED), l.get(1),
                l.get(2))));
        m.put("a version", change(l -> List.of(new Policy("a", l.get(0).name(), null, Fixtures.GROUP,
                List.of(W1, W2), l.get(0).rules(), "active", 2, null, null), l.get(1), l.get(2))));
        m.put("a policy's activation", change(l -> List.of(l.get(0), l.get(1), policy("c", deny("off", "true")))));
        return m;
    }

    static List<String> changeNames() {
        return List.copyOf(changes().keySet());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("changeNames")
    void changingWhatDecidesChangesTheRevision(String what) {
        assertNotEquals(PolicyBundle.revision(base()), PolicyBundle.revision(changes().get(what)), what);
    }

    @Test
    void equalPoliciesGiveEqualRevisionsAndInactivePoliciesOrWalletOrderDoNotCount() {
        String r = PolicyBundle.revision(base());
        assertEquals(16, r.length());
        assertEquals(r, PolicyBundle.revision(base()));
        List<Policy> reordered = change(l -> List.of(policy("a", "active",
                List.of(W2.toUpperCase(Locale.ROOT), W1), BIG, LISTED), l.get(1), l.get(2)));
        assertEquals(r, PolicyBundle.revision(reordered), "targeting is a set of wallets");
        List<Policy> inactiveEdited = change(l -> List.of(l.get(0), l.get(1),
                policy("c", "inactive", List.of(), deny("off", "false"))));
        assertEquals(r, PolicyBundle.revision(inactiveEdited), "an inactive policy decides nothing");
    }

    @Test
    void twoEnginesWithTheSamePoliciesStampTheSameRevisionOnTheirDecisions() {
        Decision one = PolicyEngine.builder(ws -> base()).build().evaluate("ws", Fixtures.withdrawal(20000).build());
        Decision two = PolicyEngine.builder(ws -> base()).build().evaluate("ws", Fixtures.withdrawal(20000).build());
        assertEquals("big", one.ruleId());
        assertEquals(PolicyBundle.revision(base()), one.bundleRevision());
        assertEquals(one.bundleRevision(), two.bundleRevision());
        Decision failed = PolicyEngine.builder(ws -> {
            throw new java.io.IOException("down");
        }).build().evaluate("ws", Fixtures.withdrawal(1).build());
        assertEquals(null, failed.bundleRevision());
    }
}
