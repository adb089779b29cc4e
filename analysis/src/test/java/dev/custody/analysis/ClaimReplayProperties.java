package dev.custody.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.PolicyEngine;
import dev.custody.engine.Decision;
import dev.custody.engine.Outcome;
import dev.custody.engine.check.ActionReader;
import dev.custody.engine.check.PayloadResult;
import dev.custody.engine.check.PayloadValidator;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.FieldType;
import dev.custody.engine.schema.TriggerAction;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Soundness by replay (issue 23): every claim {@code analyze} makes on a generated policy set, and every
 * {@code equivalent} of {@code diff --semantic}, is attacked with counterexample actions replayed through
 * {@link PolicyEngine}; none may refute it. Conditions mix int and double fields and constants at the boundaries
 * where the reals and cel-java part (±2^53, ±2^53±1, 2^62, 2^63, the largest doubles, {@code 0}, {@code -0.0}),
 * with double arithmetic ({@code x - 0.5}, {@code x + 1.0}, {@code (x + 1.0) - x}) and int arithmetic, over both
 * trigger actions ({@code web3.contract_call} with {@code resource.gas_limit} and string {@code decoded_args}
 * keys). The counterexamples: for each field the conditions read, each constant they hold as that field's type
 * (rounded to the nearest double, truncated to a long), ±1, ±2, the next double up and down, 0, -0.0, 2^53±1,
 * 2^62+1, the largest long and double, combined at random (a seeded {@link Random}), every one a valid action.
 *
 * <p>Tries are bounded for {@code verify}; {@link ClaimReplayLongRun} runs the same checks many more times.
 */
class ClaimReplayProperties {
    static final String W = "aa0fe024-832e-4282-a4e2-c85e2b7ae138";

    /** Counterexample actions tried per policy set. */
    static final int ACTIONS = 250;

    /** One generated rule. */
    record GenRule(String effect, String action, String condition) {}

    private static final List<String> INTS = List.of("0", "1", "5", "9007199254740991", "9007199254740992",
            "9007199254740993", "4611686018427387904", "4611686018427387905", "9223372036854775807",
            "-9007199254740993", "-1");
    private static final List<String> DOUBLES = List.of("0.0", "-0.0", "0.5", "1.0", "1.0000000000000002",
            "9007199254740992.0", "9007199254740994.0", "9.007199254740993e15", "4611686018427387904.0",
            "9223372036854775807.0", "1.7976931348623157e308", "-1.7976931348623157e308", "-9007199254740992.0");

    @Provide
    Arbitrary<String> withdrawalAtom() {
        Arbitrary<String> dbl = Arbitraries.of("withdrawal.value_usd", "withdrawal.amount", "wallet.outflow_1h");
        Arbitrary<String> intf = Arbitraries.of("wallet.withdrawal_count_1h", "workspace.withdrawal_count_1h");
        Arbitrary<String> op = Arbitraries.of("<", "<=", ">", ">=");
        Arbitrary<String> eq = Arbitraries.of("==", "!=", "<", "<=", ">", ">=");
        Arbitrary<String> dterm = Arbitraries.oneOf(dbl, dbl.map(x -> x + " - 0.5"), dbl.map(x -> x + " + 1.0"),
                dbl.map(x -> "(" + x + " + 1.0) - " + x), dbl.map(x -> x + " * -1.0"), dbl.map(x -> "-" + x),
                Combinators.combine(dbl, dbl).as((x, y) -> x + " + " + y));
        Arbitrary<String> iterm = Arbitraries.oneOf(intf, intf.map(x -> x + " + 1"), intf.map(x -> x + " - 1"),
                intf.map(x -> "-" + x), intf.map(x -> x + " * 2"), Combinators.combine(intf, intf).as((x, y) -> x
                        + " - " + y));
        return Arbitraries.oneOf(
                // same types: == allowed
                Combinators.combine(dterm, eq, Arbitraries.of(DOUBLES)).as((t, o, c) -> t + " " + o + " " + c),
                Combinators.combine(iterm, eq, Arbitraries.of(INTS)).as((t, o, c) -> t + " " + o + " " + c),
                // mixed: ordering only (the checker refuses == across int and double)
                Combinators.combine(dterm, op, Arbitraries.of(INTS)).as((t, o, c) -> t + " " + o + " " + c),
                Combinators.combine(iterm, op, Arbitraries.of(DOUBLES)).as((t, o, c) -> t + " " + o + " " + c),
                Combinators.combine(dbl, op, intf).as((x, o, y) -> x + " " + o + " " + y),
                Combinators.combine(dterm, op, dterm).as((x, o, y) -> x + " " + o + " " + y));
    }

