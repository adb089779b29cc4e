package dev.custody.engine.selection;

import static dev.custody.engine.Fixtures.GROUP;
import static dev.custody.engine.Fixtures.VALIDATOR;
import static dev.custody.engine.Fixtures.allow;
import static dev.custody.engine.Fixtures.deny;
import static dev.custody.engine.Fixtures.policy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.internal.bundle.BoundRule;
import dev.custody.engine.internal.bundle.PolicyBundle;
import dev.custody.engine.policy.BundleError;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.schema.TriggerAction;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one rule selection: which rules of which policies apply, and what is left out and why. */
class RuleSelectionTest {
    static final String W1 = "11111111-1111-4111-8111-111111111111";
    static final String W2 = "22222222-2222-4222-8222-222222222222";

    static Policy unnamed(String status, Rule... rules) {
        return new Policy(null, "unnamed policy", null, GROUP, List.of(), List.of(rules), status, 1, null, null);
    }

    static Rule disabled(String id) {
        return new Rule(id, "withdrawal.create", "true", "DENY", "off", false);
    }

    static Rule call(String id) {
        return new Rule(id, "web3.contract_call", "resource.method_name == 'approve'", "DENY", "no approvals", true);
    }

    /** Every kind of policy and rule the selection keeps or leaves out, all valid: the kept rules in order. */
    static List<Policy> valid() {
        return List.of(
                policy("draft", "pending", List.of(), deny("d1", "true")),
                policy("targeted", "active", List.of(W1.toUpperCase(), W2), deny("big", "withdrawal.value_usd > 1"),
                        disabled("off"), allow(null, "withdrawal.is_whitelisted")),
                unnamed(null, allow("listed", "withdrawal.is_whitelisted"), call(null)),
                policy("old", "inactive", List.of(), deny("big", "true")),
                policy("gone", "rejected", List.of(), deny("x", "true")),
                policy("open", deny(null, "context.hour < 6")));
    }

    static String row(SelectedRule r) {
        return r.policyIndex() + "/" + r.ruleIndex() + " #" + r.order() + " " + r.policyId() + "/" + r.ruleId() + " "
                + r.action().wireName() + " " + r.effect() + " " + new java.util.TreeSet<>(r.walletIds());
    }

    static String row(Exclusion x) {
        return x.policyIndex() + "/" + x.ruleIndex() + " " + x.policyId() + " " + x.reason()
                + (x.error() == null ? "" : " " + x.error().code().id() + " " + x.error().message());
    }

    @Test
    void keepsEnabledRulesOfActivePoliciesInDeclarationOrderWithTheEnginesIds() {
        RuleSelection s = RuleSelection.of(valid(), VALIDATOR);
        assertTrue(s.valid());
        assertEquals(List.of(
                "1/0 #0 targeted/big withdrawal.create DENY [" + W1 + ", " + W2 + "]",
                "1/2 #1 targeted/targeted#2 withdrawal.create ALLOW [" + W1 + ", " + W2 + "]",
                "2/0 #2 #2/listed withdrawal.create ALLOW []",
                "2/1 #3 #2/#2#1 web3.contract_call DENY []",
                "5/0 #4 open/open#0 withdrawal.create DENY []"),
                s.rules().stream().map(RuleSelectionTest::row).toList());
        assertEquals(List.of(
                "0/-1 draft NOT_ACTIVE",
                "1/1 targeted DISABLED",
                "3/-1 old NOT_ACTIVE",
                "4/-1 gone NOT_ACTIVE"), s.exclusions().stream().map(RuleSelectionTest::row).toList());
        assertEquals(List.of(), s.errors());
        assertEquals(3, s.activePolicies());
        assertEquals(List.of("#2/#2#1"), s.rules(TriggerAction.WEB3_CONTRACT_CALL).stream()
                .map(r -> r.policyId() + "/" + r.ruleId()).toList());
        assertEquals("denied by big", s.rules().get(0).description());
        assertEquals("withdrawal.value_usd > 1", s.rules().get(0).condition().source());
    }

    @Test
    void theBundleIsBuiltFromTheSelection() {
        RuleSelection s = RuleSelection.of(valid(), VALIDATOR);
        PolicyBundle b = PolicyBundle.compile(valid(), VALIDATOR);
        assertEquals(s.rules().stream().map(r -> r.policyId() + "/" + r.ruleId() + " " + r.effect() + " "
                        + r.walletIds() + " " + r.description() + " " + r.order()).toList(),
                b.rules().stream().map(RuleSelectionTest::bound).toList());
        assertEquals(s.activePolicies(), b.policyCount());
        assertEquals(s.rules().size(), b.ruleCount());
        assertEquals(List.of("targeted/big", "#2/#2#1", "open/open#0"), b.rules().stream()
                .filter(r -> r.effect() == dev.custody.engine.schema.Effect.DENY)
                .map(r -> r.policyId() + "/" + r.ruleId()).toList());
    }

    static String bound(BoundRule r) {
        return r.policyId() + "/" + r.ruleId() + " " + r.effect() + " " + r.walletIds() + " " + r.description() + " "
                + r.order();
    }

