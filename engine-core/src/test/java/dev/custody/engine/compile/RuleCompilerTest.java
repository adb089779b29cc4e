package dev.custody.engine.compile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.diagnostic.DiagnosticCode;
import dev.custody.engine.format.DiagnosticFormatter;
import dev.custody.engine.diagnostic.Severity;
import dev.custody.engine.schema.TriggerAction;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class RuleCompilerTest {
    private static final RuleCompiler COMPILER = RuleCompiler.create();

    private static Diagnostic only(TriggerAction action, String condition) {
        CompileResult r = COMPILER.compile(action, condition);
        assertEquals(1, r.diagnostics().size(), () -> r.diagnostics().toString());
        return r.diagnostics().get(0);
    }

    private static void assertDiagnostic(Diagnostic d, DiagnosticCode code, Severity severity, int line, int column,
            String message, String hint) {
        assertEquals(code, d.code());
        assertEquals(severity, d.severity());
        assertEquals(line, d.line(), "line");
        assertEquals(column, d.column(), "column");
        assertEquals(message, d.message());
        assertEquals(hint, d.hint());
    }

    @Test
    void unknownFieldPointsAtTheFieldNameWithADidYouMean() {
        assertDiagnostic(only(TriggerAction.WITHDRAWAL_CREATE, "withdrawal.amout > 1"), DiagnosticCode.UNKNOWN_FIELD,
                Severity.ERROR, 1, 12, "unknown field `withdrawal.amout`", "did you mean `withdrawal.amount`?");
    }

    @Test
    void unknownFieldOnALaterLine() {
        assertDiagnostic(only(TriggerAction.WITHDRAWAL_CREATE, "withdrawal.amount > 1 &&\n   wallet.outflow24h > 5"),
                DiagnosticCode.UNKNOWN_FIELD, Severity.ERROR, 2, 11, "unknown field `wallet.outflow24h`",
                "did you mean `wallet.outflow_24h`?");
    }

    @Test
    void unknownFieldWithoutACloseNameListsTheSection() {
        assertDiagnostic(only(TriggerAction.WITHDRAWAL_CREATE, "principal.department == 'x'"),
                DiagnosticCode.UNKNOWN_FIELD, Severity.ERROR, 1, 11, "unknown field `principal.department`",
                "fields of `principal`: user_email, role");
    }

    @Test
    void aSectionOfTheOtherActionIsAnUnknownField() {
        assertDiagnostic(only(TriggerAction.WITHDRAWAL_CREATE, "resource.gas_limit > 1"), DiagnosticCode.UNKNOWN_FIELD,
                Severity.ERROR, 1, 1, "section `resource` is not available for `withdrawal.create`",
                "`resource` belongs to `web3.contract_call` rules; sections of `withdrawal.create`: principal, "
                        + "withdrawal, wallet, workspace, context");
        assertDiagnostic(only(TriggerAction.WEB3_CONTRACT_CALL, "withdrawal.value_usd > 1"),
                DiagnosticCode.UNKNOWN_FIELD, Severity.ERROR, 1, 1,
                "section `withdrawal` is not available for `web3.contract_call`",
                "`withdrawal` belongs to `withdrawal.create` rules; sections of `web3.contract_call`: principal, "
                        + "resource, context");
    }

    @Test
    void misspeltSection() {
        assertDiagnostic(only(TriggerAction.WITHDRAWAL_CREATE, "withdrawl.amount > 1"), DiagnosticCode.UNKNOWN_FIELD,
                Severity.ERROR, 1, 1, "unknown section `withdrawl`", "did you mean `withdrawal`?");
    }

    @Test
    void typeMismatchNamesTheFieldTypes() {
        assertDiagnostic(only(TriggerAction.WITHDRAWAL_CREATE, "principal.role > 3"), DiagnosticCode.TYPE_MISMATCH,
                Severity.ERROR, 1, 16, "operator `>` cannot be applied to (string, integer)",
                "`principal.role` is a string (owner, admin, signer, proposer, viewer, guest)");
        assertDiagnostic(only(TriggerAction.WITHDRAWAL_CREATE, "withdrawal.is_whitelisted == 'yes'"),
                DiagnosticCode.TYPE_MISMATCH, Severity.ERROR, 1, 27, "operator `==` cannot be applied to (boolean, string)",
                "`withdrawal.is_whitelisted` is a boolean");
    }

    @Test
    void resultMustBeBoolean() {
        assertDiagnostic(only(TriggerAction.WITHDRAWAL_CREATE, "withdrawal.amount + 1.0"), DiagnosticCode.NOT_BOOLEAN,
                Severity.ERROR, 1, 1, "condition must be a boolean, not number",
                "compare the value, e.g. `withdrawal.value_usd > 10000`");
    }

    @Test
    void unknownFunction() {
        assertDiagnostic(only(TriggerAction.WITHDRAWAL_CREATE, "sizee(withdrawal.asset_symbol) > 1"),
                DiagnosticCode.UNKNOWN_FUNCTION, Severity.ERROR, 1, 6, "unknown function `sizee`", "did you mean `size`?");
    }

    @Test
    void syntaxErrors() {
        assertDiagnostic(only(TriggerAction.WITHDRAWAL_CREATE, "withdrawal.amount > "), DiagnosticCode.SYNTAX_ERROR,
                Severity.ERROR, 1, 21, "syntax error: unexpected end of condition",
                "expected a value: a field, a literal or a parenthesized expression");
        assertDiagnostic(only(TriggerAction.WITHDRAWAL_CREATE, "withdrawal.asset_symbol == 'ETH"),
                DiagnosticCode.SYNTAX_ERROR, Severity.ERROR, 1, 28, "syntax error: string literal is not closed",
                "end it with a matching '");
        assertDiagnostic(only(TriggerAction.WITHDRAWAL_CREATE, "withdrawal.amount > 1 withdrawal.amount"),
                DiagnosticCode.SYNTAX_ERROR, Severity.ERROR, 1, 23, "syntax error: unexpected `withdrawal`",
                "expected one of end of condition, `==`, `!=`, `in`, `<`, `<=`, `>=`, `>`, `&&`, `||`, `[`, `.`, `-`, "
                        + "`?`, `+`, `*`, `/`, `%`");
    }

    @Test
    void emptyAndTooLong() {
        assertDiagnostic(only(TriggerAction.WITHDRAWAL_CREATE, ""), DiagnosticCode.EMPTY_CONDITION, Severity.ERROR, 1,
                1, "condition is empty", "write a boolean expression, e.g. `withdrawal.value_usd > 10000`");
        String atLimit = "true" + " ".repeat(4000 - 4);
        assertTrue(COMPILER.compile(TriggerAction.WITHDRAWAL_CREATE, atLimit).valid());
        assertDiagnostic(only(TriggerAction.WITHDRAWAL_CREATE, atLimit + " "), DiagnosticCode.TOO_LONG, Severity.ERROR,
                1, 4001, "condition is 4001 characters long; the limit is 4000", "split it into several rules");
        // the limit counts characters (code points), not UTF-16 units
        String emoji = "'\uD83D\uDE00' != ''" + " ".repeat(4000 - 9);
        assertEquals(4000, emoji.codePointCount(0, emoji.length()));
        assertTrue(COMPILER.compile(TriggerAction.WITHDRAWAL_CREATE, emoji).valid());
    }

    @Test
    void deepNestingIsADiagnosticNotAStackOverflow() {
        String deep = "(".repeat(1900) + "true" + ")".repeat(1900);
        assertDiagnostic(only(TriggerAction.WITHDRAWAL_CREATE, deep), DiagnosticCode.TOO_DEEP, Severity.ERROR, 1, 1,
                "condition nests too deeply", "split it into simpler conditions or several rules");
        // a long chain of unary operators is not nesting the parser chokes on: it compiles, and runs
        String deepNot = "!".repeat(3990) + "true";
        CompileResult r = COMPILER.compile(TriggerAction.WITHDRAWAL_CREATE, deepNot);
        assertTrue(r.valid(), () -> r.diagnostics().toString());
        assertEquals(List.of(), r.diagnostics());
        var payload = ((dev.custody.engine.check.PayloadResult.Valid) dev.custody.engine.check.PayloadValidator
                .validate(dev.custody.engine.Fixtures.withdrawal(1).build(), java.time.Instant.EPOCH)).payload();
        assertEquals(ConditionResult.TRUE, r.condition().orElseThrow().evaluate(payload,
                ThreadClock.now() + 10_000_000_000L), "an even number of negations of true");
    }

    @Test
    void longFlatChainsCompile() {
        String chain = "withdrawal.value_usd > 1.0" + " || withdrawal.value_usd > 1.0".repeat(120);
        assertTrue(COMPILER.compile(TriggerAction.WITHDRAWAL_CREATE, chain).valid());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "has(resource.decoded_args.to) && resource.decoded_args.to == '0x1'",
        "resource.decoded_args.to == '0x1' && has(resource.decoded_args.to)",
        "!has(resource.decoded_args.to) || resource.decoded_args.to == '0x1'",
        "resource.decoded_args.to == '0x1' || !has(resource.decoded_args.to)",
        "has(resource.decoded_args.to) ? resource.decoded_args.to == '0x1' : false",
        "!has(resource.decoded_args.to) ? false : resource.decoded_args.to == '0x1'",
        "'to' in resource.decoded_args && resource.decoded_args['to'] == '0x1'",
        "has(resource.decoded_args.to) && has(resource.decoded_args.value) && resource.decoded_args.to == '0x1' && resource.decoded_args.value == '1'",
        "(has(resource.decoded_args.to) && resource.method_selector == '0xa9059cbb') && resource.decoded_args.to == '0x1'",
        "!(!has(resource.decoded_args.to)) && resource.decoded_args.to == '0x1'",
        "size(resource.decoded_args) == 0",
    })
    void guardedDynamicReadsCompile(String condition) {
        CompileResult r = COMPILER.compile(TriggerAction.WEB3_CONTRACT_CALL, condition);
        assertTrue(r.valid(), () -> r.diagnostics().toString());
        assertEquals(List.of(), r.diagnostics());
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', quoteCharacter = '"', value = {
        "resource.decoded_args.to == '0x1';1;23;resource.decoded_args.to",
        "has(resource.decoded_args.value) && resource.decoded_args.to == '0x1';1;59;resource.decoded_args.to",
        "has(resource.decoded_args.to) || resource.decoded_args.to == '0x1';1;56;resource.decoded_args.to",
        "has(resource.decoded_args.to) ? false : resource.decoded_args.to == '0x1';1;63;resource.decoded_args.to",
        "resource.decoded_args['value'] == '1';1;23;resource.decoded_args.value",
        "resource.gas_limit > 1 &&\\n  resource.decoded_args.to != '';2;25;resource.decoded_args.to",
    })
    void unguardedDynamicReadsAreErrorsAtTheKey(String condition, int line, int column, String path) {
        assertDiagnostic(only(TriggerAction.WEB3_CONTRACT_CALL, condition.replace("\\n", "\n")),
                DiagnosticCode.UNGUARDED_DYNAMIC_READ, Severity.ERROR, line, column,
                "`" + path + "` is read without a `has()` guard",
                "an unrecognized call has no decoded arguments; write `has(" + path + ") && …`");
    }

    @Test
    void computedKeyReadsCannotBeGuarded() {
        assertDiagnostic(only(TriggerAction.WEB3_CONTRACT_CALL,
                "resource.decoded_args[resource.method_selector] == '1'"), DiagnosticCode.UNGUARDED_DYNAMIC_READ,
                Severity.ERROR, 1, 23, "`resource.decoded_args` is read with a computed key, which cannot be guarded",
                "index it with a string literal and guard it: `has(resource.decoded_args.to) && …`");
    }

    @Test
    void unguardedOptionalReadIsAWarningAndStillCompiles() {
        CompileResult r = COMPILER.compile(TriggerAction.WEB3_CONTRACT_CALL, "resource.method_name == 'transfer'");
        assertTrue(r.valid());
        assertDiagnostic(r.diagnostics().get(0), DiagnosticCode.UNGUARDED_OPTIONAL_READ, Severity.WARNING, 1, 10,
                "`resource.method_name` is optional and read without a `has()` guard",
                "when it is absent the rule fails and the action is denied; write `has(resource.method_name) && …`");
        assertTrue(COMPILER.compile(TriggerAction.WITHDRAWAL_CREATE,
                "has(principal.user_email) && principal.user_email.endsWith('@example.com')").diagnostics().isEmpty());
    }

    @Test
    void enumLiteralsThatNeverMatchAreWarnings() {
        CompileResult r = COMPILER.compile(TriggerAction.WITHDRAWAL_CREATE,
                "principal.role in ['admin', 'superadmin'] || context.day_of_week == 'saturday'");
        assertTrue(r.valid());
        assertEquals(2, r.diagnostics().size());
        assertDiagnostic(r.diagnostics().get(0), DiagnosticCode.UNKNOWN_ENUM_VALUE, Severity.WARNING, 1, 29,
                "`principal.role` is never `superadmin`, so this comparison never holds",
                "values: owner, admin, signer, proposer, viewer, guest");
        assertDiagnostic(r.diagnostics().get(1), DiagnosticCode.UNKNOWN_ENUM_VALUE, Severity.WARNING, 1, 69,
                "`context.day_of_week` is never `saturday`, so this comparison never holds",
                "did you mean `Saturday`? values: Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday");
    }

    @Test
    void everyFieldOfTheSchemaCompilesForItsAction() {
        for (TriggerAction a : TriggerAction.values()) {
            for (var f : dev.custody.engine.schema.FieldSchema.fields(a)) {
                String c = switch (f.type()) {
                    case STRING -> f.path() + " != ''";
                    case NUMBER, INTEGER -> f.path() + " >= 0";
                    case BOOLEAN -> f.path();
                    case MAP -> "size(" + f.path() + ") >= 0";
                };
                if (f.optional()) {
                    c = "has(" + f.path() + ") && " + c;
                }
                CompileResult r = COMPILER.compile(a, c);
                assertTrue(r.valid(), a + ": " + c + " " + r.diagnostics());
            }
        }
    }

    @Test
    void constantRegexPatternsAreCheckedAtCompileTime() {
        assertDiagnostic(only(TriggerAction.WITHDRAWAL_CREATE, "withdrawal.destination_address.matches('^(0x')"),
                DiagnosticCode.INVALID_REGEX, Severity.ERROR, 1, 40, "invalid regular expression: missing closing )",
                "patterns use RE2 syntax (no backreferences or lookaround)");
        assertEquals(DiagnosticCode.INVALID_REGEX, only(TriggerAction.WITHDRAWAL_CREATE,
                "matches(withdrawal.destination_address, '(?=x)')").code());
        assertTrue(COMPILER.compile(TriggerAction.WITHDRAWAL_CREATE,
                "withdrawal.destination_address.matches('^0x[0-9a-fA-F]{40}$')").diagnostics().isEmpty());
    }

    @Test
    void validateEndpointChecksTriggerActionAndEffect() {
        CompileResult r = COMPILER.compile("withdrawal.creat", "withdrawal.amount > 1", "ALLOWW");
        assertFalse(r.valid());
        assertEquals(List.of(DiagnosticCode.INVALID_TRIGGER_ACTION, DiagnosticCode.INVALID_EFFECT),
                r.diagnostics().stream().map(Diagnostic::code).toList());
        assertEquals("unknown trigger action `withdrawal.creat`", r.diagnostics().get(0).message());
        assertEquals("did you mean `withdrawal.create`? trigger actions: withdrawal.create, web3.contract_call",
                r.diagnostics().get(0).hint());
        assertEquals("did you mean `ALLOW`? effects: ALLOW, DENY", r.diagnostics().get(1).hint());
        assertTrue(COMPILER.compile("withdrawal.create", "withdrawal.amount > 1", "DENY").valid());
        // lowercase effects are not effects: the API's enum is uppercase
        assertFalse(COMPILER.compile("withdrawal.create", "true", "deny").valid());
        // with an unknown trigger action, syntax errors are still reported
        assertEquals(List.of(DiagnosticCode.INVALID_TRIGGER_ACTION, DiagnosticCode.SYNTAX_ERROR),
                COMPILER.compile("nope", "a b", "DENY").diagnostics().stream().map(Diagnostic::code).toList());
    }

    @Test
    void renderedDiagnosticShowsTheLineAndACaret() {
        String src = "withdrawal.amout > 1";
        assertEquals("""
                error[unknown_field] 1:12: unknown field `withdrawal.amout`
                 | withdrawal.amout > 1
                 | ...........^
                 = hint: did you mean `withdrawal.amount`?
                """, DiagnosticFormatter.render(only(TriggerAction.WITHDRAWAL_CREATE, src), src));
    }

    @Test
    void compiledConditionsAreSharedSafelyAcrossThreads() throws Exception {
        CompiledCondition c = COMPILER.compile(TriggerAction.WITHDRAWAL_CREATE, "withdrawal.value_usd > 100.0")
                .condition().orElseThrow();
        var pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<Boolean>> results = new java.util.ArrayList<>();
            for (int i = 0; i < 400; i++) {
                double usd = i;
                results.add(pool.submit(() -> {
                    var payload = ((dev.custody.engine.check.PayloadResult.Valid) dev.custody.engine.check.PayloadValidator
                            .validate(dev.custody.engine.Fixtures.withdrawal(usd).build(), java.time.Instant.EPOCH)).payload();
                    return ((ConditionResult.Value) c.evaluate(payload, ThreadClock.now() + 10_000_000_000L)).value();
                }));
            }
            for (int i = 0; i < 400; i++) {
                assertEquals(i > 100, results.get(i).get());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aNonBooleanConditionIsReportedWhereTheExpressionStarts() {
        // cel-java records a select at its dot and a call at its operator; the offending token of a
        // condition that is not a boolean is the whole expression, which starts at its first token
        Diagnostic field = only(TriggerAction.WITHDRAWAL_CREATE, "withdrawal.asset_symbol");
        assertEquals(DiagnosticCode.NOT_BOOLEAN, field.code());
        assertEquals(1, field.line());
        assertEquals(1, field.column());

        Diagnostic arithmetic = only(TriggerAction.WITHDRAWAL_CREATE, "withdrawal.value_usd * 2.0");
        assertEquals(DiagnosticCode.NOT_BOOLEAN, arithmetic.code());
        assertEquals(1, arithmetic.column());

        Diagnostic indented = only(TriggerAction.WEB3_CONTRACT_CALL, "\n  resource.gas_limit");
        assertEquals(2, indented.line());
        assertEquals(3, indented.column());
    }

    @Test
    void aComputedDecodedArgsKeyIsReportedWhereTheKeyStarts() {
        Diagnostic d = only(TriggerAction.WEB3_CONTRACT_CALL,
                "resource.decoded_args[resource.method_selector] == '0x1'");
        assertEquals(DiagnosticCode.UNGUARDED_DYNAMIC_READ, d.code());
        assertEquals(1, d.line());
        // the key expression `resource.method_selector` starts at column 23 (not its dot, at 31)
        assertEquals(23, d.column());
    }

    /**
     * The compiler remembers what it compiled by trigger action and text: the same text for the same action is
     * the very same compiled condition (the global policies in every workspace's bundle, and a tool's engine
     * over a set it compiled, are not parsed and checked again), another action's is its own, and an invalid
     * text gives the same diagnostics every time.
     */
    @Test
    void theSameTextForTheSameActionIsCompiledOnce() {
        RuleCompiler c = RuleCompiler.create();
        String text = "withdrawal.value_usd > 10000 && principal.role in ['signer']";
        CompiledCondition first = c.compile(TriggerAction.WITHDRAWAL_CREATE, text).condition().orElseThrow();
        CompiledCondition again = c.compile(TriggerAction.WITHDRAWAL_CREATE, new String(text)).condition().orElseThrow();
        org.junit.jupiter.api.Assertions.assertSame(first, again);
        CompiledCondition other = RuleCompiler.create().compile(TriggerAction.WITHDRAWAL_CREATE, text).condition()
                .orElseThrow();
        org.junit.jupiter.api.Assertions.assertNotSame(first, other, "each compiler has its own");
        String call = "principal.role == 'signer'";
        assertFalse(c.compile(TriggerAction.WITHDRAWAL_CREATE, call).condition().orElseThrow()
                == c.compile(TriggerAction.WEB3_CONTRACT_CALL, call).condition().orElseThrow());
        assertEquals(TriggerAction.WEB3_CONTRACT_CALL,
                c.compile(TriggerAction.WEB3_CONTRACT_CALL, call).condition().orElseThrow().action());
        CompileResult bad = c.compile(TriggerAction.WITHDRAWAL_CREATE, "withdrawal.value_usdd > 1");
        assertEquals(bad.diagnostics(), c.compile(TriggerAction.WITHDRAWAL_CREATE, "withdrawal.value_usdd > 1")
                .diagnostics());
        assertEquals(DiagnosticCode.UNKNOWN_FIELD, bad.diagnostics().get(0).code());
    }
}
