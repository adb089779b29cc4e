package dev.custody.engine.properties;

import dev.custody.engine.compile.ThreadClock;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.Fixtures;
import dev.custody.engine.compile.CompileResult;
import dev.custody.engine.compile.ConditionResult;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.diagnostic.DiagnosticCode;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.PayloadResult;
import dev.custody.engine.check.PayloadValidator;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.Limits;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsReport;

/**
 * {@link RuleCompiler#compile} never throws, whatever the text: random strings, soups of CEL tokens, very
 * deep nesting, very long input. It always returns a {@link CompileResult.Success} (warnings only) or a
 * {@link CompileResult.Failure} with at least one error, and every diagnostic has a stable code, a
 * one-line message and a 1-based position inside the text. A condition that compiles also evaluates
 * without throwing.
 */
@StatisticsReport(StatisticsReport.StatisticsReportMode.OFF)
class CompilerProperties {
    private static final RuleCompiler COMPILER = Fixtures.VALIDATOR.compiler();
    private static final Pattern CODE = Pattern.compile("[a-z]+(_[a-z]+)*");
    private static final Action CALL = Action.builder(TriggerAction.WEB3_CONTRACT_CALL).walletId(Fixtures.WALLET)
            .field("principal.role", "admin").field("resource.contract_address", "0xabc")
            .field("resource.method_selector", "0xa9059cbb").field("resource.value_wei", "0")
            .field("resource.gas_limit", 60000L).field("resource.decoded_args", java.util.Map.of("to", "0xdef"))
            .build();

    @Property(tries = 300)
    void compileNeverThrowsOnRandomText(@ForAll("randomText") String text, @ForAll TriggerAction action) {
        check(action, text);
    }

    @Property(tries = 300)
    void compileNeverThrowsOnTokenSoup(@ForAll("tokenSoup") String text, @ForAll TriggerAction action) {
        check(action, text);
    }

    @Property(tries = 100)
    void compileNeverThrowsOnDeepNesting(@ForAll("deepNesting") String text, @ForAll TriggerAction action) {
        check(action, text);
    }

    @Property(tries = 50)
    void compileNeverThrowsOnVeryLongInput(@ForAll("longText") String text, @ForAll TriggerAction action) {
        check(action, text);
    }

    @Property(tries = 200)
    void theValidateEndpointFormNeverThrows(@ForAll("tokenSoup") String text,
            @ForAll("wireNames") String trigger, @ForAll("wireNames") String effect) {
        CompileResult r = COMPILER.compile(trigger, text, effect);
        for (Diagnostic d : r.diagnostics()) {
            if (d.code() == DiagnosticCode.INVALID_TRIGGER_ACTION || d.code() == DiagnosticCode.INVALID_EFFECT) {
                assertEquals(0, d.line(), d.toString()); // not a position inside the condition
            } else {
                assertPositioned(d, text);
            }
        }
        assertOutcome(r);
    }

    private static void check(TriggerAction action, String text) {
        CompileResult r = COMPILER.compile(action, text);
        assertOutcome(r);
        for (Diagnostic d : r.diagnostics()) {
            assertPositioned(d, text);
        }
        if (r instanceof CompileResult.Success s) {
            // whatever compiles also runs without throwing (errors are results)
            PayloadResult p = PayloadValidator.validate(action == TriggerAction.WITHDRAWAL_CREATE
                    ? Fixtures.withdrawal(7400).build() : CALL, Fixtures.TUESDAY_14H);
            ConditionResult result = s.compiled().evaluate(((PayloadResult.Valid) p).payload(),
                    ThreadClock.now() + 1_000_000_000L);
            if (result instanceof ConditionResult.Failure f) {
                assertFalse(f.message().isBlank() || f.message().contains("\n"), text + ": " + f.message());
                assertFalse(f.message().startsWith("internal error"), text + ": " + f.message());
            }
        }
        Statistics.label("outcome").collect(r.valid() ? "compiles"
                : r.diagnostics().stream().filter(Diagnostic::isError).findFirst().orElseThrow().code().id());
    }

    private static void assertOutcome(CompileResult r) {
        // a Failure holds at least one error by construction; a Success must hold none
        if (r.valid()) {
            assertEquals(0, r.diagnostics().stream().filter(Diagnostic::isError).count(),
                    "a success with errors: " + r.diagnostics());
        }
        assertTrue(r.diagnostics().size() <= RuleCompiler.MAX_DIAGNOSTICS);
    }

    /** A stable code, a one-line message, and a 1-based line and column that exist in the text. */
    private static void assertPositioned(Diagnostic d, String text) {
        assertTrue(CODE.matcher(d.code().id()).matches(), d.code().id());
        assertFalse(d.message().isBlank(), d.toString());
        assertFalse(d.message().contains("\n") || d.message().contains("\r"), d.toString());
        int lineCount = text.isEmpty() ? 1 : (int) text.codePoints().filter(c -> c == '\n').count() + 1;
        assertTrue(d.line() >= 1 && d.line() <= lineCount, "line " + d.line() + " of " + lineCount + ": " + d);
        int lineLength = lineLength(text, d.line());
        assertTrue(d.column() >= 1 && d.column() <= lineLength + 1,
                "column " + d.column() + " of a " + lineLength + "-character line: " + d);
    }

    private static int lineLength(String text, int line) {
        int current = 1;
        int length = 0;
        for (int cp : text.codePoints().toArray()) {
            if (cp == '\n') {
                if (current == line) {
                    return length;
                }
                current++;
                length = 0;
            } else {
                length++;
            }
        }
        return length;
    }

    // ---- generators ----

