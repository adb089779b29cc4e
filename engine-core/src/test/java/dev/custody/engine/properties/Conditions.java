package dev.custody.engine.properties;

import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.FieldType;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Random rule conditions, built from the field schema of a trigger action: comparisons of every field
 * type (with heterogeneous numeric literals), {@code &&}, {@code ||}, {@code !}, ternaries, {@code has()} on
 * optional fields and {@code resource.decoded_args} keys, guarded and unguarded reads, and conditions that
 * compile but can fail at run time (an absent optional field, a division by zero, an integer overflow, a
 * string compared with a number through {@code dyn}).
 *
 * <p>Literals come from the same small pools as {@link Payloads}, so comparisons are true often enough
 * for every decision to occur. A small share of conditions does not compile ({@link #invalid}), to
 * exercise invalid bundles.
 */
final class Conditions {
    /** String values shared by conditions and payloads. */
    static final List<String> STRINGS = List.of("ETH", "USDC", "0xabc", "0xdef", "ETHEREUM_MAINNET", "ops@example.com",
            "x@evil.com", "transfer", "0xa9059cbb", "", "a");
    /** Numeric literals: integers, fractions, exponents, a negative. */
    static final List<String> NUMBER_LITERALS = List.of("0", "1", "2", "5", "20", "100", "1000", "7400", "10000", "1e6",
            "0.5", "9999.99", "-1", "2.0", "23");
    /** Keys a decoded ERC-20 call has, plus one it never has. */
    static final List<String> DECODED_KEYS = List.of("to", "value", "spender", "from", "amount");

    private static final Map<TriggerAction, Arbitrary<String>> CONDITIONS = new EnumMap<>(TriggerAction.class);

    private Conditions() {}

    /** A random well-typed condition of this action (up to three levels of operators over leaves). */
    static synchronized Arbitrary<String> of(TriggerAction action) {
        return CONDITIONS.computeIfAbsent(action, a -> bool(a, 3));
    }

    /** Mostly well-typed conditions, and about one in {@code 1 + oneIn} that does not compile. */
    static Arbitrary<String> mostlyValid(TriggerAction action, int oneIn) {
        return Arbitraries.frequencyOf(Tuple.of(oneIn, of(action)), Tuple.of(1, invalid(action)));
    }

    /** Conditions that do not compile for this action. */
    static Arbitrary<String> invalid(TriggerAction action) {
        return action == TriggerAction.WITHDRAWAL_CREATE
                ? Arbitraries.of("withdrawal.amout > 1", "resource.gas_limit > 1", "withdrawal.value_usd",
                        "withdrawal.value_usd > 'x'", "withdrawal.value_usd >", "")
                : Arbitraries.of("resource.decoded_args.to == '0xabc'", "withdrawal.value_usd > 1",
                        "resource.gas_limit + 1.5 > 2", "resource.decoded_args[resource.method_selector] == 1", "(");
    }

    private static Arbitrary<String> bool(TriggerAction a, int depth) {
        Arbitrary<String> leaf = leaf(a);
        if (depth == 0) {
            return leaf;
        }
        Arbitrary<String> sub = Arbitraries.lazy(() -> bool(a, depth - 1));
        return Arbitraries.frequencyOf(
                Tuple.of(5, leaf),
                // operands in parentheses: a leaf such as `!has(x) || x == 'a'` must stay one operand
                Tuple.of(2, Combinators.combine(sub, sub).as((x, y) -> "(" + x + ") && (" + y + ")")),
                Tuple.of(2, Combinators.combine(sub, sub).as((x, y) -> "(" + x + ") || (" + y + ")")),
                Tuple.of(1, sub.map(x -> "!(" + x + ")")),
                Tuple.of(1, Combinators.combine(sub, sub, sub).as((c, x, y) -> "(" + c + ") ? (" + x + ") : (" + y + ")")));
    }

    private static Arbitrary<String> leaf(TriggerAction a) {
        List<FieldSpec> numbers = new ArrayList<>();
        List<FieldSpec> integers = new ArrayList<>();
        List<FieldSpec> strings = new ArrayList<>();
        List<FieldSpec> booleans = new ArrayList<>();
        List<FieldSpec> optionals = new ArrayList<>();
        for (FieldSpec f : FieldSchema.fields(a)) {
            switch (f.type()) {
                case NUMBER -> numbers.add(f);
                case INTEGER -> integers.add(f);
                case STRING -> strings.add(f);
                case BOOLEAN -> booleans.add(f);
                case MAP -> {
                }
            }
            if (f.optional()) {
                optionals.add(f);
            }
        }
        List<Tuple.Tuple2<Integer, Arbitrary<String>>> leaves = new ArrayList<>();
        List<FieldSpec> numeric = new ArrayList<>(numbers);
        numeric.addAll(integers);
        leaves.add(Tuple.of(5, Arbitraries.of(numeric).flatMap(Conditions::numericCompare)));
        leaves.add(Tuple.of(1, arithmetic(numbers, integers)));
        leaves.add(Tuple.of(4, Arbitraries.of(strings).flatMap(Conditions::stringCompare)));
        if (!booleans.isEmpty()) {
            leaves.add(Tuple.of(2, Arbitraries.of(booleans).flatMap(f -> Arbitraries.of(
                    f.path(), "!" + f.path(), f.path() + " == true", f.path() + " != false"))));
        }
        leaves.add(Tuple.of(2, Arbitraries.of("true", "true", "false")));
        leaves.add(Tuple.of(3, Arbitraries.of(optionals).flatMap(Conditions::optionalRead)));
        if (a == TriggerAction.WEB3_CONTRACT_CALL) {
            leaves.add(Tuple.of(4, decodedArgs()));
        }
        leaves.add(Tuple.of(1, errorProne(a, integers)));
        leaves.add(Tuple.of(1, Combinators.combine(Arbitraries.of(strings), Arbitraries.of(STRINGS), Arbitraries.of(STRINGS))
                .as((f, x, y) -> "['" + x + "', '" + y + "'].exists(s, " + f.path() + " == s)")));
        return Arbitraries.frequencyOf(leaves);
    }

    private static Arbitrary<String> numericCompare(FieldSpec f) {
        Arbitrary<String> ordering = Combinators.combine(Arbitraries.of("<", "<=", ">", ">="), Arbitraries.of(NUMBER_LITERALS))
                .as((op, lit) -> f.path() + " " + op + " " + lit);
        // == and != need a literal of the field's own type
        Arbitrary<String> typedLiteral = f.type() == FieldType.INTEGER
                ? Arbitraries.of("0", "1", "2", "3", "5", "14", "20", "-1")
                : Arbitraries.of("0.0", "1.0", "2.0", "7400.0", "10000.0", "1000000.0", "0.5");
        Arbitrary<String> equality = Combinators.combine(Arbitraries.of("==", "!="), typedLiteral)
                .as((op, lit) -> f.path() + " " + op + " " + lit);
        return Arbitraries.frequencyOf(Tuple.of(3, ordering), Tuple.of(1, equality));
    }

    private static Arbitrary<String> arithmetic(List<FieldSpec> numbers, List<FieldSpec> integers) {
        Arbitrary<String> doubles = Combinators.combine(Arbitraries.of(numbers), Arbitraries.of(numbers),
                Arbitraries.of("+", "-", "*"), Arbitraries.of(NUMBER_LITERALS))
                .as((x, y, op, lit) -> x.path() + " " + op + " " + y.path() + " > " + lit);
        Arbitrary<String> ints = Combinators.combine(Arbitraries.of(integers), Arbitraries.of(integers),
                Arbitraries.of("+", "-"), Arbitraries.of(NUMBER_LITERALS))
                .as((x, y, op, lit) -> x.path() + " " + op + " " + y.path() + " >= " + lit);
        return numbers.isEmpty() ? ints : Arbitraries.oneOf(doubles, ints);
    }

    private static Arbitrary<String> stringCompare(FieldSpec f) {
        List<String> pool = !f.enumValues().isEmpty() ? f.enumValues()
                : f.path().equals("context.day_of_week") ? FieldSchema.DAYS_OF_WEEK : STRINGS;
        Arbitrary<String> lit = Arbitraries.of(pool);
        String p = f.path();
        return Arbitraries.frequencyOf(
                Tuple.of(4, Combinators.combine(Arbitraries.of("==", "!="), lit).as((op, v) -> p + " " + op + " '" + v + "'")),
                Tuple.of(2, Combinators.combine(Arbitraries.of("startsWith", "endsWith", "contains"), lit)
                        .as((fn, v) -> p + "." + fn + "('" + v + "')")),
                Tuple.of(2, Combinators.combine(lit, lit).as((x, y) -> p + " in ['" + x + "', '" + y + "']")),
                Tuple.of(1, Arbitraries.of(p + ".matches('^0x[0-9a-f]+$')", "size(" + p + ") > 3")));
    }

    /** Reads of an optional field, guarded in every way the analyzer accepts, and unguarded (a warning). */
    private static Arbitrary<String> optionalRead(FieldSpec f) {
        String p = f.path();
        Arbitrary<String> read = stringCompare(f);
        return Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.just("has(" + p + ")")),
                Tuple.of(2, read.map(r -> "has(" + p + ") && " + r)),
                Tuple.of(1, read.map(r -> r + " && has(" + p + ")")),
                Tuple.of(1, read.map(r -> "!has(" + p + ") || " + r)),
                Tuple.of(1, read.map(r -> "(has(" + p + ") ? " + r + " : false)")),
                Tuple.of(1, read)); // unguarded: fails at run time when the field is absent
    }

    private static Arbitrary<String> decodedArgs() {
        String m = "resource.decoded_args";
        return Arbitraries.of(DECODED_KEYS).flatMap(k -> {
            String read = m + "." + k;
            String has = "has(" + read + ")";
            Arbitrary<String> lit = Arbitraries.of(STRINGS);
            return Arbitraries.frequencyOf(
                    Tuple.of(2, Arbitraries.just(has)),
                    Tuple.of(3, lit.map(v -> has + " && " + read + " == '" + v + "'")),
                    Tuple.of(1, lit.map(v -> read + " != '" + v + "' && " + has)),
                    Tuple.of(1, lit.map(v -> "!" + has + " || " + read + " != '" + v + "'")),
                    Tuple.of(1, lit.map(v -> "(" + has + " ? " + read + " == '" + v + "' : false)")),
                    Tuple.of(1, lit.map(v -> "'" + k + "' in " + m + " && " + m + "['" + k + "'] == '" + v + "'")),
                    // compiles (dyn), but a string value has no `>` with an integer: a runtime error
                    Tuple.of(1, Arbitraries.just(has + " && " + read + " > 5")),
                    Tuple.of(1, Arbitraries.just(has + " && " + read + " == 5")),
                    Tuple.of(1, Arbitraries.of("size(" + m + ") > 1", m + ".exists(x, x == '" + k + "')",
                            "size(" + m + ") == 0")));
        });
    }

    /** Conditions that compile but fail at run time for some payloads. */
    private static Arbitrary<String> errorProne(TriggerAction a, List<FieldSpec> integers) {
        Arbitrary<String> onInts = Arbitraries.of(integers).flatMap(f -> Arbitraries.of(
                "1 / (" + f.path() + " - 2) > 0", // division by zero when the field is 2
                f.path() + " * 4611686018427387904 > 0", // overflow when the field is 2 or more
                f.path() + " % (" + f.path() + " - " + f.path() + ") == 0")); // always a division by zero
        Arbitrary<String> specific = a == TriggerAction.WITHDRAWAL_CREATE
                ? Arbitraries.of("int(withdrawal.value_usd * 1e13) > 0", "int(withdrawal.asset_symbol) > 0")
                : Arbitraries.of("int(resource.value_wei) > 0", "uint(resource.value_wei) > 10u");
        return Arbitraries.oneOf(onInts, specific);
    }
}