    @Test
    void errorsMakeTheSelectionInvalidAndKeepNoRule() {
        List<Policy> policies = List.of(
                policy("a", deny("one", "true")),
                policy("a", "inactive", List.of(), deny("two", "true")),
                policy("b", "active", List.of(), deny("bad", "withdrawal.amout > 1"), disabled("off")),
                policy("a", allow("three", "true")),
                policy("c", "paused", List.of(), deny("four", "true")),
                unnamed(null, disabled("never compiled")));
        RuleSelection s = RuleSelection.of(policies, VALIDATOR);
        assertFalse(s.valid());
        assertEquals(List.of(), s.rules());
        assertEquals(List.of(
                "1/-1 a NOT_ACTIVE",
                "2/-1 b INVALID unknown_field unknown field `withdrawal.amout`",
                "3/-1 a DUPLICATE_POLICY_ID duplicate_id policy id `a` is used by an earlier active policy",
                "4/-1 c UNKNOWN_STATUS invalid_status unknown status `paused`",
                "5/0 #5 DISABLED"), s.exclusions().stream().map(RuleSelectionTest::row).toList());
        assertEquals(List.of("b", "a", "c"), s.errors().stream().map(BundleError::policyId).toList());
        assertEquals("statuses: pending, active, inactive, rejected", s.errors().get(2).diagnostic().hint());
        assertEquals(4, s.activePolicies());
        PolicyBundle b = PolicyBundle.compile(policies, VALIDATOR);
        assertFalse(b.valid());
        assertEquals(s.errors(), b.errors());
        assertEquals(List.of(), b.rules());
        assertEquals(4, b.policyCount());
    }

    @Test
    void anInactiveDuplicateIsNoDuplicateAndABlankIdIsAnErrorNamedByPosition() {
        RuleSelection s = RuleSelection.of(List.of(
                policy("a", "inactive", List.of(), deny("x", "true")),
                policy("a", deny("x", "true")),
                unnamed("active", deny(null, "true")),
                policy("#2", "rejected", List.of(), deny("y", "true"))), VALIDATOR);
        assertTrue(s.valid(), () -> s.errors().toString());
        assertEquals(List.of("1/0 #0 a/x withdrawal.create DENY []", "2/0 #1 #2/#2#0 withdrawal.create DENY []"),
                s.rules().stream().map(RuleSelectionTest::row).toList());
        Policy blank = new Policy(" ", "blank id", null, GROUP, List.of(), List.of(deny(null, "true")), null, 1, null,
                null);
        RuleSelection b = RuleSelection.of(List.of(policy("a", deny("x", "true")), blank), VALIDATOR);
        assertEquals(List.of("1/-1 #1 INVALID missing_field policy id is blank"),
                b.exclusions().stream().map(RuleSelectionTest::row).toList());
        assertEquals(List.of(), b.rules());
    }

    @Test
    void workspaceMembership() {
        assertTrue(RuleSelection.inWorkspace(null, "ws"));
        assertTrue(RuleSelection.inWorkspace(null, dev.custody.engine.PolicySource.NO_WORKSPACE));
        assertTrue(RuleSelection.inWorkspace("WS-1", "ws-1"));
        assertFalse(RuleSelection.inWorkspace("ws-1", "ws-2"));
        assertFalse(RuleSelection.inWorkspace("ws-1", dev.custody.engine.PolicySource.NO_WORKSPACE));
    }

    /** The one targeting predicate, with the engine's case handling: canonical case, a blank workspace is none. */
    @Test
    void targetsAnswersWithTheEnginesCaseHandling() {
        String wallet = "6b1e4f0c-9a1d-4c7e-8f2a-3d5b7c9e1a2f";
        java.util.Set<String> wallets = java.util.Set.of(wallet);
        assertTrue(RuleSelection.targets(wallets, null, wallet.toUpperCase(java.util.Locale.ROOT), null));
        assertTrue(RuleSelection.targets(wallets, "WS-1", wallet, " Ws-1 "));
        assertTrue(RuleSelection.targets(java.util.Set.of(), null, null, null));
        assertFalse(RuleSelection.targets(wallets, null, null, "ws-1"));
        assertFalse(RuleSelection.targets(wallets, null, "0d4c4a39-3a4f-4b52-9b3e-2f1c8a7d6e5b", "ws-1"));
        assertFalse(RuleSelection.targets(java.util.Set.of(), "ws-1", wallet, " "));
        assertFalse(RuleSelection.targets(java.util.Set.of(), "ws-1", wallet, null));
        assertFalse(RuleSelection.targets(java.util.Set.of(), "ws-1", wallet, "ws-2"));
        assertEquals(RuleSelection.NO_WORKSPACE, RuleSelection.workspaceKey(null));
        assertEquals(RuleSelection.NO_WORKSPACE, RuleSelection.workspaceKey(" \t"));
        assertEquals("ab-1", RuleSelection.workspaceKey(" AB-1\n"));
        // the selection's key for no workspace is the engine's
        assertEquals(dev.custody.engine.PolicySource.NO_WORKSPACE, RuleSelection.NO_WORKSPACE);
    }
}
