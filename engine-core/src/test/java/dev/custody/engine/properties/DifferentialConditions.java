package dev.custody.engine.properties;

import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
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
 * Conditions for the differential properties (compiled form against cel-java): {@link Conditions}' rule-like
 * conditions, and typed expression trees that reach every operator and function the compiled form covers:
 * int, double and string expressions with {@code + - * / %}, unary minus, {@code int()}, {@code double()},
 * {@code string()}, {@code size}, ternaries; literals at the numeric boundaries ({@code Long.MAX_VALUE}, the
 * most negative int, 2^63 and 2^53 + 1 as doubles, {@code -0.0}, {@code 1e308}); comparisons of every type pair
 * the checker allows; {@code ==}/{@code !=} on lists and maps; {@code in} over lists and maps; string functions
 * and {@code matches}; {@code has()} and reads of optional fields and of {@code decoded_args} keys (and below
 * them: {@code dyn} values of every type). A few conditions have no compiled form (comprehensions, {@code uint}),
 * so the property also exercises the fallback.
 */
final class DifferentialConditions {
    private static final Map<TriggerAction, Arbitrary<String>> CONDITIONS = new EnumMap<>(TriggerAction.class);

    /** Ints at the boundaries: 0, ±1, ±2^53 and ±2^53 ± 1 (where doubles stop being exact), ±2^62, Long.MIN/MAX. */
    static final List<String> INT_LITERALS = List.of("0", "1", "2", "-1", "20", "9223372036854775807",
            "(-9223372036854775807 - 1)", "4611686018427387904", "3037000500", "9007199254740993", "9007199254740992",
            "9007199254740991", "-9007199254740992", "-9007199254740993", "-9223372036854775807", "7400", "10000");
    /**
     * Doubles at the boundaries: ±0.0, ±2^53 and the doubles next to it, ±2^63 and the double below it, the
     * largest and smallest doubles, and the doubles next to the constants the rules use (Math.nextUp/nextDown).
     */
    static final List<String> DOUBLE_LITERALS = List.of("0.0", "-0.0", "0.5", "1.0", "7400.0", "10000.0", "1e308",
            "1.7976931348623157e308", "-1.7976931348623157e308", "4.9e-324", "9.223372036854775807e18",
            "-9.223372036854775808e18", "1e19", "9007199254740993.0", "2.5", "-1.5", "9007199254740992.0",
            "-9007199254740992.0", "9007199254740994.0", "-9007199254740994.0", literal(Math.nextDown(9007199254740992.0)),
            literal(Math.nextDown(9.223372036854775807e18)), literal(Math.nextUp(7400.0)),
            literal(Math.nextDown(7400.0)), literal(Math.nextUp(10000.0)), literal(Math.nextDown(10000.0)),
            literal(Math.nextUp(1.0)), literal(Math.nextDown(1.0)), literal(Math.nextUp(0.0)), "4.611686018427387904e18");
    static final List<String> STRING_LITERALS = List.of("'ETH'", "'0xabc'", "''", "'a'", "'12'", "'-0'",
            "'9223372036854775807'", "'1e3'", "'NaN'", "'7400.0'", "'héllo'", "'ops@example.com'", "'日本'", "'😀'");
    /** Ints that do not convert to double exactly, and their neighbours. */
    private static final List<String> BOUNDARY_INTS = List.of("9007199254740993", "9007199254740992", "9007199254740991",
            "-9007199254740993", "-9007199254740992", "9223372036854775807", "-9223372036854775807",
            "(-9223372036854775807 - 1)", "4611686018427387905", "0");
    /** The doubles those convert to, and their neighbours. */
    private static final List<String> BOUNDARY_DOUBLES = List.of("9007199254740992.0", "9007199254740994.0",
            literal(Math.nextDown(9007199254740992.0)), "-9007199254740992.0", "-9007199254740994.0", "9.223372036854775807e18",
            literal(Math.nextDown(9.223372036854775807e18)), "-9.223372036854775808e18", "4.611686018427387904e18", "-0.0",
            "0.0");
    /** The string literals the solver's encoding takes (printable ASCII). */
    private static final List<String> ASCII_LITERALS = List.of("'ETH'", "'USDC'", "'0xabc'", "''", "'a'", "'0x'",
            "'-0'", "'9223372036854775807'", "'ops@example.com'", "'@example.com'", "'transfer'", "'ETHEREUM_MAINNET'");
    private static final List<String> PATTERNS = List.of("'^0x[0-9a-f]+$'", "'ETH|USDC'", "'(?i)eth'", "'^$'", "'a.c'",
            "'\\\\d+'", "'^[A-Z]{3,4}$'", "'@example\\\\.com$'", "'é'");

