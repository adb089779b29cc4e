package dev.custody.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.PolicyEngine;
import dev.custody.engine.Decision;
import dev.custody.engine.Outcome;
import dev.custody.engine.check.ActionReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * No random valid action contradicts a claim of the analysis: an unsatisfiable rule is never true, an always-true
 * rule never anything else, a shadowed or duplicate rule never the attributed one, an overridden ALLOW rule never
 * true without a DENY decision, sets proved equivalent never decide differently. Small generated policy sets
 * (conditions over a few fields, with optional fields read unguarded and wallet targeting), actions drawn around
 * the constants the conditions use. Tries are bounded so that the suite stays fast.
 */
class SoundnessProperties {
    private static final String W1 = "aa0fe024-832e-4282-a4e2-c85e2b7ae138";
    private static final String W2 = "895b1bdd-5eab-441c-ba7a-0bf66bbbd03b";

    /** One generated rule: effect, condition, whether its policy targets W1 only. */
    record GenRule(String effect, String condition, boolean w1Only) {}

    /** A rule whose condition may narrow the first rule's (so that shadowing and overriding come up often). */
    record Draft(GenRule rule, boolean narrowsFirst) {}

    @Provide
    Arbitrary<String> atom() {
        return Arbitraries.oneOf(
                Arbitraries.of(100, 1000, 5000).map(n -> "withdrawal.value_usd > " + n),
                Arbitraries.of(100, 1000, 5000).map(n -> "withdrawal.value_usd <= " + n + ".0"),
                Arbitraries.of(6, 12, 22).map(h -> "context.hour < " + h),
                Arbitraries.just("withdrawal.is_whitelisted"),
                Arbitraries.of("owner", "signer", "guest").map(r -> "principal.role == \"" + r + "\""),
                Arbitraries.just("principal.user_email.endsWith(\"@example.com\")"),
                Arbitraries.just("has(principal.user_email)"),
                Arbitraries.just("withdrawal.asset_symbol in [\"BTC\", \"ETH\"]"),
                Arbitraries.of("context.hour > 23", "context.hour >= 0", "principal.role == \"root\""));
    }

    @Provide
    Arbitrary<String> condition() {
        Arbitrary<String> a = atom();
        return Arbitraries.oneOf(a, a.map(x -> "!(" + x + ")"),
                Combinators.combine(a, a).as((x, y) -> "(" + x + ") && (" + y + ")"),
                Combinators.combine(a, a).as((x, y) -> "(" + x + ") || (" + y + ")"));
    }

    @Provide
    Arbitrary<List<GenRule>> rules() {
        Arbitrary<GenRule> rule = Combinators.combine(Arbitraries.of("ALLOW", "DENY"), condition(),
                Arbitraries.integers().between(0, 3).map(i -> i == 0)).as(GenRule::new);
        Arbitrary<Draft> draft = Combinators.combine(rule, Arbitraries.of(true, false)).as(Draft::new);
        return draft.list().ofMinSize(1).ofMaxSize(5).map(ds -> {
            List<GenRule> out = new ArrayList<>();
            for (Draft d : ds) {
                GenRule g = d.rule();
                if (d.narrowsFirst() && !out.isEmpty()) {
                    g = new GenRule(g.effect(), "(" + out.get(0).condition() + ") && (" + g.condition() + ")",
                            g.w1Only());
                }
                out.add(g);
            }
            return out;
        });
    }

    @Provide
    Arbitrary<List<Map<String, Object>>> actions() {
        Arbitrary<Map<String, Object>> action = Combinators.combine(
                Arbitraries.of(W1, W2),
                Arbitraries.of(0.0, 99.5, 100.0, 100.5, 1000.0, 4999.0, 5000.0, 5000.25, 20000.0),
                Arbitraries.integers().between(0, 23),
                Arbitraries.of(true, false),
                Arbitraries.of("owner", "admin", "signer", "proposer", "viewer", "guest"),
                Arbitraries.of("", "a@example.com", "b@evil.io", "-"),
                Arbitraries.of("BTC", "ETH", "USDC")).as(SoundnessProperties::action);
        return action.list().ofSize(40);
    }

    private static Map<String, Object> action(String wallet, double usd, int hour, boolean listed, String role,
            String email, String asset) {
        Map<String, Object> principal = new LinkedHashMap<>();
        principal.put("role", role);
        if (!email.equals("-")) {
            principal.put("user_email", email);
        }
        Map<String, Object> w = new LinkedHashMap<>();
        w.put("amount", 1.0);
        w.put("value_usd", usd);
        w.put("asset_symbol", asset);
        w.put("asset_is_native", true);
        w.put("destination_address", "0xabc");
        w.put("network_code", "ETHEREUM_MAINNET");
        w.put("is_whitelisted", listed);
        w.put("address_age_sec", 10);
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("id", "random");
        a.put("action", "withdrawal.create");
        a.put("wallet_id", wallet);
        a.put("at", ActionSpace.instant("Wednesday", hour));
        a.put("principal", principal);
        a.put("withdrawal", w);
        a.put("wallet", Map.of("outflow_1h", 0, "outflow_6h", 0, "outflow_24h", 0, "withdrawal_count_1h", 0));
        a.put("workspace", Map.of("outflow_1h", 0, "outflow_6h", 0, "outflow_24h", 0, "withdrawal_count_1h", 0,
                "network_outflow_1h", 0, "network_outflow_6h", 0, "network_outflow_24h", 0,
                "network_withdrawal_count_1h", 0));
        return a;
    }