    @Provide
    Arbitrary<String> web3Atom() {
        Arbitrary<String> intf = Arbitraries.of("resource.gas_limit", "context.hour");
        Arbitrary<String> op = Arbitraries.of("<", "<=", ">", ">=");
        return Arbitraries.oneOf(
                Combinators.combine(intf, op, Arbitraries.of(DOUBLES)).as((t, o, c) -> t + " " + o + " " + c),
                Combinators.combine(intf, op, Arbitraries.of(INTS)).as((t, o, c) -> t + " " + o + " " + c),
                Arbitraries.of("resource.gas_limit - context.hour >= 0.1", "resource.gas_limit * 2 > 9007199254740993",
                        "-resource.gas_limit < 5", "resource.gas_limit + 1 > 0",
                        "has(resource.decoded_args.to) && resource.decoded_args.to == \"0xabc\"",
                        // guarded: an unguarded decoded_args read is a validation error, and the set would not compile
                        "has(resource.decoded_args.to) && resource.decoded_args.to.startsWith(\"0x\")",
                        "has(resource.decoded_args.value) && resource.decoded_args[\"value\"] == \"1\"",
                        "has(resource.decoded_args.value)"));
    }

    private static Arbitrary<String> condition(Arbitrary<String> a) {
        return Arbitraries.oneOf(a, a.map(x -> "!(" + x + ")"),
                Combinators.combine(a, a).as((x, y) -> "(" + x + ") && (" + y + ")"),
                Combinators.combine(a, a).as((x, y) -> "(" + x + ") || (" + y + ")"));
    }

