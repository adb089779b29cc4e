package dev.custody.engine.compile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.Fixtures;
import dev.custody.engine.check.Payload;
import dev.custody.engine.check.PayloadResult;
import dev.custody.engine.check.PayloadValidator;
import dev.custody.engine.schema.TriggerAction;
import java.util.Collections;
import org.junit.jupiter.api.Test;

/**
 * Which conditions run under the deadline listener, where the deadline is checked, and which have a compiled
 * form (the differential properties hold that form to cel-java's results on random input).
 */
class CompiledConditionTest {
    private static final RuleCompiler COMPILER = RuleCompiler.create();
    private static final RuleCompiler CEL_ONLY = RuleCompiler.builder().compiledEvaluation(false).build();
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
        ConditionResult r = compile("withdrawal.value_usd > 10000.0").evaluate(PAYLOAD, ThreadClock.now() - 1);
        assertEquals(new ConditionResult.Failure("time budget exceeded before the rule ran", true), r);
    }

    @Test
    void withoutTheStartCheckASmallConditionRunsAndALongOneIsStillStopped() {
        long past = ThreadClock.now() - 1;
        assertEquals(ConditionResult.FALSE, compile("withdrawal.value_usd > 10000.0")
                .evaluateWithoutStartCheck(PAYLOAD, past));
        // longer than ClosureCompiler.CLOCK_EVERY iterations: the compiled loop reads the clock and stops
        String range = "[" + String.join(",", Collections.nCopies(200, "1")) + "]";
        assertEquals(new ConditionResult.Failure("time budget exceeded while the rule ran", true),
                compile(range + ".all(x, x > 0)").evaluateWithoutStartCheck(PAYLOAD, past));
    }

    @Test
    void conditionsWithinTheCoveredSubsetHaveACompiledFormTheRestRunOnCelJava() {
        assertTrue(compile("withdrawal.value_usd > 10000").compiled());
        assertTrue(compile("withdrawal.is_whitelisted && withdrawal.address_age_sec >= 604800.0 && "
                + "withdrawal.value_usd <= 5000.0 && principal.role in ['owner', 'admin', 'signer']").compiled());
        assertTrue(compile("has(principal.user_email) && principal.user_email.matches('@example\\\\.com$')").compiled());
        assertTrue(compile("int(withdrawal.value_usd) / 2 + size(withdrawal.asset_symbol) > 0").compiled());
        assertTrue(compile("['ETH'].exists(s, s == withdrawal.asset_symbol)").compiled()); // a comprehension
        assertTrue(compile("[[1, 2], [3]].all(l, l.exists(x, x > 0)) && [1, 2].map(x, x * 2).filter(y, y > 2) == [4]"
                + " && [1, 1].exists_one(x, x == 1) == false").compiled());
        String nested = "[1]" + ".all(x, [1]".repeat(8) + ".all(y, y > 0)" + ")".repeat(8); // 9 deep: 18 variables
        assertFalse(compile(nested).compiled()); // more comprehension variables than ClosureCompiler.MAX_LOCALS
        assertFalse(compile("uint(wallet.withdrawal_count_1h) > 1u").compiled()); // unsigned integers
        assertFalse(compile("principal.role.matches('a{1000}')").compiled()); // over the regex program size
        assertFalse(CEL_ONLY.compile(TriggerAction.WITHDRAWAL_CREATE, "withdrawal.value_usd > 10000").condition()
                .orElseThrow().compiled());
    }

    @Test
    void theCompiledFormFailsWithCelJavasMessages() {
        Payload p = ((PayloadResult.Valid) PayloadValidator.validate(Fixtures.withdrawal(7400)
                .field("wallet.withdrawal_count_1h", Long.MAX_VALUE).field("workspace.withdrawal_count_1h", 2L).build(),
                Fixtures.TUESDAY_14H)).payload();
        String[][] cases = {
            {"principal.user_email == 'x'", "`principal.user_email` is absent from the payload (at 1:11)"},
            {"1 / (workspace.withdrawal_count_1h - 2) > 0", "/ by zero (at 1:3)"},
            {"wallet.withdrawal_count_1h + 1 > 0", "long overflow (at 1:28)"},
            {"int(withdrawal.asset_symbol) > 0", "for input string: \"" + p.sections().get("withdrawal").get("asset_symbol")
                    + "\" (at 1:4)"},
            {"int(withdrawal.value_usd * 1e16) > 0", "double is out of range for int (at 1:4)"},
        };
        for (String[] c : cases) {
            CompiledCondition compiled = compile(c[0]);
            assertTrue(compiled.compiled(), c[0]);
            ConditionResult expected = new ConditionResult.Failure(c[1], false);
            assertEquals(expected, compiled.evaluateCompiledOnly(p), c[0]);
            assertEquals(expected, compiled.evaluate(p, ThreadClock.now() + 1_000_000_000L), c[0]);
            assertEquals(expected, CEL_ONLY.compile(TriggerAction.WITHDRAWAL_CREATE, c[0]).condition().orElseThrow()
                    .evaluate(p, ThreadClock.now() + 1_000_000_000L), c[0]);
        }
    }

    @Test
    void aValueTheCompiledFormWasNotBuiltForIsLeftToCelJava() {
        // Payload's constructor is public: a hand-made one can hold an Integer where the schema says number
        java.util.Map<String, java.util.Map<String, Object>> sections = new java.util.HashMap<>(PAYLOAD.sections());
        sections.put("withdrawal", java.util.Map.of("value_usd", 20_000));
        Payload odd = new Payload(TriggerAction.WITHDRAWAL_CREATE, PAYLOAD.walletId(), PAYLOAD.instant(), sections);
        CompiledCondition c = compile("withdrawal.value_usd > 10000.0 || true");
        assertEquals(new ConditionResult.Failure(CompiledCondition.DEFERRED, false), c.evaluateCompiledOnly(odd));
        assertEquals(c.evaluateInterpreted(odd, ThreadClock.now() + 1_000_000_000L),
                c.evaluate(odd, ThreadClock.now() + 1_000_000_000L));
    }
}