    private DifferentialConditions() {}

    /** A double as a CEL literal that reads back as the same double. */
    static String literal(double d) {
        return Double.toString(d);
    }

    /**
     * Conditions inside the fragment of the solver's encoding (docs/design.md §5.1) and of coverage's branch
     * probe, so that every part of the differential harness speaks for them: int and double fields and boundary
     * literals through {@code + - *}, unary minus and {@code ?:}, compared across int and double; strings through
     * {@code ==}, {@code startsWith}, {@code endsWith}, {@code contains} and {@code in} lists; optional fields
     * read with and without {@code has()}; {@code decoded_args} keys compared with strings; {@code &&},
     * {@code ||}, {@code !}, {@code ?:}.
     */
    static synchronized Arbitrary<String> fragment(TriggerAction action) {
        return FRAGMENT.computeIfAbsent(action, a -> new Gen(a, true).bool(3));
    }

    private static final Map<TriggerAction, Arbitrary<String>> FRAGMENT = new EnumMap<>(TriggerAction.class);

    static synchronized Arbitrary<String> of(TriggerAction action) {
        return CONDITIONS.computeIfAbsent(action, a -> Arbitraries.frequencyOf(
                Tuple.of(3, Conditions.of(a)),
                Tuple.of(6, new Gen(a).bool(3))));
    }

    /** Comprehensions alone, and inside larger conditions ({@link Gen#comprehension}). */
    static Arbitrary<String> comprehensions(TriggerAction action) {
        Gen g = new Gen(action);
        return Arbitraries.frequencyOf(
                Tuple.of(3, g.comprehension(2)),
                Tuple.of(1, Combinators.combine(g.comprehension(1), g.bool(1)).as((c, b) -> "(" + c + ") || (" + b + ")")),
                Tuple.of(1, Combinators.combine(g.comprehension(1), g.bool(1)).as((c, b) -> "(" + b + ") && (" + c + ")")));
    }

    /** The expression generators of one action. */
    private static final class Gen {
        final TriggerAction action;
        /** Only what the solver's encoding and the branch probe take ({@link #fragment}). */
        final boolean fragment;
        final List<String> ints = new ArrayList<>();
        final List<String> doubles = new ArrayList<>();
        final List<String> strings = new ArrayList<>();
        final List<String> bools = new ArrayList<>();
        final List<String> optionals = new ArrayList<>();

        Gen(TriggerAction action) {
            this(action, false);
        }

        Gen(TriggerAction action, boolean fragment) {
            this.action = action;
            this.fragment = fragment;
            for (FieldSpec f : FieldSchema.fields(action)) {
                if (f.optional()) {
                    optionals.add(f.path());
                    continue; // read below, behind a guard or not
                }
                switch (f.type()) {
                    case INTEGER -> ints.add(f.path());
                    case NUMBER -> doubles.add(f.path());
                    case STRING -> strings.add(f.path());
                    case BOOLEAN -> bools.add(f.path());
                    case MAP -> {
                    }
                }
            }
            if (doubles.isEmpty()) {
                doubles.add("double(resource.gas_limit)");
            }
        }

        Arbitrary<String> intExpr(int depth) {
            Arbitrary<String> leaf = Arbitraries.frequencyOf(
                    Tuple.of(3, Arbitraries.of(ints)),
                    Tuple.of(2, Arbitraries.of(INT_LITERALS)));
            if (depth == 0) {
                return leaf;
            }
            Arbitrary<String> sub = Arbitraries.lazy(() -> intExpr(depth - 1));
            return Arbitraries.frequencyOf(
                    Tuple.of(4, leaf),
                    Tuple.of(3, Combinators.combine(sub, Arbitraries.of("+", "-", "*", "/", "%"), sub)
                            .as((x, op, y) -> "(" + x + " " + op + " " + y + ")")),
                    Tuple.of(1, sub.map(x -> "-(" + x + ")")),
                    Tuple.of(1, Arbitraries.lazy(() -> doubleExpr(depth - 1)).map(x -> "int(" + x + ")")),
                    Tuple.of(1, Arbitraries.lazy(() -> stringExpr(depth - 1)).map(x -> "int(" + x + ")")),
                    Tuple.of(1, Arbitraries.lazy(() -> stringExpr(depth - 1)).map(x -> "size(" + x + ")")),
                    Tuple.of(1, Combinators.combine(Arbitraries.lazy(() -> bool(depth - 1)), sub, sub)
                            .as((c, x, y) -> "(" + c + " ? " + x + " : " + y + ")")));
        }

