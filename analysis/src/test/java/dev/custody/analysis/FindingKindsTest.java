package dev.custody.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.Decision;
import dev.custody.engine.FailureKind;
import dev.custody.engine.Outcome;
import dev.custody.engine.schema.Effect;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * One case per finding kind (and the near misses that must not be reported): the exact findings, and every
 * witness replayed through the engine with the claimed result.
 */
class FindingKindsTest {
    private static final String W1 = "aa0fe024-832e-4282-a4e2-c85e2b7ae138";

    @TempDir
    Path dir;

    /** A case: YAML policies, and the findings expected as {@code kind rule_id [related…]}, in report order. */
    record Case(String name, String yaml, List<String> expected) {}

    static Stream<Case> cases() {
        return Stream.of(
                new Case("unsatisfiable by the hour range and the role enum", Fixtures.policy("p",
                        "late", "DENY", "context.hour >= 24 && withdrawal.value_usd > 5",
                        "root", "DENY", "principal.role == \"root\"",
                        "negative", "DENY", "withdrawal.value_usd < 0.0 || wallet.withdrawal_count_1h < 0"),
                        List.of("unsatisfiable late", "unsatisfiable root", "unsatisfiable negative")),
                new Case("always true over the weekday names", Fixtures.policy("p",
                        "days", "ALLOW", "context.day_of_week in [\"Monday\", \"Tuesday\", \"Wednesday\", \"Thursday\", "
                                + "\"Friday\", \"Saturday\", \"Sunday\"]"),
                        List.of("always_true days")),
                new Case("an absorbed error leaves the rule always true, not may_error", Fixtures.policy("p",
                        "absorbed", "DENY", "principal.user_email == \"a@b.c\" || true"),
                        List.of("always_true absorbed")),
                new Case("shadowed by one earlier rule", Fixtures.policy("p",
                        "big", "DENY", "withdrawal.value_usd > 100",
                        "bigger", "DENY", "withdrawal.value_usd > 200 && withdrawal.is_whitelisted"),
                        List.of("shadowed bigger big")),
                new Case("shadowed by two earlier rules together", Fixtures.policy("p",
                        "morning", "DENY", "context.hour < 12",
                        "afternoon", "DENY", "context.hour >= 12 && withdrawal.amount > 1.5",
                        "evening", "DENY", "context.hour >= 12 && withdrawal.amount > 2.0 || context.hour < 3"),
                        List.of("shadowed evening morning afternoon")),
                new Case("not shadowed by a rule of another effect", Fixtures.policy("p",
                        "big", "ALLOW", "withdrawal.value_usd > 100",
                        "bigger", "DENY", "withdrawal.value_usd > 200"),
                        List.of()),
                new Case("a rule of fewer wallets does not shadow", "- " + Fixtures.policy("one", "big", "DENY",
                        "withdrawal.value_usd > 100").replace("\n", "\n  ") + "wallet_ids: [" + W1 + "]\n- "
                        + Fixtures.policy("all", "bigger", "DENY", "withdrawal.value_usd > 200").replace("\n", "\n  "),
                        List.of()),
                new Case("a rule of every wallet shadows one of fewer", "- " + Fixtures.policy("all", "big", "DENY",
                        "withdrawal.value_usd > 100").replace("\n", "\n  ") + "\n- "
                        + Fixtures.policy("one", "bigger", "DENY", "withdrawal.value_usd > 200").replace("\n", "\n  ")
                        + "wallet_ids: [" + W1 + "]\n",
                        List.of("shadowed bigger big")),
                new Case("overridden by a DENY rule", Fixtures.policy("p",
                        "fast-lane", "ALLOW", "!withdrawal.is_whitelisted && withdrawal.value_usd < 10.0",
                        "unlisted", "DENY", "!withdrawal.is_whitelisted"),
                        List.of("overridden fast-lane unlisted")),
                new Case("duplicate condition written differently", Fixtures.policy("p",
                        "a", "DENY", "withdrawal.value_usd > 10 && withdrawal.is_whitelisted",
                        "b", "DENY", "withdrawal.is_whitelisted && !(withdrawal.value_usd <= 10)"),
                        List.of("duplicate b a")),
                new Case("an equivalent rule of fewer wallets is no duplicate", "- " + Fixtures.policy("one", "a",
                        "DENY", "withdrawal.value_usd > 10").replace("\n", "\n  ") + "wallet_ids: [" + W1 + "]\n- "
                        + Fixtures.policy("all", "b", "DENY", "10 < withdrawal.value_usd").replace("\n", "\n  "),
                        List.of()),
                new Case("may_error on an absent optional field", Fixtures.policy("p",
                        "email", "DENY", "principal.user_email == \"ops@example.com\""),
                        List.of("may_error email")),
                new Case("may_error on a decoded argument that is not a string", Fixtures.policy("p",
                        "to web3.contract_call", "ALLOW",
                        "has(resource.decoded_args.to) && resource.decoded_args.to.startsWith(\"0xdead\")"),
                        List.of("may_error to")),
                new Case("no may_error when an earlier DENY rule covers the failure", Fixtures.policy("p",
                        "no-email", "DENY", "!has(principal.user_email)",
                        "email", "DENY", "principal.user_email == \"ops@example.com\""),
                        List.of()),
                new Case("guarded reads do not fail", Fixtures.policy("p",
                        "email", "DENY", "has(principal.user_email) && principal.user_email.endsWith(\"@x.io\")",
                        "method web3.contract_call", "DENY",
                        "has(resource.method_name) ? resource.method_name == \"approve\" : false"),
                        List.of()),
                new Case("outside the fragment", Fixtures.policy("p",
                        "regex", "DENY", "withdrawal.destination_address.matches(\"^0x0+$\")",
                        "size", "DENY", "size(withdrawal.asset_symbol) > 5",
                        "arith", "DENY", "wallet.outflow_24h + withdrawal.value_usd > 1000.0"),
                        List.of("not_analyzed regex", "not_analyzed size")));
    }

