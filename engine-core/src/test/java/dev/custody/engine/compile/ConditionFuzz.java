package dev.custody.engine.compile;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.custody.engine.Fixtures;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.ActionReader;
import dev.custody.engine.check.Payload;
import dev.custody.engine.check.PayloadResult;
import dev.custody.engine.check.PayloadValidator;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Jazzer fuzz target for condition text: compile it with {@link RuleCompiler} (never throws; a failure is a
 * list of diagnostics with positions inside the text), then evaluate the compiled form, and
 * {@link CompiledCondition#evaluate} with its fallback, against cel-java's interpreter on an action generated from
 * the rest of the input. The invariants are {@code CompiledDifferentialProperties}' (same value, or an error cel-java
 * also gives; an error the compiled form leaves cel-java to word only where cel-java errs).
 *
 * <p>Input layout: the condition's UTF-8 bytes, then a zero byte, then the action's bytes (see {@link #action}); with
 * no zero byte the whole input is the condition and the action is the default withdrawal (every field's first pool
 * value). The committed inputs are in {@code src/test/resources/dev/custody/engine/compile/ConditionFuzzInputs/}.
 * Fuzzing: {@code JAZZER_FUZZ=1 ./mvnw -B -pl engine-schema,engine-core test -Dtest=ConditionFuzz#condition}
 * (docs/design.md §17).
 */
class ConditionFuzz {
    private static final RuleCompiler COMPILER = RuleCompiler.create();
    private static final long HOUR = 3_600_000_000_000L;
    private static final Pattern COMPREHENSION = Pattern.compile("\\.(all|exists|exists_one|map|filter)\\(");
    private static final Pattern EMPTY_DETAIL = Pattern.compile(" \\(at \\d+:\\d+\\)");

    static final double TWO_53 = 9007199254740992.0;
    /** Numbers (schema type number): boundaries of double against int, signed zero, the extremes. */
    static final List<Object> NUMBERS = List.of(1500.0, 0.0, -0.0, 0.5, 1.0, 10000.0, 10000.5, TWO_53, TWO_53 + 2,
            9.223372036854775807e18, 9.2233720368547748e18, 1.8446744073709552e19, 1e19, Double.MAX_VALUE,
            Double.MIN_VALUE, 1e300, 1.0000000000000002, 4.5, -1.0, 123456.78, 4611686018427387904.0, 2L, 0L,
            9007199254740993L, Long.MAX_VALUE);
    /** Integers (schema type integer), and a whole double or two (read as integers when whole). */
    static final List<Object> INTEGERS = List.of(2L, 0L, 1L, 3L, 5L, 20L, 21000L, -1L, Long.MAX_VALUE,
            Long.MAX_VALUE - 1, Long.MIN_VALUE, 9007199254740992L, 9007199254740993L, 4611686018427387904L, 3037000500L,
            4294967296L, 3.0, 4611686018427387904.0, -0.0, 9007199254740992.0);
    static final List<Object> STRINGS = List.of("ETH", "", "0xabc", "0xdef", "ETHEREUM_MAINNET", "ops@example.com",
            "transfer", "0xa9059cbb", "a", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-0", "+5",
            " 1", "1e3", "NaN", "Infinity", "0.5", "0x10", "18446744073709551615", "18446744073709551616", "héllo",
            "\uD83D\uDE00", "signer", "a\u0000b", "A", "eth");
    static final List<Object> BOOLEANS = List.of(true, false);
    static final List<Object> MAPS = List.of(Map.of(), Map.of("to", "0xabc", "value", "1000000"),
            Map.of("to", Long.MAX_VALUE, "value", -0.0), Map.of("amount", Double.MAX_VALUE),
            Map.of("to", List.of(1L, 2.0, "x"), "value", Map.of("nested", "0xabc", "n", 5L)),
            Map.of("spender", List.of(), "from", Map.of()), Map.of("to", "9223372036854775807", "value", "NaN"),
            Map.of("amount", 9007199254740993L, "value", 9007199254740992.0), Map.of("to", true, "amount", ""));

    @FuzzTest(maxDuration = "10m")
    @DictionaryEntries({"withdrawal.", "principal.", "wallet.", "workspace.", "context.", "resource.", "amount",
        "value_usd", "asset_symbol", "is_whitelisted", "address_age_sec", "outflow_1h", "outflow_24h",
        "withdrawal_count_1h", "decoded_args", "gas_limit", "value_wei", "method_selector", "contract_address", "role",
        "hour", "day_of_week", "has(", "int(", "uint(", "double(", "string(", "size(", "type(", "matches(",
        "startsWith(", "endsWith(", "contains(", ".exists(", ".all(", ".map(", ".filter(", ".exists_one(", " in ",
        "&&", "||", "?", ":", "==", "!=", "<=", ">=", "9007199254740993", "9007199254740992.0", "9223372036854775807",
        "-9223372036854775808", "18446744073709551615u", "-0.0", "1e308", "0.1", "true", "false", "null", "'", "\"",
        "dyn(", "timestamp(", "duration(", "bytes(", "b'", "r'", "[", "]", "{", "}", " % ", " / ", "lowerAscii"})
    void condition(byte[] input) {
        int zero = indexOf(input, (byte) 0);
        byte[] actionBytes = zero < 0 ? new byte[0] : java.util.Arrays.copyOfRange(input, zero + 1, input.length);
        String condition = ActionReader.decode(input, 0, zero < 0 ? input.length : zero);
        TriggerAction trigger = actionBytes.length > 0 && (actionBytes[0] & 1) == 1 ? TriggerAction.WEB3_CONTRACT_CALL
                : TriggerAction.WITHDRAWAL_CREATE;
        check(trigger, condition, actionBytes);
    }

    /**
     * The same check on conditions built from the input by a small grammar (numbers of both types against each other,
     * arithmetic, {@code &&}, {@code ||}, {@code !}, {@code ?:}, {@code in}, {@code has()}, string functions, a
     * comprehension, conversions, {@code decoded_args}), with literals from the boundaries (±2^53 ±1 as int and as
     * double, ±2^63, {@code -0.0}, the largest and smallest doubles, uints): most of them compile, so the differential
     * check runs on nearly every input where {@link #condition}'s text mutations mostly stop at the compiler.
     * The action is drawn from what the grammar leaves of the input.
     */
    @FuzzTest(maxDuration = "10m")
    void generatedCondition(FuzzedDataProvider data) {
        TriggerAction trigger = data.consumeBoolean() ? TriggerAction.WEB3_CONTRACT_CALL : TriggerAction.WITHDRAWAL_CREATE;
        String condition = new Grammar(data, trigger).bool(4);
        byte[] rest = data.consumeRemainingAsBytes();
        byte[] actionBytes = new byte[rest.length + 1];
        actionBytes[0] = (byte) (trigger == TriggerAction.WEB3_CONTRACT_CALL ? 1 : 0);
        System.arraycopy(rest, 0, actionBytes, 1, rest.length);
        check(trigger, condition, actionBytes);
    }

    /** Conditions drawn from fuzz input, by type; every choice is one byte of the input. */
    static final class Grammar {
        static final String[] INTS = {"0", "1", "-1", "2", "5", "20", "9007199254740992", "9007199254740993",
            "-9007199254740993", "4611686018427387904", "9223372036854775807", "-9223372036854775807",
            "-9223372036854775808", "3037000500", "23"};
        static final String[] DOUBLES = {"0.0", "-0.0", "0.5", "1.0", "-1.0", "9007199254740992.0", "9007199254740993.0",
            "9007199254740994.0", "9.223372036854775807e18", "-9.223372036854775808e18", "1e19", "1.7976931348623157e308",
            "4.9e-324", "1.0000000000000002", "0.1", "1e309", "10000.0", "2.5"};
        static final String[] UINTS = {"0u", "1u", "9223372036854775808u", "18446744073709551615u"};
        static final String[] STRINGS = {"''", "'ETH'", "'eth'", "'\\u00e9'", "'\\U0001F600'", "'\u00e9'", "'0x'", "'0xabc'",
            "'signer'", "'9223372036854775808'", "'-0'", "'1e3'", "'NaN'", "'9007199254740993'", "'ETHEREUM_MAINNET'"};
        static final String[] DECODED = {"to", "value", "spender", "from", "amount", "path"};
        private final FuzzedDataProvider d;
        private final List<FieldSpec> fields;

        Grammar(FuzzedDataProvider d, TriggerAction trigger) {
            this.d = d;
            this.fields = FieldSchema.fields(trigger);
        }

        private String field(dev.custody.engine.schema.FieldType type, String otherwise) {
            List<FieldSpec> of = fields.stream().filter(f -> f.type() == type).toList();
            return of.isEmpty() ? otherwise : of.get(d.consumeInt(0, of.size() - 1)).path();
        }

        private String pick(String[] pool) {
            return pool[d.consumeInt(0, pool.length - 1)];
        }

        String bool(int depth) {
            int k = d.consumeInt(0, depth <= 0 ? 5 : 15);
            return switch (k) {
                case 0 -> num(depth - 1) + " " + pick(new String[] {"<", "<=", ">", ">=", "==", "!="}) + " " + num(depth - 1);
                case 1 -> field(dev.custody.engine.schema.FieldType.BOOLEAN, "true");
                case 2 -> str(depth - 1) + pick(new String[] {" == ", " != ", " < "}) + str(depth - 1);
                case 3 -> "has(" + pick(new String[] {"resource.decoded_args.", "principal.", "withdrawal."})
                        + pick(DECODED) + ")";
                case 4 -> pick(new String[] {"true", "false"});
                case 5 -> num(0) + " in [" + num(0) + ", " + num(0) + "]";
                case 6, 7 -> "(" + bool(depth - 1) + (k == 6 ? " && " : " || ") + bool(depth - 1) + ")";
                case 8 -> "!(" + bool(depth - 1) + ")";
                case 9 -> "(" + bool(depth - 1) + " ? " + bool(depth - 1) + " : " + bool(depth - 1) + ")";
                case 10 -> str(depth - 1) + "." + pick(new String[] {"startsWith", "endsWith", "contains", "matches"})
                        + "(" + str(depth - 1) + ")";
                case 11 -> str(depth - 1) + " in [" + str(0) + ", " + str(0) + "]";
                case 12 -> "[" + num(0) + ", " + num(0) + "]." + pick(new String[] {"exists", "all", "exists_one"})
                        + "(x, x " + pick(new String[] {"<", ">=", "=="}) + " " + num(depth - 1) + ")";
                case 13 -> "resource.decoded_args." + pick(DECODED) + pick(new String[] {" == ", " != ", " > "})
                        + (d.consumeBoolean() ? num(0) : str(0));
                case 14 -> "size(" + str(depth - 1) + ") " + pick(new String[] {"<", "==", ">"}) + " " + num(0);
                default -> "type(" + num(depth - 1) + ") == " + pick(new String[] {"int", "double", "uint"});
            };
        }

        String num(int depth) {
            int k = d.consumeInt(0, depth <= 0 ? 5 : 12);
            return switch (k) {
                case 0 -> field(dev.custody.engine.schema.FieldType.INTEGER, "1");
                case 1 -> field(dev.custody.engine.schema.FieldType.NUMBER, "1.0");
                case 2 -> pick(INTS);
                case 3 -> pick(DOUBLES);
                case 4 -> pick(UINTS);
                case 5 -> "resource.decoded_args." + pick(DECODED);
                case 6 -> "(" + num(depth - 1) + " " + pick(new String[] {"+", "-", "*", "/", "%"}) + " "
                        + num(depth - 1) + ")";
                case 7 -> "-" + num(depth - 1);
                case 8 -> pick(new String[] {"int", "double", "uint"}) + "(" + num(depth - 1) + ")";
                case 9 -> pick(new String[] {"int", "double", "uint"}) + "(" + str(depth - 1) + ")";
                case 10 -> "(" + bool(depth - 1) + " ? " + num(depth - 1) + " : " + num(depth - 1) + ")";
                case 11 -> "size(" + str(depth - 1) + ")";
                default -> "dyn(" + num(depth - 1) + ")";
            };
        }

        String str(int depth) {
            int k = d.consumeInt(0, depth <= 0 ? 2 : 5);
            return switch (k) {
                case 0 -> field(dev.custody.engine.schema.FieldType.STRING, "'x'");
                case 1 -> pick(STRINGS);
                case 2 -> "resource.decoded_args." + pick(DECODED);
                case 3 -> "(" + str(depth - 1) + " + " + str(depth - 1) + ")";
                case 4 -> "string(" + num(depth - 1) + ")";
                default -> str(depth - 1) + ".lowerAscii()";
            };
        }
    }

    /** Compiles and evaluates one condition on the action the bytes describe; fails on any broken invariant. */
    static void check(TriggerAction trigger, String condition, byte[] actionBytes) {
        CompileResult r;
        try {
            r = COMPILER.compile(trigger, condition);
        } catch (RuntimeException | StackOverflowError e) {
            throw new AssertionError("compile threw on `" + condition + "`", e);
        }
        assertNotNull(r);
        for (Diagnostic d : r.diagnostics()) {
            assertTrue(d.message() != null && !d.message().isBlank() && d.message().indexOf('\n') < 0,
                    () -> "not a one-line message: " + d + " for `" + condition + "`");
            assertTrue(within(condition, d.line(), d.column()),
                    () -> "position " + d.line() + ":" + d.column() + " outside `" + condition + "`: " + d);
        }
        if (r instanceof CompileResult.Failure) {
            return;
        }
        CompiledCondition c = r.condition().orElseThrow();
        Payload p = payload(trigger, actionBytes);
        if (p == null) {
            return;
        }
        long deadline = ThreadClock.now() + HOUR;
        ConditionResult cel = CompiledAccess.interpreted(c, p, deadline);
        ConditionResult ours = c.evaluate(p, deadline);
        if (!same(cel, ours)) {
            fail("evaluate gave " + ours + ", cel-java " + cel + ": `" + condition + "` on " + p.sections());
        }
        if (!c.compiled()) {
            return;
        }
        ConditionResult alone = CompiledAccess.compiledOnly(c, p);
        if (alone instanceof ConditionResult.Failure f && f.message().equals(CompiledAccess.WORDED_BY_CEL)) {
            assertTrue(cel instanceof ConditionResult.Failure cf && !cf.budgetExceeded(),
                    () -> "compiled form erred, cel-java gave " + cel + ": `" + condition + "` on " + p.sections());
        } else if (alone instanceof ConditionResult.Failure f && f.message().equals(CompiledAccess.DEFERRED)) {
            assertTrue(COMPREHENSION.matcher(condition).find(),
                    () -> "compiled form deferred without a comprehension: `" + condition + "` on " + p.sections());
        } else if (!same(cel, alone)) {
            fail("compiled form gave " + alone + ", cel-java " + cel + ": `" + condition + "` on " + p.sections());
        }
    }

    /**
     * The action the bytes describe, validated, or null when the validator refuses it (the compiled path only runs
     * on a validated payload). Byte 0 chose the trigger; then one byte per field of the trigger's sections, in schema
     * order: 0 leaves the field out (the default action has every field), any other value {@code b} picks the
     * {@code b - 1}-th value (modulo) of the field type's pool. Missing bytes pick the pool's first value.
     */
    static Payload payload(TriggerAction trigger, byte[] bytes) {
        Action action = action(trigger, bytes);
        PayloadResult result = PayloadValidator.validate(action, Fixtures.TUESDAY_14H);
        return result instanceof PayloadResult.Valid v ? v.payload() : null;
    }

    static Action action(TriggerAction trigger, byte[] bytes) {
        Action.Builder b = Action.builder(trigger).id("fuzz").walletId(Fixtures.WALLET).at(Fixtures.TUESDAY_14H);
        int at = 1;
        for (Section s : FieldSchema.sections(trigger)) {
            if (s == Section.CONTEXT) {
                continue;
            }
            for (FieldSpec f : FieldSchema.fields(s)) {
                int pick = at < bytes.length ? bytes[at] & 0xff : 1;
                at++;
                if (pick == 0) {
                    continue;
                }
                List<Object> pool = pool(f);
                b.field(f.path(), pool.get((pick - 1) % pool.size()));
            }
        }
        return b.build();
    }

    private static List<Object> pool(FieldSpec f) {
        return switch (f.type()) {
            case NUMBER -> NUMBERS;
            case INTEGER -> INTEGERS;
            case BOOLEAN -> BOOLEANS;
            case MAP -> MAPS;
            case STRING -> {
                if (f.enumValues().isEmpty()) {
                    yield STRINGS;
                }
                List<Object> values = new ArrayList<>(f.enumValues());
                values.add("");
                values.add(f.enumValues().get(0).toUpperCase(java.util.Locale.ROOT));
                yield values;
            }
        };
    }

    /**
     * Whether a diagnostic's 1-based line and column (code points; 0 when it has none) fall inside the text, or
     * just past its end (a condition that stops short is reported where it stops).
     */
    static boolean within(String text, int line, int column) {
        if (line == 0) {
            return column == 0;
        }
        String[] lines = text.split("\n", -1);
        if (line < 1 || line > lines.length) {
            return false;
        }
        String l = lines[line - 1];
        return column >= 1 && column <= l.codePointCount(0, l.length()) + 1;
    }

    /** As {@code CompiledDifferentialProperties.same}: equal, or cel-java's division by zero without its detail. */
    static boolean same(ConditionResult cel, ConditionResult ours) {
        if (Objects.equals(cel, ours)) {
            return true;
        }
        return cel instanceof ConditionResult.Failure c && ours instanceof ConditionResult.Failure o
                && !c.budgetExceeded() && !o.budgetExceeded() && EMPTY_DETAIL.matcher(c.message()).matches()
                && o.message().equals("/ by zero" + c.message());
    }

    private static int indexOf(byte[] a, byte b) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] == b) {
                return i;
            }
        }
        return -1;
    }

}