    @Provide
    Arbitrary<String> randomText() {
        return Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.strings().ofMaxLength(120)),
                Tuple.of(2, Arbitraries.strings().withChars(" ()[]{}.,!?:&|<>=+-*/%'\"\\`$#@_\n\t\r")
                        .withCharRange('a', 'z').withCharRange('0', '9').ofMaxLength(200)),
                Tuple.of(1, Arbitraries.strings().withCharRange('\uD800', '\uDFFF').withChars("'\"() ").ofMaxLength(30)),
                Tuple.of(1, Arbitraries.of("", " ", "\n", "\t\n ", "'", "\"", "\"\"\"", "r'", "b'\\xff'", "\\", "/*",
                        "//", "\u0000", "\uFEFF", "true\n\n\n&&", "1 = 1")));
    }

    private static final List<String> TOKENS = tokens();

    private static List<String> tokens() {
        List<String> t = new ArrayList<>(List.of(
                "(", ")", "[", "]", "{", "}", ".", ",", ":", "?", "!", "-", "+", "*", "/", "%", "&&", "||", "==", "!=",
                "<", "<=", ">", ">=", "in", "?.", "[?", "true", "false", "null", "0", "1", "-1", "1u", "0x1F", "1.5",
                "1e999", "9223372036854775807", "9223372036854775808", "18446744073709551616u", "'a'", "\"b\"", "'",
                "\"", "'''x'''", "r'\\d'", "b'\\xff'", "'\\u00'", "'\\z'", "x", "_", "has", "has(", "all", "exists",
                "exists_one", "map", "filter", ".all(", ".exists(", ".exists_one(", ".map(", ".filter(", "size(",
                "matches(", ".matches(", ".startsWith(", ".contains(", "int(", "uint(", "double(", "string(", "dyn(",
                "type(", "timestamp(", "duration(", "bytes(", "as", "break", "const", "continue", "else", "for",
                "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while",
                "__result__", "@it", "é", "\u0301", "//c\n", "\n", " "));
        for (TriggerAction a : TriggerAction.values()) {
            for (FieldSpec f : FieldSchema.fields(a)) {
                t.add(f.path());
                t.add(f.section().wireName());
                t.add(f.name());
            }
        }
        t.addAll(List.of("resource.decoded_args.to", "resource.decoded_args['to']", "has(resource.decoded_args.to)",
                "has(principal.user_email)", "withdrawal.amout", "wallet.outflow_25h"));
        return List.copyOf(t);
    }

    @Provide
    Arbitrary<String> tokenSoup() {
        return Arbitraries.of(TOKENS).list().ofMaxSize(40).map(l -> String.join(" ", l));
    }

    @Provide
    Arbitrary<String> deepNesting() {
        Arbitrary<Integer> depth = Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.integers().between(1, 300)),
                Tuple.of(1, Arbitraries.integers().between(300, 2000)));
        return Combinators.combine(depth, Arbitraries.integers().between(0, 13)).as(CompilerProperties::nested);
    }

    private static String nested(int n, int shape) {
        return switch (shape) {
            case 0 -> "(".repeat(n) + "true" + ")".repeat(n);
            case 1 -> "!".repeat(n) + "true";
            case 2 -> "[".repeat(n) + "]".repeat(n) + " == []";
            case 3 -> "-".repeat(n) + "1 > 0";
            case 4 -> "true ? ".repeat(n) + "true" + " : false".repeat(n);
            case 5 -> "size(".repeat(n) + "'x'" + ")".repeat(n) + " > 0";
            case 6 -> "{'a': ".repeat(n) + "1" + "}".repeat(n) + " == {}";
            case 7 -> repeatJoin("withdrawal.value_usd > 1", " && ", n);
            case 8 -> "1" + " + 1".repeat(n) + " > 0";
            case 9 -> "withdrawal" + ".value_usd".repeat(n) + " > 0";
            case 10 -> "(".repeat(n) + "true"; // unbalanced
            case 11 -> "[1].all(x, ".repeat(Math.min(n, 60)) + "true" + ")".repeat(Math.min(n, 60));
            case 12 -> repeatJoin("principal.user_email == 'a'", " || ", n);
            default -> "has(".repeat(n) + "principal.user_email" + ")".repeat(n);
        };
    }

    private static String repeatJoin(String term, String op, int n) {
        StringBuilder s = new StringBuilder(term);
        for (int i = 1; i < n && s.length() < Limits.CONDITION_MAX - term.length() - op.length(); i++) {
            s.append(op).append(term);
        }
        return s.toString();
    }

    @Provide
    Arbitrary<String> longText() {
        Arbitrary<Integer> around = Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.integers().between(Limits.CONDITION_MAX - 2, Limits.CONDITION_MAX + 2)),
                Tuple.of(2, Arbitraries.integers().between(1000, Limits.CONDITION_MAX)),
                Tuple.of(1, Arbitraries.integers().between(Limits.CONDITION_MAX, 40_000)));
        return Combinators.combine(around, Arbitraries.integers().between(0, 4)).as((n, shape) -> switch (shape) {
            case 0 -> "'" + "a".repeat(Math.max(0, n - 9)) + "' == 'a'";
            case 1 -> "true" + " ".repeat(Math.max(0, n - 4));
            case 2 -> "withdrawal.value_usd > 1 // " + "x".repeat(Math.max(0, n - 28));
            case 3 -> "😀".repeat(n / 2 + 1); // code points, not chars, count
            default -> "\n".repeat(Math.max(0, n - 5)) + "true)";
        });
    }

    @Provide
    Arbitrary<String> wireNames() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.of("withdrawal.create", "web3.contract_call", "ALLOW", "DENY")),
                Tuple.of(1, Arbitraries.of("allow", "withdrawal", "")),
                Tuple.of(1, Arbitraries.just((String) null)),
                Tuple.of(1, Arbitraries.strings().ofMaxLength(30)));
    }
}