    @TestFactory
    Stream<DynamicTest> findingKinds() {
        return cases().map(c -> DynamicTest.dynamicTest(c.name(), () -> check(c)));
    }

    private void check(Case c) {
        Path sub = dir.resolve(c.name().replace(' ', '-'));
        sub.toFile().mkdirs();
        PolicySet set = Fixtures.yaml(sub, "policies", c.yaml());
        assertEquals(List.of(), set.problems());
        AnalysisReport report = Fixtures.analyze(set);
        List<String> got = new ArrayList<>();
        for (AnalysisFinding f : report.findings()) {
            StringBuilder s = new StringBuilder(f.kind().wireName() + " " + f.rule().ruleId());
            f.related().forEach(r -> s.append(' ').append(r.ruleId()));
            got.add(s.toString());
        }
        assertEquals(c.expected(), got, () -> report.findings().toString());
        for (AnalysisFinding f : report.findings()) {
            checkWitness(set, f);
        }
    }

    /** Replays a finding's witness through the engine and checks that it shows the finding. */
    static void checkWitness(PolicySet set, AnalysisFinding f) {
        switch (f.kind()) {
            case MAY_ERROR -> {
                assertNotNull(f.witness(), "may_error always has a witness");
                assertTrue(Replay.applies(f.rule(), f.witness()), "the rule's policy targets the witness");
                Decision d = Fixtures.decide(set, f.witness());
                assertEquals(Outcome.DENY, d.outcome());
                assertTrue(d.failClosed());
                assertEquals(FailureKind.RULE_ERROR, d.failure());
                assertEquals(Optional.empty(), Replay.value(f.rule(), f.witness()), "the rule itself fails");
            }
            case SHADOWED, OVERRIDDEN -> {
                assertNotNull(f.witness(), f.kind() + " witness");
                assertTrue(Replay.applies(f.rule(), f.witness()), "the rule's policy targets the witness");
                Decision d = Fixtures.decide(set, f.witness());
                assertEquals(Optional.of(true), Replay.value(f.rule(), f.witness()), "the rule is true on it");
                // by policy and rule id: generated sets repeat rule ids from policy to policy
                assertNotEquals(f.rule().policyId() + "/" + f.rule().ruleId(), d.policyId() + "/" + d.ruleId(),
                        "yet it is not the attributed rule");
                if (f.kind() == FindingKind.OVERRIDDEN) {
                    assertEquals(Outcome.DENY, d.outcome());
                } else if (f.rule().effect() == Effect.DENY) {
                    assertEquals(Outcome.DENY, d.outcome());
                    assertFalse(d.failClosed());
                }
            }
            default -> assertEquals(null, f.witness(), "no witness for " + f.kind());
        }
    }