    private static PolicySet write(String name, List<GenRule> rules) throws IOException {
        Path dir = Files.createTempDirectory("soundness");
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < rules.size(); i++) {
            GenRule r = rules.get(i);
            s.append("- id: p").append(i).append("\n  name: policy ").append(i)
                    .append("\n  approval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf\n");
            if (r.w1Only()) {
                s.append("  wallet_ids: [").append(W1).append("]\n");
            }
            s.append("  rules:\n    - rule_id: r").append(i).append("\n      trigger_action: withdrawal.create")
                    .append("\n      effect: ").append(r.effect()).append("\n      condition: '")
                    .append(r.condition().replace("'", "''")).append("'\n");
        }
        Path f = dir.resolve(name + ".yaml");
        Files.writeString(f, s.toString());
        dir.toFile().deleteOnExit();
        f.toFile().deleteOnExit();
        PolicySet set = Fixtures.read(f);
        assertEquals(List.of(), set.problems(), s::toString);
        return set;
    }

    private static Decision decide(PolicyEngine engine, Map<String, Object> action) {
        return engine.evaluate(((ActionReader.Read) ActionReader.fromMap(new LinkedHashMap<>(action))).action(), false);
    }

    private static boolean applies(AnalyzedRule r, Map<String, Object> action) {
        return r.walletIds().isEmpty() || r.walletIds().contains(action.get("wallet_id"));
    }

    @Property(tries = 20)
    void noActionContradictsAFinding(@ForAll("rules") List<GenRule> rules,
            @ForAll("actions") List<Map<String, Object>> actions) throws IOException {
        PolicySet set = write("policies", rules);
        AnalysisReport report = Fixtures.analyze(set);
        PolicyEngine engine = Fixtures.engine(set);
        for (AnalysisFinding f : report.findings()) {
            FindingKindsTest.checkWitness(set, f);
            net.jqwik.api.statistics.Statistics.label("finding").collect(f.kind().wireName());
        }
        for (Map<String, Object> a : actions) {
            Decision d = decide(engine, a);
            for (AnalysisFinding f : report.findings()) {
                AnalyzedRule r = f.rule();
                Optional<Boolean> v = Replay.value(r, a);
                String why = f + " on " + a + " decided " + d;
                switch (f.kind()) {
                    case UNSATISFIABLE -> assertNotEquals(Optional.of(true), v, why);
                    case ALWAYS_TRUE -> assertEquals(Optional.of(true), v, why);
                    case SHADOWED -> {
                        // a claim about matching: a rule that fails is attributed its fail-closed DENY whatever
                        // rules are true before it, which is may_error's finding, not this one's
                        if (!d.failClosed()) {
                            assertNotEquals(r.ruleId(), d.ruleId(), why);
                        }
                    }
                    case DUPLICATE -> {
                        assertNotEquals(r.ruleId(), d.ruleId(), why);
                        assertEquals(Replay.value(f.related().get(0), a), v, why);
                    }
                    case OVERRIDDEN -> {
                        if (applies(r, a) && v.equals(Optional.of(true))) {
                            assertEquals(Outcome.DENY, d.outcome(), why);
                        }
                    }
                    default -> {
                        // may_error has a witness (checked above); not_analyzed and unknown claim nothing
                    }
                }
            }
        }
    }

    @Property(tries = 15)
    void setsCalledEquivalentNeverDecideDifferently(@ForAll("rules") List<GenRule> rules,
            @ForAll("actions") List<Map<String, Object>> actions, @ForAll("mutation") int mutation) throws IOException {
        List<GenRule> head = new ArrayList<>(rules);
        switch (mutation) {
            case 0 -> java.util.Collections.reverse(head);
            case 1 -> head.set(0, new GenRule(head.get(0).effect(), "!!(" + head.get(0).condition() + ")",
                    head.get(0).w1Only()));
            case 2 -> head.set(0, new GenRule(head.get(0).effect(), "(" + head.get(0).condition() + ") && "
                    + "context.hour >= 0", head.get(0).w1Only()));
            default -> {
                if (head.size() > 1) {
                    head.remove(head.size() - 1);
                }
            }
        }
        PolicySet b = write("base", rules);
        PolicySet h = write("head", head);
        SemanticDiff.Result r = new SemanticDiff(5000).compare(b, h, Optional.empty());
        for (SemanticDiff.Difference d : r.differences()) {
            assertEquals(d.from(), Fixtures.decide(b, d.witness()).outcome());
            assertEquals(d.to(), Fixtures.decide(h, d.witness()).outcome());
            assertTrue(!Fixtures.decide(b, d.witness()).sameAs(Fixtures.decide(h, d.witness())));
        }
        net.jqwik.api.statistics.Statistics.label("diff").collect(r.equivalent() ? "equivalent"
                : r.differences().isEmpty() ? "undecided" : "different");
        if (r.equivalent()) {
            PolicyEngine be = Fixtures.engine(b);
            PolicyEngine he = Fixtures.engine(h);
            for (Map<String, Object> a : actions) {
                Decision x = decide(be, a);
                Decision y = decide(he, a);
                assertTrue(x.sameAs(y), () -> "proved equivalent, yet " + a + ": " + x + " vs " + y);
            }
        }
    }

    @Provide
    Arbitrary<Integer> mutation() {
        return Arbitraries.integers().between(0, 3);
    }
}