        Arbitrary<String> doubleExpr(int depth) {
            Arbitrary<String> leaf = Arbitraries.frequencyOf(
                    Tuple.of(3, Arbitraries.of(doubles)),
                    Tuple.of(2, Arbitraries.of(DOUBLE_LITERALS)));
            if (depth == 0) {
                return leaf;
            }
            Arbitrary<String> sub = Arbitraries.lazy(() -> doubleExpr(depth - 1));
            return Arbitraries.frequencyOf(
                    Tuple.of(4, leaf),
                    Tuple.of(3, Combinators.combine(sub, Arbitraries.of("+", "-", "*", "/"), sub)
                            .as((x, op, y) -> "(" + x + " " + op + " " + y + ")")),
                    Tuple.of(1, sub.map(x -> "-(" + x + ")")),
                    Tuple.of(1, Arbitraries.lazy(() -> intExpr(depth - 1)).map(x -> "double(" + x + ")")),
                    Tuple.of(1, Arbitraries.lazy(() -> stringExpr(depth - 1)).map(x -> "double(" + x + ")")));
        }

        Arbitrary<String> stringExpr(int depth) {
            Arbitrary<String> leaf = Arbitraries.frequencyOf(
                    Tuple.of(3, Arbitraries.of(strings)),
                    Tuple.of(2, Arbitraries.of(STRING_LITERALS)));
            if (depth == 0) {
                return leaf;
            }
            Arbitrary<String> sub = Arbitraries.lazy(() -> stringExpr(depth - 1));
            return Arbitraries.frequencyOf(
                    Tuple.of(4, leaf),
                    Tuple.of(1, Combinators.combine(sub, sub).as((x, y) -> "(" + x + " + " + y + ")")),
                    Tuple.of(1, Arbitraries.lazy(() -> intExpr(depth - 1)).map(x -> "string(" + x + ")")),
                    Tuple.of(1, Arbitraries.lazy(() -> doubleExpr(depth - 1)).map(x -> "string(" + x + ")")),
                    Tuple.of(1, Arbitraries.lazy(() -> bool(depth - 1)).map(x -> "string(" + x + ")")));
        }

        // ---- the fragment of the solver's encoding and the probe ----

        Arbitrary<String> fragmentInt(int depth) {
            Arbitrary<String> leaf = Arbitraries.frequencyOf(
                    Tuple.of(3, Arbitraries.of(ints)),
                    Tuple.of(3, Arbitraries.of(INT_LITERALS)));
            if (depth == 0) {
                return leaf;
            }
            Arbitrary<String> sub = Arbitraries.lazy(() -> fragmentInt(depth - 1));
            return Arbitraries.frequencyOf(
                    Tuple.of(5, leaf),
                    Tuple.of(3, Combinators.combine(sub, Arbitraries.of("+", "-", "*"), sub)
                            .as((x, op, y) -> "(" + x + " " + op + " " + y + ")")),
                    Tuple.of(1, sub.map(x -> "-(" + x + ")")),
                    Tuple.of(1, Combinators.combine(Arbitraries.lazy(() -> fragmentBool(depth - 1)), sub, sub)
                            .as((c, x, y) -> "((" + c + ") ? " + x + " : " + y + ")")));
        }

