package dev.custody.engine.compile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.custody.engine.Decision;
import dev.custody.engine.FailureKind;
import dev.custody.engine.Fixtures;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.check.Payload;
import dev.custody.engine.check.PayloadResult;
import dev.custody.engine.check.PayloadValidator;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.diagnostic.DiagnosticCode;
import dev.custody.engine.schema.TriggerAction;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a policy author reads where Google's CEL conformance suite, run through the engine, found cel-java's words
 * poor (issue 36): a protobuf message construction, a name with a leading dot, a key missing from a map.
 */
class CelMessagesTest {
    private static final RuleCompiler COMPILER = RuleCompiler.create();
    private static final Payload PAYLOAD = ((PayloadResult.Valid) PayloadValidator.validate(
            Fixtures.withdrawal(1).build(), Instant.EPOCH)).payload();

    private static List<String> diagnostics(String condition) {
        CompileResult r = COMPILER.compile(TriggerAction.WITHDRAWAL_CREATE, condition);
        assertFalse(r.valid(), condition);
        return r.diagnostics().stream().map(CelMessagesTest::line).toList();
    }

    private static String line(Diagnostic d) {
        return d.code().id() + " " + d.line() + ":" + d.column() + " " + d.message()
                + (d.hint() == null ? "" : " | " + d.hint());
    }

    private static String failure(String condition) {
        CompileResult r = COMPILER.compile(TriggerAction.WITHDRAWAL_CREATE, condition);
        ConditionResult result = r.condition().orElseThrow().evaluate(PAYLOAD, ThreadClock.now() + 10_000_000_000L);
        return ((ConditionResult.Failure) result).message();
    }

    @Test
    void aProtobufMessageIsSaidToBeUnavailableNotAnUnknownSection() {
        List<String> expected = List.of(
                "unknown_field 1:26 message type `google.protobuf.BoolValue` is not available: a condition cannot build "
                        + "protobuf messages | write the value itself: `true`, `1`, `'text'`, a list `[...]` or a map `{...}`",
                "type_mismatch 1:32 field `value` belongs to a message type that is not available");
        assertEquals(expected, diagnostics("google.protobuf.BoolValue{value: true}"));
        assertEquals(List.of(expected.get(0).replace("1:26", "1:27"), expected.get(1).replace("1:32", "1:33")),
                diagnostics(".google.protobuf.BoolValue{value: true}"));
    }

    @Test
    void aLeadingDotNamesTheSectionAfterIt() {
        assertEquals(List.of("unknown_field 1:2 unknown section `foo` | sections of `withdrawal.create`: principal, "
                + "withdrawal, wallet, workspace, context"), diagnostics(".foo > 1"));
        assertEquals(List.of("unknown_field 1:2 unknown section `withdrawl` | did you mean `withdrawal`?"),
                diagnostics(".withdrawl.value_usd > 1.0"));
        // and a leading dot before a known section is the section itself
        assertEquals(ConditionResult.TRUE, COMPILER.compile(TriggerAction.WITHDRAWAL_CREATE,
                ".withdrawal.value_usd > 0.5").condition().orElseThrow()
                .evaluate(PAYLOAD, ThreadClock.now() + 10_000_000_000L));
    }

    @Test
    void aKeyMissingFromAMapIsNamed() {
        assertEquals("key `'b'` is not in the map (at 1:9)", failure("{'a': 1}['b'] == 1"));
        assertEquals("key `1` is not in the map (at 1:7)", failure("{0: 1}[1] == 1"));
        assertEquals("key `b''` (empty bytes) is not in the map (at 1:6)", failure("{0:1}[dyn(b'')] == 1"));
        assertEquals("key `b'x'` (bytes) is not in the map (at 1:6)", failure("{0:1}[dyn(b'x')] == 1"));
        // other index errors keep their words
        assertEquals("index out of bounds: 5 (at 1:6)", failure("[1,2][5] == 1"));
    }

    @Test
    void theDecisionSaysItToo() {
        PolicyEngine engine = PolicyEngine.builder(ws -> List.of(Fixtures.policy("p",
                Fixtures.deny("r", "{0: 1}[1] == 1")))).build();
        Decision d = engine.evaluate(Fixtures.withdrawal(1).build(), false);
        assertEquals(FailureKind.RULE_ERROR, d.failure());
        assertEquals("rule `r` failed: key `1` is not in the map (at 1:7)", d.error());
        assertEquals(DiagnosticCode.UNKNOWN_FIELD, COMPILER.compile(TriggerAction.WITHDRAWAL_CREATE, ".foo > 1")
                .diagnostics().get(0).code());
    }
}
