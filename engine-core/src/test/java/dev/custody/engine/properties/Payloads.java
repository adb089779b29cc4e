package dev.custody.engine.properties;

import dev.custody.engine.Fixtures;
import dev.custody.engine.payload.Action;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Random actions. {@link #of} gives schema-shaped payloads: every field of the action's sections,
 * each one absent now and then, with values from the pools the conditions compare against, and a small
 * share of wrong types, negative numbers, unknown fields and foreign sections (malformed, so denied).
 * {@link #malformed} gives anything an {@link Action} can hold: unknown and null section and field
 * names, arbitrary Java objects, extreme instants, deep and cyclic-looking nesting.
 */
final class Payloads {
    static final String THIRD_WALLET = "33333333-3333-4333-8333-333333333333";
    /** Instants on several days and hours (night, weekend), and null (the evaluator's clock). */
    static final List<Instant> INSTANTS = List.of(Fixtures.TUESDAY_14H, Instant.parse("2026-11-08T03:30:00Z"),
            Instant.parse("2026-11-07T23:59:59Z"), Instant.parse("2026-11-02T00:00:00Z"));

    private Payloads() {}

    /** Wallet ids: the targeted ones (any case), an untargeted one, and now and then a malformed one. */
    static Arbitrary<String> walletIds() {
        return Arbitraries.frequencyOf(
                Tuple.of(8, Arbitraries.just(Fixtures.WALLET)),
                Tuple.of(3, Arbitraries.just(Fixtures.OTHER_WALLET)),
                Tuple.of(1, Arbitraries.just(Fixtures.WALLET.toUpperCase())),
                Tuple.of(2, Arbitraries.just(THIRD_WALLET)),
                Tuple.of(1, Arbitraries.of("not-a-uuid", "", "{11111111-1111-4111-8111-111111111111}").injectNull(0.2)));
    }

    /** A schema-shaped action of this trigger. */
    static Arbitrary<Action> of(TriggerAction action) {
        return of(action, false);
    }

    /**
     * A schema-shaped action of this trigger; with {@code extremes}, values also come from numeric boundaries
     * (Long.MAX_VALUE, 2^53 + 1, -0.0, Double.MAX_VALUE, 2^63 as a double, the smallest double) and strings that
     * {@code int()} and {@code double()} parse differently, for the differential properties.
     */
    static Arbitrary<Action> of(TriggerAction action, boolean extremes) {
        return of(action, extremes, false);
    }

    /**
     * As {@link #of(TriggerAction, boolean)}; with {@code complete}, every non-optional field is there (optional
     * fields and {@code decoded_args} keys still come and go): the actions the analysis speaks of.
     */
    static Arbitrary<Action> of(TriggerAction action, boolean extremes, boolean complete) {
        List<Arbitrary<Map.Entry<String, Object>>> fields = new ArrayList<>();
        for (Section s : FieldSchema.sections(action)) {
            if (s == Section.CONTEXT) {
                continue;
            }
            for (FieldSpec f : FieldSchema.fields(s)) {
                Arbitrary<Object> v = extremes ? Arbitraries.frequencyOf(Tuple.of(3, value(f)), Tuple.of(1, extreme(f)))
                        : value(f);
                fields.add(v.injectNull(f.optional() ? 0.25 : complete ? 0 : 0.03).map(x -> entry(f.path(), x)));
            }
        }
        Arbitrary<Map.Entry<String, Object>> oddity = Arbitraries.frequencyOf(
                Tuple.of(80, Arbitraries.just(entry("", null))),
                Tuple.of(1, Arbitraries.just(entry("withdrawal.value_usdd", 1.0))),
                Tuple.of(1, Arbitraries.just(entry("context.hour", 3L))),
                Tuple.of(1, Arbitraries.just(entry(action == TriggerAction.WITHDRAWAL_CREATE
                        ? "resource.gas_limit" : "withdrawal.amount", 1L))));
        fields.add(oddity);
        // now and then whole sections are left out (velocity blocks often are)
        List<String> sectionNames = FieldSchema.sections(action).stream().map(Section::wireName).toList();
        Arbitrary<java.util.Set<String>> dropped = Arbitraries.frequencyOf(
                Tuple.of(8, Arbitraries.just(java.util.Set.of())),
                Tuple.of(complete ? 0 : 1, Arbitraries.subsetOf(sectionNames)));
        return Combinators.combine(Combinators.combine(fields).as(List::copyOf), walletIds(),
                Arbitraries.of(INSTANTS).injectNull(0.2), dropped)
                .as((entries, wallet, at, drop) -> {
                    Action.Builder b = Action.builder(action).id("a").walletId(wallet).at(at);
                    for (Map.Entry<String, Object> e : entries) {
                        String section = e.getKey().isEmpty() ? "" : e.getKey().substring(0, e.getKey().indexOf('.'));
                        if (e.getValue() != null && !e.getKey().isEmpty() && !drop.contains(section)) {
                            b.field(e.getKey(), e.getValue());
                        }
                    }
                    return b.build();
                });
    }

    private static Map.Entry<String, Object> entry(String k, Object v) {
        return new java.util.AbstractMap.SimpleImmutableEntry<>(k, v);
    }

    private static Arbitrary<Object> value(FieldSpec f) {
        Arbitrary<Object> good = switch (f.type()) {
            case NUMBER -> Arbitraries.of(0.0, 0.5, 1.0, 2.0, 5.0, 20.0, 100.0, 999.0, 1000.0, 7400.0, 9999.99, 10000.0,
                    10001.0, 123456.78, 1e6);
            case INTEGER -> f.path().equals("resource.gas_limit")
                    ? Arbitraries.of(21000L, 60000L, 0L)
                    : Arbitraries.of(0L, 1L, 2L, 3L, 5L, 19L, 20L, 21L);
            case STRING -> strings(f);
            case BOOLEAN -> Arbitraries.of(true, false);
            case MAP -> decodedArgs();
        };
        Arbitrary<Object> odd = switch (f.type()) {
            // negatives (refused for amounts, allowed elsewhere), integral types, a numeric string
            case NUMBER -> Arbitraries.of(-1.0, -0.5, 3, 7400L, "7400", Double.NaN, new BigDecimal("1e400"));
            case INTEGER -> Arbitraries.of(-1L, 2.5, 3.0, 7, "2", new BigInteger("99999999999999999999"));
            case STRING -> Arbitraries.of(5L, true, "superuser");
            case BOOLEAN -> Arbitraries.of("true", 1L);
            case MAP -> Arbitraries.of("not a map", List.of("to"));
        };
        return Arbitraries.frequencyOf(Tuple.of(500, good), Tuple.of(1, odd));
    }

    /** Boundary values of a field's type, all of them valid for the field. */
    private static Arbitrary<Object> extreme(FieldSpec f) {
        return switch (f.type()) {
            // 2^53 and the doubles next to it, 2^63 and the double below it, the largest double, the doubles next to
            // the constants the rules use; whole doubles for int fields (read as the int they are)
            case NUMBER -> Arbitraries.of(-0.0, Double.MAX_VALUE, 1e300, Double.MIN_VALUE, 9.223372036854775807e18,
                    9.2233720368547748e18, 9007199254740993.0, 1e19, 4.5, 9007199254740992.0, 9007199254740994.0,
                    Math.nextDown(9007199254740992.0), Math.nextUp(7400.0), Math.nextDown(7400.0), Math.nextUp(10000.0),
                    Math.nextDown(10000.0), Math.nextUp(1.0), 7400.0, 10000.0, 4.611686018427387904e18);
            case INTEGER -> Arbitraries.of(Long.MAX_VALUE, Long.MAX_VALUE - 1, 4611686018427387904L, 9007199254740993L,
                    3037000500L, 2L, 9007199254740992L, 9007199254740991L, 9007199254740994L, 7400L, 10000L,
                    9007199254740992.0, 4.611686018427387904e18);
            case STRING -> f.enumValues().isEmpty()
                    ? Arbitraries.of("9223372036854775807", "9223372036854775808", "-0", "+5", " 1", "1d", "0x10", "1e3",
                            "NaN", "Infinity", "-Infinity", "0.5", "héllo", "ETH", "", "日本", "😀", "0xabc", "ops@example.com")
                    : Arbitraries.of(new ArrayList<Object>(f.enumValues()));
            case BOOLEAN -> Arbitraries.of(true, false);
            case MAP -> Arbitraries.of(Map.of("to", Long.MAX_VALUE, "value", -0.0), Map.of("amount", Double.MAX_VALUE),
                    Map.of("to", List.of(1L, 2.0, "x"), "value", Map.of("nested", "0xabc", "n", 5L)),
                    Map.of("spender", List.of(), "from", Map.of()), Map.of("to", "9223372036854775807", "value", "NaN"),
                    Map.of("amount", 9007199254740993L, "value", 9007199254740992.0, "to", "héllo"),
                    Map.of("to", "", "from", "0xabc", "spender", "日本"), Map.of("value", "0xabc", "amount", ""));
        };
    }

    private static Arbitrary<Object> strings(FieldSpec f) {
        if (!f.enumValues().isEmpty()) {
            return Arbitraries.of(new ArrayList<Object>(f.enumValues()));
        }
        if (f.path().equals("resource.value_wei")) {
            // the last two make int()/uint() fail at run time
            return Arbitraries.of("0", "1000000000000000000", "abc", "99999999999999999999");
        }
        return Arbitraries.of(new ArrayList<Object>(Conditions.STRINGS));
    }

    private static Arbitrary<Object> decodedArgs() {
        Arbitrary<Object> value = Arbitraries.of("0xabc", "0xdef", "1000000", "", 5L, 2.5, true, List.of("0xabc"),
                Map.of("nested", 1L));
        return Arbitraries.subsetOf(Conditions.DECODED_KEYS).flatMap(keys -> {
            if (keys.isEmpty()) {
                return Arbitraries.just(Map.of());
            }
            List<Arbitrary<Object>> values = new ArrayList<>();
            keys.forEach(k -> values.add(value));
            List<String> ordered = new ArrayList<>(keys);
            return Combinators.combine(values).as(vs -> {
                Map<String, Object> m = new LinkedHashMap<>();
                for (int i = 0; i < ordered.size(); i++) {
                    m.put(ordered.get(i), vs.get(i));
                }
                return (Object) m;
            });
        });
    }

    // ---- malformed actions ----

    /** Anything an {@link Action} can hold. */
    static Arbitrary<Action> malformed() {
        Arbitrary<String> sectionNames = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.of(Arrays.stream(Section.values()).map(Section::wireName).toList())),
                Tuple.of(1, Arbitraries.strings().ofMaxLength(12)),
                Tuple.of(1, Arbitraries.just((String) null)));
        Arbitrary<String> fieldNames = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.of(FieldSchema.fields(TriggerAction.WITHDRAWAL_CREATE).stream()
                        .map(FieldSpec::name).toList())),
                Tuple.of(3, Arbitraries.of(FieldSchema.fields(TriggerAction.WEB3_CONTRACT_CALL).stream()
                        .map(FieldSpec::name).toList())),
                Tuple.of(1, Arbitraries.strings().ofMaxLength(80)),
                Tuple.of(1, Arbitraries.just((String) null)));
        Arbitrary<Map<String, Object>> section = Arbitraries.maps(fieldNames, anything(3)).ofMaxSize(8)
                .map(m -> (Map<String, Object>) new HashMap<>(m)).injectNull(0.05);
        Arbitrary<Map<String, Map<String, Object>>> sections = Arbitraries.maps(sectionNames, section).ofMaxSize(6)
                .map(HashMap::new);
        Arbitrary<String> wallet = Arbitraries.frequencyOf(
                Tuple.of(4, walletIds()),
                Tuple.of(1, Arbitraries.strings().ofMaxLength(100)),
                Tuple.of(1, Arbitraries.just((String) null)));
        Arbitrary<Instant> at = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.of(INSTANTS)),
                Tuple.of(1, Arbitraries.of(Instant.MIN, Instant.MAX, Instant.EPOCH,
                        Instant.parse("-999999999-01-01T00:00:00Z"), Instant.parse("+999999999-12-31T23:59:59Z"))),
                Tuple.of(1, Arbitraries.just((Instant) null)));
        return Combinators.combine(Arbitraries.of(TriggerAction.class), wallet, at, sections,
                Arbitraries.strings().ofMaxLength(10).injectNull(0.3))
                .as((trigger, w, instant, s, workspace) -> new Action("m", trigger, w, workspace, instant, s));
    }

    /** Arbitrary Java values, nested up to {@code depth} levels of maps and lists. */
    static Arbitrary<Object> anything(int depth) {
        Arbitrary<Object> scalar = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.strings().ofMaxLength(20).map(s -> (Object) s)),
                Tuple.of(3, Arbitraries.longs().map(l -> (Object) l)),
                Tuple.of(3, Arbitraries.doubles().map(d -> (Object) d)),
                Tuple.of(1, Arbitraries.of(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, Double.MAX_VALUE,
                        Double.MIN_VALUE, Float.NaN, 1.5f, Long.MIN_VALUE, Integer.MIN_VALUE, (short) -3, (byte) 7,
                        new BigInteger("-123456789012345678901234567890"), new BigDecimal("1e-400"),
                        new BigDecimal("-1e400"), new BigDecimal("12345678901234567890.5"), new AtomicLong(5), 'c',
                        new byte[] {1, 2}, Optional.empty(), new Object(), true, false, "")));
        if (depth == 0) {
            return scalar;
        }
        Arbitrary<Object> sub = Arbitraries.lazy(() -> anything(depth - 1));
        Arbitrary<Object> list = sub.injectNull(0.05).list().ofMaxSize(4).map(l -> (Object) new ArrayList<>(l));
        Arbitrary<Object> map = Arbitraries.maps(Arbitraries.strings().ofMaxLength(6).injectNull(0.05), sub.injectNull(0.1))
                .ofMaxSize(4).map(m -> (Object) new HashMap<>(m));
        Arbitrary<Object> oddMap = Arbitraries.maps(Arbitraries.integers().between(0, 3), sub).ofMaxSize(2)
                .map(m -> (Object) new HashMap<>(m));
        return Arbitraries.frequencyOf(Tuple.of(6, scalar), Tuple.of(2, list), Tuple.of(2, map), Tuple.of(1, oddMap),
                Tuple.of(1, Arbitraries.integers().between(5, 40).map(Payloads::deepMap)),
                Tuple.of(1, Arbitraries.integers().between(900, 1500).map(n -> (Object) new ArrayList<>(
                        java.util.Collections.nCopies(n, (Object) "x")))));
    }

    private static Object deepMap(int depth) {
        Object v = "leaf";
        for (int i = 0; i < depth; i++) {
            Map<String, Object> m = new HashMap<>();
            m.put("k", v);
            v = i % 2 == 0 ? m : List.of(m);
        }
        return v;
    }
}