        Arbitrary<String> fragmentDouble(int depth) {
            Arbitrary<String> leaf = doubles.stream().anyMatch(x -> x.startsWith("double(")) ? Arbitraries.of(DOUBLE_LITERALS)
                    : Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.of(doubles)), Tuple.of(3, Arbitraries.of(DOUBLE_LITERALS)));
            if (depth == 0) {
                return leaf;
            }
            Arbitrary<String> sub = Arbitraries.lazy(() -> fragmentDouble(depth - 1));
            return Arbitraries.frequencyOf(
                    Tuple.of(5, leaf),
                    Tuple.of(3, Combinators.combine(sub, Arbitraries.of("+", "-", "*"), sub)
                            .as((x, op, y) -> "(" + x + " " + op + " " + y + ")")),
                    Tuple.of(1, sub.map(x -> "-(" + x + ")")),
                    Tuple.of(1, Combinators.combine(Arbitraries.lazy(() -> fragmentBool(depth - 1)), sub, sub)
                            .as((c, x, y) -> "((" + c + ") ? " + x + " : " + y + ")")));
        }

        Arbitrary<String> fragmentString() {
            return Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.of(strings)), Tuple.of(2, Arbitraries.of(ASCII_LITERALS)));
        }

        Arbitrary<String> fragmentBool(int depth) {
            int d = Math.max(0, depth - 1);
            Arbitrary<String> any = Arbitraries.of("<", "<=", ">", ">=", "==", "!=");
            List<Tuple.Tuple2<Integer, Arbitrary<String>>> leaves = new ArrayList<>();
            leaves.add(Tuple.of(3, Combinators.combine(fragmentInt(d), any, fragmentInt(d)).as((x, op, y) -> x + " " + op + " " + y)));
            leaves.add(Tuple.of(3, Combinators.combine(fragmentDouble(d), any, fragmentDouble(d)).as((x, op, y) -> x + " " + op + " " + y)));
            // across int and double: orderings (the checker refuses == between them)
            Arbitrary<String> ordering = Arbitraries.of("<", "<=", ">", ">=");
            leaves.add(Tuple.of(4, Combinators.combine(fragmentInt(d), ordering, fragmentDouble(d)).as((x, op, y) -> x + " " + op + " " + y)));
            leaves.add(Tuple.of(4, Combinators.combine(fragmentDouble(d), ordering, fragmentInt(d)).as((x, op, y) -> x + " " + op + " " + y)));
            // an int against a double where converting the int to double loses it: 2^53 + 1, 2^63 - 1, and neighbours
            leaves.add(Tuple.of(4, Combinators.combine(
                    Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.of(ints)), Tuple.of(2, Arbitraries.of(BOUNDARY_INTS))),
                    ordering,
                    doubles.stream().anyMatch(x -> x.startsWith("double(")) ? Arbitraries.of(BOUNDARY_DOUBLES)
                            : Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.of(doubles)), Tuple.of(2, Arbitraries.of(BOUNDARY_DOUBLES))),
                    Arbitraries.of(true, false))
                    .as((x, op, y, flip) -> flip ? y + " " + op + " " + x : x + " " + op + " " + y)));
            leaves.add(Tuple.of(2, Combinators.combine(fragmentString(), Arbitraries.of("==", "!="), fragmentString())
                    .as((x, op, y) -> x + " " + op + " " + y)));
            leaves.add(Tuple.of(2, Combinators.combine(fragmentString(), Arbitraries.of("startsWith", "endsWith", "contains"),
                    fragmentString()).as((x, fn, y) -> x + "." + fn + "(" + y + ")")));
            leaves.add(Tuple.of(2, Combinators.combine(fragmentString(), Arbitraries.of(ASCII_LITERALS), Arbitraries.of(ASCII_LITERALS))
                    .as((x, a, b) -> x + " in [" + a + ", " + b + "]")));
            leaves.add(Tuple.of(1, Combinators.combine(fragmentInt(d), Arbitraries.of(INT_LITERALS), Arbitraries.of(DOUBLE_LITERALS))
                    .as((x, y, z) -> x + " in [1, " + y + ", " + z + "]")));
            leaves.add(Tuple.of(1, Combinators.combine(fragmentDouble(d), Arbitraries.of(DOUBLE_LITERALS), Arbitraries.of(INT_LITERALS))
                    .as((x, y, z) -> x + " in [0.0, " + y + ", " + z + "]")));
            if (!bools.isEmpty()) {
                leaves.add(Tuple.of(2, Arbitraries.of(bools).flatMap(b -> Arbitraries.of(b, "!" + b, b + " == true",
                        b + " != false"))));
            }
            leaves.add(Tuple.of(1, Arbitraries.of("true", "false")));
            leaves.add(Tuple.of(3, fragmentOptional()));
            if (action == TriggerAction.WEB3_CONTRACT_CALL) {
                leaves.add(Tuple.of(5, fragmentDecoded()));
            }
            Arbitrary<String> leaf = Arbitraries.frequencyOf(leaves);
            if (depth == 0) {
                return leaf;
            }
            Arbitrary<String> sub = Arbitraries.lazy(() -> fragmentBool(depth - 1));
            return Arbitraries.frequencyOf(
                    Tuple.of(5, leaf),
                    Tuple.of(2, Combinators.combine(sub, sub).as((x, y) -> "(" + x + ") && (" + y + ")")),
                    Tuple.of(2, Combinators.combine(sub, sub).as((x, y) -> "(" + x + ") || (" + y + ")")),
                    Tuple.of(1, sub.map(x -> "!(" + x + ")")),
                    Tuple.of(2, Combinators.combine(sub, sub, sub).as((c, x, y) -> "((" + c + ") ? (" + x + ") : (" + y + "))")));
        }

        /** Optional fields (absent now and then): has(), guarded and unguarded reads. */
        Arbitrary<String> fragmentOptional() {
            return Arbitraries.of(optionals).flatMap(p -> {
                Arbitrary<String> read = Arbitraries.frequencyOf(
                        Tuple.of(2, Arbitraries.of(ASCII_LITERALS).map(l -> p + " == " + l)),
                        Tuple.of(1, Arbitraries.of(ASCII_LITERALS).map(l -> p + ".endsWith(" + l + ")")),
                        Tuple.of(1, Arbitraries.of(ASCII_LITERALS).map(l -> p + ".startsWith(" + l + ")")),
                        Tuple.of(1, Arbitraries.of(ASCII_LITERALS).map(l -> p + " in [" + l + ", 'a']")));
                return Arbitraries.frequencyOf(
                        Tuple.of(1, Arbitraries.just("has(" + p + ")")),
                        Tuple.of(2, read.map(r -> "has(" + p + ") && " + r)),
                        Tuple.of(1, read.map(r -> "!has(" + p + ") || " + r)),
                        Tuple.of(1, read.map(r -> "(has(" + p + ") ? " + r + " : false)")),
                        Tuple.of(3, read));
            });
        }

        /**
         * {@code decoded_args} keys (missing now and then, of any type) compared with strings, behind the {@code has()}
         * guard the compiler requires.
         */
        Arbitrary<String> fragmentDecoded() {
            String m = "resource.decoded_args";
            return Arbitraries.of(Conditions.DECODED_KEYS).flatMap(k -> {
                String v = m + "." + k;
                String has = "has(" + v + ")";
                Arbitrary<String> use = Arbitraries.of(v + " == '0xabc'", v + " != ''", v + " == '1000000'",
                        v + ".startsWith('0x')", v + ".endsWith('c')", v + ".contains('ab')", v + " in ['0xabc', '']",
                        m + "['" + k + "'] == '0xdef'", "'0xabc' == " + v);
                return Arbitraries.frequencyOf(
                        Tuple.of(1, Arbitraries.just(has)),
                        Tuple.of(3, use.map(u -> has + " && (" + u + ")")),
                        Tuple.of(1, use.map(u -> "!" + has + " || (" + u + ")")),
                        Tuple.of(1, use.map(u -> "(" + has + " ? (" + u + ") : false)")));
            });
        }

        Arbitrary<String> bool(int depth) {
            if (fragment) {
                return fragmentBool(depth);
            }
            int d = Math.max(0, depth - 1);
            List<Tuple.Tuple2<Integer, Arbitrary<String>>> leaves = new ArrayList<>();
            Arbitrary<String> ordering = Arbitraries.of("<", "<=", ">", ">=");
            Arbitrary<String> any = Arbitraries.of("<", "<=", ">", ">=", "==", "!=");
            leaves.add(Tuple.of(3, Combinators.combine(intExpr(d), any, intExpr(d)).as((x, op, y) -> x + " " + op + " " + y)));
            leaves.add(Tuple.of(3, Combinators.combine(doubleExpr(d), any, doubleExpr(d)).as((x, op, y) -> x + " " + op + " " + y)));
            leaves.add(Tuple.of(2, Combinators.combine(intExpr(d), ordering, doubleExpr(d)).as((x, op, y) -> x + " " + op + " " + y)));
            leaves.add(Tuple.of(2, Combinators.combine(doubleExpr(d), ordering, intExpr(d)).as((x, op, y) -> x + " " + op + " " + y)));
            leaves.add(Tuple.of(2, Combinators.combine(stringExpr(d), any, stringExpr(d)).as((x, op, y) -> x + " " + op + " " + y)));
            leaves.add(Tuple.of(2, Combinators.combine(stringExpr(d), Arbitraries.of("startsWith", "endsWith", "contains"),
                    stringExpr(0)).as((x, fn, y) -> x + "." + fn + "(" + y + ")")));
            leaves.add(Tuple.of(2, Combinators.combine(stringExpr(d), Arbitraries.of(PATTERNS))
                    .as((x, p) -> x + ".matches(" + p + ")")));
            leaves.add(Tuple.of(2, Combinators.combine(stringExpr(d), Arbitraries.of(STRING_LITERALS), Arbitraries.of(STRING_LITERALS))
                    .as((x, a, b) -> x + " in [" + a + ", " + b + "]")));
            leaves.add(Tuple.of(1, Combinators.combine(intExpr(d), intExpr(0)).as((x, y) -> x + " in [1, 2, " + y + "]")));
            leaves.add(Tuple.of(1, Combinators.combine(doubleExpr(d), doubleExpr(0)).as((x, y) -> x + " in [0.0, 2.5, " + y + "]")));
            leaves.add(Tuple.of(1, Combinators.combine(intExpr(d), doubleExpr(d)).as((x, y) -> "[" + x + ", 'a'] == [" + y + ", 'a']")));
            leaves.add(Tuple.of(1, Combinators.combine(stringExpr(d), intExpr(d)).as((k, v) -> "{'k': " + v + ", 'j': 1} != {'j': 1.0, 'k': 2}")));
            leaves.add(Tuple.of(1, stringExpr(d).map(k -> k + " in {'ETH': 1, '': 2}")));
            leaves.add(Tuple.of(1, Combinators.combine(intExpr(d), intExpr(d)).as((x, y) -> "size([" + x + ", " + y + "]) == 2")));
            if (!bools.isEmpty()) {
                leaves.add(Tuple.of(2, Arbitraries.of(bools).flatMap(b -> Arbitraries.of(b, "!" + b, b + " == true",
                        b + " != false", b + " < true", "string(" + b + ") == 'true'"))));
            }
            leaves.add(Tuple.of(1, Arbitraries.of("true", "false")));
            leaves.add(Tuple.of(3, optional(d)));
            if (action == TriggerAction.WEB3_CONTRACT_CALL) {
                leaves.add(Tuple.of(6, decoded()));
            }
            leaves.add(Tuple.of(1, Combinators.combine(Arbitraries.of(strings), Arbitraries.of(STRING_LITERALS))
                    .as((f, x) -> "[" + x + ", 'ETH'].exists(s, " + f + " == s)")));
            leaves.add(Tuple.of(3, comprehension(d)));
            // no compiled form: the fallback
            leaves.add(Tuple.of(1, Arbitraries.of(ints).map(f -> "uint(" + f + ") > 1u")));
            Arbitrary<String> leaf = Arbitraries.frequencyOf(leaves);
            if (depth == 0) {
                return leaf;
            }
            Arbitrary<String> sub = Arbitraries.lazy(() -> bool(depth - 1));
            return Arbitraries.frequencyOf(
                    Tuple.of(5, leaf),
                    Tuple.of(2, Combinators.combine(sub, sub).as((x, y) -> "(" + x + ") && (" + y + ")")),
                    Tuple.of(2, Combinators.combine(sub, sub).as((x, y) -> "(" + x + ") || (" + y + ")")),
                    Tuple.of(1, sub.map(x -> "!(" + x + ")")),
                    Tuple.of(1, Combinators.combine(sub, sub, sub).as((c, x, y) -> "(" + c + ") ? (" + x + ") : (" + y + ")")));
        }

        /**
         * Comprehensions (the macros {@code all}, {@code exists}, {@code exists_one}, {@code map}, {@code filter}) over
         * list and map literals, {@code decoded_args} and its values, nested ones, with predicates that read fields
         * (absent optional ones too), compare the variable with every type, overflow, divide by zero, or fail on a
         * value of the wrong type: steps that fail, absorbed or not, and ranges that are not lists or maps.
         */
        Arbitrary<String> comprehension(int depth) {
            Arbitrary<String> range = Arbitraries.frequencyOf(
                    Tuple.of(3, Combinators.combine(Arbitraries.of(INT_LITERALS), intExpr(0))
                            .as((a, b) -> "[1, " + a + ", " + b + "]")),
                    Tuple.of(2, Combinators.combine(Arbitraries.of(STRING_LITERALS), stringExpr(0))
                            .as((a, b) -> "[" + a + ", " + b + ", 'ETH']")),
                    Tuple.of(2, Arbitraries.of("[1, 'a', 2.5, true]", "[[1], [2, 3], []]", "[{'a': 1}, {'b': 2}]",
                            "[]", "[0, -1, 9223372036854775807]", "[0.0, -0.0, 1e308]")),
                    Tuple.of(1, Arbitraries.of("{'a': 1, 'b': 2}", "{'ETH': 1, '': 2}")),
                    Tuple.of(action == TriggerAction.WEB3_CONTRACT_CALL ? 3 : 0, Arbitraries.of(decodedRanges())),
                    Tuple.of(1, Arbitraries.of(optionals).map(o -> "[" + o + "]")));
            Arbitrary<String> predicate = Arbitraries.frequencyOf(
                    Tuple.of(3, Combinators.combine(Arbitraries.of("==", "!=", "<", ">=", ">"), intExpr(Math.min(depth, 1)))
                            .as((op, y) -> "x " + op + " " + y)),
                    Tuple.of(2, Combinators.combine(Arbitraries.of("==", "<"), stringExpr(0)).as((op, y) -> "x " + op + " " + y)),
                    Tuple.of(1, doubleExpr(0).map(y -> "x > " + y)),
                    Tuple.of(1, Arbitraries.of("x.startsWith('0x')", "size(x) > 1", "x + 1 > 2", "x * 4611686018427387904 > 0",
                            "10 / x > 1", "x % 0 == 1", "x in [1, 'ETH']", "has(x.a)", "x.a == 1", "x == x",
                            "string(x) == '1'", "int(x) > 0", "x[0] == 1", "x", "!x", "x && true", "x || false",
                            "(x ? 1 : 2) == 1", "x == true", "type(x) == int")),
                    Tuple.of(2, Combinators.combine(Arbitraries.of(STRING_LITERALS), Arbitraries.of(optionals.isEmpty()
                            ? List.of("'a'") : optionals)).as((l, o) -> "x == " + l + " || " + o + " == x")),
                    Tuple.of(1, Arbitraries.lazy(() -> bool(0)).map(b -> "(" + b + ") && x != 0")),
                    Tuple.of(1, Arbitraries.of("[1, 2].exists(y, x == y)", "[x, 1].all(y, y == 1)",
                            "[1, 2].map(y, y * 2).exists(z, z == x)", "[[x]].all(l, l.exists(y, y == x))")));
            Arbitrary<String> transform = Arbitraries.of("x", "x * 2", "x + 1", "string(x)", "[x]", "{'k': x}",
                    "x / 0", "size(x)", "x == 1");
            return Combinators.combine(range, predicate, transform, Arbitraries.integers().between(0, 9)).as((r, p, t, k) ->
                    (r.startsWith("resource.decoded_args.") ? "has(" + r + ") && " : "") + switch (k) {
                        case 0, 1 -> r + ".all(x, " + p + ")";
                        case 2, 3 -> r + ".exists(x, " + p + ")";
                        case 4 -> r + ".exists_one(x, " + p + ")";
                        case 5 -> "size(" + r + ".filter(x, " + p + ")) > 1";
                        case 6 -> r + ".map(x, " + t + ") == " + r;
                        case 7 -> r + ".map(x, " + p + ", " + t + ").exists(y, y == 1)";
                        case 8 -> r + ".filter(x, " + p + ").all(y, y != 0)";
                        default -> "!" + r + ".exists(x, " + p + ") || " + r + ".all(x, " + p + ")";
                    });
        }

        /** {@code decoded_args} (its keys) and its values, as comprehension ranges. */
        static List<String> decodedRanges() {
            List<String> out = new ArrayList<>(List.of("resource.decoded_args"));
            Conditions.DECODED_KEYS.forEach(k -> out.add("resource.decoded_args." + k));
            return out;
        }

        /** Optional fields: has(), guarded reads, unguarded reads (an absent-field error when absent). */
        Arbitrary<String> optional(int depth) {
            return Arbitraries.of(optionals).flatMap(p -> {
                Arbitrary<String> read = Arbitraries.frequencyOf(
                        Tuple.of(2, Arbitraries.of(STRING_LITERALS).map(l -> p + " == " + l)),
                        Tuple.of(1, Arbitraries.of(PATTERNS).map(r -> p + ".matches(" + r + ")")),
                        Tuple.of(1, Arbitraries.just("size(" + p + ") > 3")),
                        Tuple.of(1, Arbitraries.just(p + ".endsWith('@example.com')")),
                        Tuple.of(1, Arbitraries.just("int(" + p + ") > 0")));
                return Arbitraries.frequencyOf(
                        Tuple.of(2, Arbitraries.just("has(" + p + ")")),
                        Tuple.of(2, read.map(r -> "has(" + p + ") && " + r)),
                        Tuple.of(1, read.map(r -> "!has(" + p + ") || " + r)),
                        Tuple.of(1, read.map(r -> "(has(" + p + ") ? " + r + " : false)")),
                        Tuple.of(2, read));
            });
        }

        /** Reads of decoded_args keys behind has(): dyn values of every type through every operator. */
        Arbitrary<String> decoded() {
            String m = "resource.decoded_args";
            return Arbitraries.of(Conditions.DECODED_KEYS).flatMap(k -> {
                String v = m + "." + k;
                String has = "has(" + v + ")";
                Arbitrary<String> use = Arbitraries.of(
                        v + " == '0xabc'", v + " == 5", v + " == 5.0", v + " != 2.5", v + " == true", v + " > 5",
                        v + " >= 4.5", v + " < 'a'", v + " in [5, '0xabc', 2.5]", v + " == ['0xabc']",
                        v + " == {'nested': 1}", v + " + 1 > 5", v + " + 'x' == '0xabcx'", "-" + v + " < 0",
                        "size(" + v + ") > 0", v + ".startsWith('0x')", v + ".matches('^0x')", "int(" + v + ") > 1",
                        "double(" + v + ") > 1.0", "string(" + v + ") == '5'", v + ".nested == 1", "has(" + v + ".nested)",
                        v + "[0] == '0xabc'", v + "['nested'] == 1", v, "!" + v, v + " && true", v + " || false",
                        v + " && false", v + " || true", "false || " + v, "true && " + v, "(" + v + " && false) || true",
                        "(1 / 0 == 1) && " + v, v + " || (1 / 0 == 1)", "!(" + v + ") || true",
                        // the checker types a value read out of a dyn by what it is compared with: int, double, string
                        v + "['n'] + 1 == 6", v + "[0] < 2.5", v + "['n'] * 2.0 > 1.0", "-" + v + "['n'] < 0",
                        v + "['nested'] in ['0xabc']", v + "[2] == 'x'", v + "['n'] % 2 == 1", v + "[1] / 2.0 > 0.5",
                        "(" + v + " ? true : false)", v + " * 2 > 0", v + " / 0.0 > 1.0", v + " % 2 == 1",
                        "'nested' in " + v, "5 in " + v, m + "['" + k + "'] == '0xabc'", v + " == " + v,
                        v + " + " + v + " == " + v);
                return Arbitraries.frequencyOf(
                        Tuple.of(1, Arbitraries.just(has)),
                        Tuple.of(5, use.map(u -> has + " && (" + u + ")")),
                        Tuple.of(1, use.map(u -> "!" + has + " || (" + u + ")")),
                        Tuple.of(1, use.map(u -> "(" + u + ") && " + has)),
                        Tuple.of(1, use.map(u -> "(" + has + " ? (" + u + ") : false)")),
                        Tuple.of(1, Arbitraries.of("size(" + m + ") > 1", "'" + k + "' in " + m, m + " == {}",
                                m + ".exists(x, x == '" + k + "')")));
            });
        }
    }
}