    /**
     * A rule of one wallet shadowed by a rule of every wallet: its witness is on that wallet. Tidying tries the
     * plainest wallet first, on which the earlier rule still decides and the later one's condition is still true
     * (the condition alone), but its policy does not target it: not a witness of the finding.
     */
    @Test
    void theWitnessOfAWalletsRuleIsOnItsWallet() {
        PolicySet set = Fixtures.yaml(dir, "walleted", "- " + Fixtures.policy("all", "any", "DENY",
                "withdrawal.value_usd > 100").replace("\n", "\n  ").stripTrailing() + "\n- "
                + Fixtures.policy("one", "big", "DENY", "withdrawal.value_usd > 1000").replace("\n", "\n  ")
                + "wallet_ids: [" + W1 + "]\n");
        assertEquals(List.of(), set.problems());
        AnalysisReport r = Fixtures.analyze(set);
        assertEquals(1, r.findings().size(), r.findings()::toString);
        AnalysisFinding f = r.findings().get(0);
        assertEquals(FindingKind.SHADOWED, f.kind());
        assertEquals("one/big", f.rule().label());
        assertEquals(W1, f.witness().get("wallet_id"));
        checkWitness(set, f);
    }

    @Test
    void anEquivalentRuleOfMoreWalletsIsAnalysedAndNoDuplicate() {
        // the earlier rule targets one wallet, the later every wallet: the same condition (once written the same,
        // once differently) is decided "no duplicate", not left as an unanswered question
        for (String later : List.of("withdrawal.value_usd > 10", "10 < withdrawal.value_usd")) {
            PolicySet set = Fixtures.yaml(dir, "wider", "- " + Fixtures.policy("one", "a", "DENY",
                    "withdrawal.value_usd > 10").replace("\n", "\n  ") + "wallet_ids: [" + W1 + "]\n- "
                    + Fixtures.policy("all", "b", "DENY", later).replace("\n", "\n  "));
            AnalysisReport r = Fixtures.analyze(set);
            assertEquals(List.of(), r.findings(), later);
            assertEquals(2, r.rules());
            assertEquals(2, r.analyzed(), later);
        }
    }

    @Test
    void timeOutIsUnknown() {
        // sums of cubes: beyond what the solver decides in a fraction of a second
        String cubes = "(wallet.withdrawal_count_1h - workspace.withdrawal_count_1h) * "
                + "(wallet.withdrawal_count_1h - workspace.withdrawal_count_1h) * "
                + "(wallet.withdrawal_count_1h - workspace.withdrawal_count_1h) + "
                + "(workspace.network_withdrawal_count_1h - 7) * (workspace.network_withdrawal_count_1h - 7) * "
                + "(workspace.network_withdrawal_count_1h - 7) + context.hour * context.hour * context.hour == 42";
        PolicySet set = Fixtures.yaml(dir, "cubes", Fixtures.policy("p", "cubes", "DENY", cubes));
        AnalysisReport r = new PolicyAnalyzer(300).analyze(set, Optional.empty());
        assertEquals(FindingKind.UNKNOWN, r.findings().get(0).kind(), r.findings().toString());
        assertEquals(0, r.analyzed());
        assertEquals(1, r.rules());
    }

    @Test
    void rulesOfInactivePoliciesAndDisabledRulesAreNotAnalysed() {
        String yaml = """
                - id: off
                  name: pending policy
                  approval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf
                  status: pending
                  rules:
                    - {rule_id: x, trigger_action: withdrawal.create, effect: DENY, condition: 'context.hour > 30'}
                - id: on
                  name: active policy
                  approval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf
                  rules:
                    - {rule_id: y, trigger_action: withdrawal.create, effect: DENY, condition: 'context.hour > 30',
                       is_enabled: false}
                """;
        assertTrue(yaml.contains("is_enabled: false"), yaml);
        PolicySet set = Fixtures.yaml(dir, "status", yaml);
        assertEquals(List.of(), set.problems());
        AnalysisReport r = Fixtures.analyze(set);
        assertEquals(0, r.rules(), set.rules().toString());
        assertEquals(List.of(), r.findings());
    }
}
