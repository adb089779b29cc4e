package dev.custody.engine.compile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.Fixtures;
import dev.custody.engine.payload.Payload;
import dev.custody.engine.payload.PayloadResult;
import dev.custody.engine.payload.PayloadValidator;
import dev.custody.engine.schema.TriggerAction;
import java.util.Collections;
import org.junit.jupiter.api.Test;

/** Which conditions run under the deadline listener, and where the deadline is checked. */
class CompiledConditionTest {
    private static final RuleCompiler COMPILER = RuleCompiler.create();
    private static final Payload PAYLOAD = ((PayloadResult.Valid) PayloadValidator.validate(
            Fixtures.withdrawal(7400).build(), Fixtures.TUESDAY_14H)).payload();

    private static CompiledCondition compile(String condition) {
        return COMPILER.compile(TriggerAction.WITHDRAWAL_CREATE, condition).condition().orElseThrow();
    }

    @Test
    void smallConditionsCannotRunLongComprehensionsAndLargeConditionsCan() {
        assertFalse(compile("withdrawal.value_usd > 10000.0").mayRunLong());
        assertFalse(compile("withdrawal.is_whitelisted && withdrawal.address_age_sec >= 604800.0 && "
                + "withdrawal.value_usd <= 5000.0 && principal.role in ['owner', 'admin', 'signer']").mayRunLong());
        assertTrue(compile("[1, 2].all(x, x > 0)").mayRunLong());
        assertTrue(compile("has(principal.role) && ['a'].exists(r, r == principal.role)").mayRunLong());
        // 1 + 1 + ... has 2n - 1 nodes, the comparison 2 more
        String sum = String.join(" + ", Collections.nCopies(32, "1"));
        assertFalse(compile(sum.substring(0, sum.length() - 4) + " > 0").mayRunLong()); // 31 terms: 63 nodes
        assertTrue(compile(sum + " > 0").mayRunLong()); // 32 terms: 65 nodes
    }

    @Test
    void evaluateChecksTheDeadlineBeforeItStarts() {
        ConditionResult r = compile("withdrawal.value_usd > 10000.0").evaluate(PAYLOAD, System.nanoTime() - 1);
        assertEquals(new ConditionResult.Failure("time budget exceeded before the rule ran", true), r);
    }

    @Test
    void withoutTheStartCheckASmallConditionRunsAndALongOneIsStillStopped() {
        long past = System.nanoTime() - 1;
        assertEquals(ConditionResult.FALSE, compile("withdrawal.value_usd > 10000.0")
                .evaluateWithoutStartCheck(PAYLOAD, past));
        String range = "[" + String.join(",", Collections.nCopies(50, "1")) + "]";
        assertEquals(new ConditionResult.Failure("time budget exceeded while the rule ran", true),
                compile(range + ".all(x, x > 0)").evaluateWithoutStartCheck(PAYLOAD, past));
    }
}