    @Provide
    Arbitrary<List<GenRule>> rules() {
        Arbitrary<GenRule> withdrawal = Combinators.combine(Arbitraries.of("ALLOW", "DENY"),
                condition(withdrawalAtom())).as((e, c) -> new GenRule(e, "withdrawal.create", c));
        Arbitrary<GenRule> web3 = Combinators.combine(Arbitraries.of("ALLOW", "DENY"), condition(web3Atom()))
                .as((e, c) -> new GenRule(e, "web3.contract_call", c));
        Arbitrary<GenRule> rule = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, withdrawal), net.jqwik.api.Tuple.of(1, web3));
        // a rule may repeat an earlier one's condition with a constant rewritten (duplicates and shadows come up)
        return rule.list().ofMinSize(1).ofMaxSize(4).map(ClaimReplayProperties::withEchoes);
    }

    private static List<GenRule> withEchoes(List<GenRule> rules) {
        List<GenRule> out = new ArrayList<>(rules);
        if (out.size() >= 2 && out.get(0).action().equals(out.get(1).action())
                && out.get(0).condition().hashCode() % 3 == 0) {
            GenRule f = out.get(0);
            out.set(1, new GenRule(out.get(1).effect(), f.action(), "(" + f.condition() + ") && ("
                    + out.get(1).condition() + ")"));
        }
        return out;
    }

    @Property(tries = 10)
    void noClaimIsRefutedByAReplayedAction(@ForAll("rules") List<GenRule> rules, @ForAll long seed)
            throws IOException {
        checkClaims(rules, seed);
    }

    @Property(tries = 6)
    void equivalentSetsDecideEveryReplayedActionAlike(@ForAll("rules") List<GenRule> rules,
            @ForAll("rewrite") int rewrite, @ForAll long seed) throws IOException {
        checkEquivalence(rules, rewrite, seed);
    }

    @Provide
    Arbitrary<Integer> rewrite() {
        return Arbitraries.integers().between(0, REWRITES.size());
    }

    /**
     * Pairs of conditions that mean the same over the reals; some mean the same in cel-java too (an int constant
     * and the double it rounds to, compared with a double field), others do not (rounding, 2^62+1, -0.0).
     */
    static final List<List<String>> REWRITES = List.of(
            List.of("(withdrawal.amount + 1.0) - withdrawal.amount == 1.0 && withdrawal.amount > 5.0",
                    "withdrawal.amount > 5.0"),
            List.of("withdrawal.value_usd > 3.0 && !(withdrawal.value_usd - 0.5 >= withdrawal.value_usd)",
                    "withdrawal.value_usd > 3.0"),
            List.of("wallet.withdrawal_count_1h <= 4611686018427387904.0",
                    "wallet.withdrawal_count_1h <= 4611686018427387904"),
            List.of("wallet.outflow_1h < 0 || withdrawal.amount > 7.0", "withdrawal.amount > 7.0"),
            List.of("withdrawal.value_usd > 9007199254740993", "withdrawal.value_usd > 9007199254740992.0"),
            List.of("wallet.withdrawal_count_1h < 9223372036854775807.0",
                    "wallet.withdrawal_count_1h < 9223372036854775807"),
            List.of("withdrawal.amount * 2.0 > 10.0", "withdrawal.amount > 5.0"));

    // ---------------------------------------------------------------------------------------------------

    /** Writes the set, analyses it, and attacks every claim. */
    static void checkClaims(List<GenRule> rules, long seed) throws IOException {
        PolicySet set = write("claims", rules);
        AnalysisReport report = Fixtures.analyze(set);
        PolicyEngine engine = Fixtures.engine(set);
        for (AnalysisFinding f : report.findings()) {
            FindingKindsTest.checkWitness(set, f);
            Statistics.label("claim").collect(f.kind().wireName());
        }
        for (Map<String, Object> a : counterexamples(rules, seed)) {
            Decision d = decide(engine, a);
            for (AnalysisFinding f : report.findings()) {
                AnalyzedRule r = f.rule();
                if (!r.action().wireName().equals(a.get("action"))) {
                    continue;
                }
                Optional<Boolean> v = Replay.value(r, a);
                String why = f.kind() + " " + r.ruleId() + " `" + r.condition().source() + "` refuted by " + a
                        + ": rule gives " + v + ", decision " + d;
                switch (f.kind()) {
                    case UNSATISFIABLE -> assertNotEquals(Optional.of(true), v, why);
                    case ALWAYS_TRUE -> assertEquals(Optional.of(true), v, why);
                    case DUPLICATE -> {
                        assertEquals(Replay.value(f.related().get(0), a), v, why);
                        assertNotEquals(r.ruleId(), d.ruleId(), why);
                    }
                    case SHADOWED -> {
                        if (v.equals(Optional.of(true)) && !d.failClosed()) {
                            assertNotEquals(r.ruleId(), d.ruleId(), why);
                        }
                    }
                    case OVERRIDDEN -> {
                        if (v.equals(Optional.of(true))) {
                            assertEquals(Outcome.DENY, d.outcome(), why);
                        }
                    }
                    default -> {
                        // may_error: its witness replayed above; not_analyzed and unknown claim nothing
                    }
                }
            }
        }
    }

    /** Diffs the set against a rewriting of it; when the diff says equivalent, no action tells them apart. */
    static void checkEquivalence(List<GenRule> rules, int rewrite, long seed) throws IOException {
        List<GenRule> head = new ArrayList<>(rules);
        if (rewrite < REWRITES.size()) {
            String effect = rules.get(0).effect();
            rules = new ArrayList<>(rules);
            rules.set(0, new GenRule(effect, "withdrawal.create", REWRITES.get(rewrite).get(0)));
            head.set(0, new GenRule(effect, "withdrawal.create", REWRITES.get(rewrite).get(1)));
        } else {
            java.util.Collections.reverse(head);
        }
        List<GenRule> base = rules;
        PolicySet b = write("base", base);
        PolicySet h = write("head", head);
        SemanticDiff.Result r = new SemanticDiff(PolicyAnalyzer.DEFAULT_TIMEOUT_MS).compare(b, h,
                Optional.empty());
        for (SemanticDiff.Difference d : r.differences()) {
            assertTrue(!Fixtures.decide(b, d.witness()).sameAs(Fixtures.decide(h, d.witness())), d.toString());
        }
        Statistics.label("diff").collect(r.equivalent() ? "equivalent"
                : r.differences().isEmpty() ? "undecided" : "different");
        if (r.equivalent()) {
            PolicyEngine be = Fixtures.engine(b);
            PolicyEngine he = Fixtures.engine(h);
            List<GenRule> both = new ArrayList<>(base);
            both.addAll(head);
            for (Map<String, Object> a : counterexamples(both, seed)) {
                Decision x = decide(be, a);
                Decision y = decide(he, a);
                assertTrue(x.sameAs(y), () -> "proved equivalent, yet " + a + ": " + x + " vs " + y + "\nbase "
                        + base + "\nhead " + head);
            }
        }
    }

    private static final Pattern NUMBER = Pattern.compile("(?<![\\w.])-?\\d+(\\.\\d+)?(e-?\\d+)?");
    private static final Pattern FIELD = Pattern.compile("\\b(withdrawal|wallet|workspace|resource|context)\\.(\\w+)");

    /** Valid actions of both trigger actions, the numeric fields the rules read set from boundary candidates. */
    static List<Map<String, Object>> counterexamples(List<GenRule> rules, long seed) {
        Set<BigDecimal> constants = new TreeSet<>();
        Set<String> fields = new LinkedHashSet<>();
        for (GenRule g : rules) {
            Matcher m = NUMBER.matcher(g.condition());
            while (m.find()) {
                constants.add(new BigDecimal(m.group()));
            }
            Matcher f = FIELD.matcher(g.condition());
            while (f.find()) {
                fields.add(f.group());
            }
        }
        List<Double> doubles = new ArrayList<>();
        List<Long> longs = new ArrayList<>();
        for (BigDecimal c : constants) {
            double d = c.doubleValue();
            for (double x : new double[] {d, Math.nextUp(d), Math.nextDown(d), d + 1, d - 1, d - 0.5, d + 0.5}) {
                if (Double.isFinite(x)) {
                    doubles.add(x);
                }
            }
            // the longs on both sides of the constant, and of the double it rounds to
            for (BigDecimal x : new BigDecimal[] {c, new BigDecimal(d)}) {
                BigDecimal floor = x.setScale(0, java.math.RoundingMode.FLOOR);
                for (int k = -2; k <= 2; k++) {
                    BigDecimal y = floor.add(BigDecimal.valueOf(k));
                    if (y.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) >= 0
                            && y.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0) {
                        longs.add(y.longValueExact());
                    }
                }
            }
        }
        for (double x : new double[] {0.0, -0.0, 1.0, 0.5, 1.0000000000000002, 0x1p53, 0x1p53 + 2, 0x1p62, 0x1p63,
                Double.MAX_VALUE, Double.MIN_VALUE}) {
            doubles.add(x);
        }
        for (long x : new long[] {0, 1, 2, 23, (1L << 53) - 1, 1L << 53, (1L << 53) + 1, (1L << 62) + 1,
                (1L << 62) + 512, (1L << 62) + 513, Long.MAX_VALUE, Long.MAX_VALUE - 1, Long.MAX_VALUE / 2 + 1}) {
            longs.add(x);
        }
        Random random = new Random(seed);
        List<Map<String, Object>> out = new ArrayList<>();
        for (TriggerAction action : TriggerAction.values()) {
            List<FieldSpec> numeric = new ArrayList<>();
            for (FieldSpec f : FieldSchema.fields(action)) {
                if ((f.type() == FieldType.NUMBER || f.type() == FieldType.INTEGER) && fields.contains(f.path())) {
                    numeric.add(f);
                }
            }
            int tries = numeric.isEmpty() ? 8 : ACTIONS;
            for (int i = 0; i < tries; i++) {
                Map<String, Object> values = new LinkedHashMap<>();
                for (FieldSpec f : numeric) {
                    Object v;
                    if (f.type() == FieldType.NUMBER) {
                        v = doubles.get(random.nextInt(doubles.size()));
                    } else if (f.path().equals("context.hour")) {
                        v = (long) random.nextInt(24);
                    } else {
                        v = longs.get(random.nextInt(longs.size()));
                    }
                    values.put(f.path(), v);
                }
                Map<String, Object> a = action(action, values, random.nextInt(4), i);
                if (valid(a)) {
                    out.add(a);
                }
            }
        }
        return out;
    }

    /** An action of every field (numbers from {@code values}, else 0), with {@code decoded_args} by {@code args}. */
    static Map<String, Object> action(TriggerAction action, Map<String, Object> values, int args, int i) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("id", "cx-" + i);
        a.put("action", action.wireName());
        a.put("wallet_id", W);
        long hour = (Long) values.getOrDefault("context.hour", 12L);
        a.put("at", ActionSpace.instant("Wednesday", (int) hour));
        a.put("principal", Map.of("role", "owner"));
        if (action == TriggerAction.WITHDRAWAL_CREATE) {
            Map<String, Object> w = new LinkedHashMap<>();
            w.put("amount", values.getOrDefault("withdrawal.amount", 1.0));
            w.put("value_usd", values.getOrDefault("withdrawal.value_usd", 1.0));
            w.put("asset_symbol", "BTC");
            w.put("asset_is_native", true);
            w.put("destination_address", "0xabc");
            w.put("network_code", "ETHEREUM_MAINNET");
            w.put("is_whitelisted", true);
            w.put("address_age_sec", 10.0);
            a.put("withdrawal", w);
            Map<String, Object> wallet = new LinkedHashMap<>();
            wallet.put("outflow_1h", values.getOrDefault("wallet.outflow_1h", 0.0));
            wallet.put("outflow_6h", 0.0);
            wallet.put("outflow_24h", 0.0);
            wallet.put("withdrawal_count_1h", values.getOrDefault("wallet.withdrawal_count_1h", 0L));
            a.put("wallet", wallet);
            Map<String, Object> ws = new LinkedHashMap<>();
            for (String k : List.of("outflow_1h", "outflow_6h", "outflow_24h", "network_outflow_1h",
                    "network_outflow_6h", "network_outflow_24h")) {
                ws.put(k, 0.0);
            }
            ws.put("withdrawal_count_1h", values.getOrDefault("workspace.withdrawal_count_1h", 0L));
            ws.put("network_withdrawal_count_1h", 0L);
            a.put("workspace", ws);
        } else {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("network_code", "ETHEREUM_MAINNET");
            r.put("contract_address", "0xdac17f958d2ee523a2206206994597c13d831ec7");
            r.put("method_selector", "0xa9059cbb");
            r.put("value_wei", "0");
            r.put("gas_limit", values.getOrDefault("resource.gas_limit", 21000L));
            Map<String, Object> decoded = new LinkedHashMap<>();
            switch (args) {
                case 0 -> { }
                case 1 -> decoded.put("to", "0xabc");
                case 2 -> {
                    decoded.put("to", 7L);
                    decoded.put("value", "1");
                }
                default -> {
                    decoded.put("to", "1x");
                    decoded.put("value", 1L);
                }
            }
            r.put("decoded_args", decoded);
            a.put("resource", r);
        }
        return a;
    }

    private static boolean valid(Map<String, Object> a) {
        ActionReader.Result r = ActionReader.fromMap(new LinkedHashMap<>(a));
        return r instanceof ActionReader.Read read && PayloadValidator.validate(read.action(),
                Instant.parse((String) a.get("at"))) instanceof PayloadResult.Valid;
    }

    private static Decision decide(PolicyEngine engine, Map<String, Object> action) {
        return engine.evaluate(((ActionReader.Read) ActionReader.fromMap(new LinkedHashMap<>(action))).action(), false);
    }

    static PolicySet write(String name, List<GenRule> rules) throws IOException {
        Path dir = Files.createTempDirectory("claims");
        StringBuilder s = new StringBuilder("id: p\nname: generated\napproval_group_id: "
                + "985976e8-9faf-4e44-a2ed-b01af2ca04cf\nrules:\n");
        for (int i = 0; i < rules.size(); i++) {
            GenRule r = rules.get(i);
            s.append("  - rule_id: r").append(i).append("\n    trigger_action: ").append(r.action())
                    .append("\n    effect: ").append(r.effect()).append("\n    condition: '")
                    .append(r.condition().replace("'", "''")).append("'\n");
        }
        Path f = dir.resolve(name + ".yaml");
        Files.writeString(f, s.toString());
        f.toFile().deleteOnExit();
        dir.toFile().deleteOnExit();
        PolicySet set = Fixtures.read(f);
        assertEquals(List.of(), set.problems(), s::toString);
        return set;
    }
}
