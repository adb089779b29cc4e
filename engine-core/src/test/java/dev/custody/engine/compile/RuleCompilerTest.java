package dev.custody.engine.compile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.diagnostic.DiagnosticCode;
import dev.custody.engine.schema.TriggerAction;
import java.util.List;
import org.junit.jupiter.api.Test;

class RuleCompilerTest {
    private final RuleCompiler compiler = RuleCompiler.create();

    private Diagnostic only(TriggerAction action, String condition) {
        CompileResult r = compiler.compile(action, condition);
        assertFalse(r.valid(), condition);
        List<Diagnostic> d = r.diagnostics();
        assertEquals(1, d.size(), d.toString());
        return d.get(0);
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
}
