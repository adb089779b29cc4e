package dev.custody.engine.compile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.custody.engine.Fixtures;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.Payload;
import dev.custody.engine.check.PayloadResult;
import dev.custody.engine.check.PayloadValidator;
import dev.custody.engine.schema.Limits;
import dev.custody.engine.schema.TriggerAction;
import java.util.Collections;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a rule builds while it runs is capped: a watched condition that grows a string past the cap fails as a rule
 * error (so it denies) rather than running on. The payload limits bound the inputs; this bounds what a rule makes
 * of them.
 */
class BuiltValueCapTest {
    private static final RuleCompiler COMPILER = RuleCompiler.create();
    private static final long PATIENT = 30_000_000_000L;

    static Payload call(String data) {
        Action a = Action.builder(TriggerAction.WEB3_CONTRACT_CALL).walletId(Fixtures.WALLET).at(Fixtures.TUESDAY_14H)
                .field("resource.network_code", "ETHEREUM_MAINNET")
                .field("resource.contract_address", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48")
                .field("resource.method_selector", "0xa9059cbb")
                .field("resource.value_wei", "0")
                .field("resource.gas_limit", 60000L)
                .field("resource.decoded_args", Map.of("data", data))
                .build();
        return ((PayloadResult.Valid) PayloadValidator.validate(a, Fixtures.TUESDAY_14H)).payload();
    }

    /** {@code n} copies of the argument concatenated, inside a comprehension so that the condition is watched. */
    static CompiledCondition concatenated(int n) {
        String concat = String.join(" + ", Collections.nCopies(n, "resource.decoded_args.data"));
        return COMPILER.compile(TriggerAction.WEB3_CONTRACT_CALL,
                "has(resource.decoded_args.data) && [1].all(x, size(" + concat + ") > 0)").condition().orElseThrow();
    }

    @Test
    void aStringBuiltPastTheCapIsARuleError() {
        Payload p = call("a".repeat(Limits.DECODED_ARG_STRING_MAX));
        // 16 copies of 16 Ki characters: exactly the cap, decided
        assertEquals(ConditionResult.of(true), concatenated(16).evaluate(p, ThreadClock.now() + PATIENT));
        // 17 copies: the sixteenth addition makes 278,528 characters, past the cap
        ConditionResult r = concatenated(17).evaluate(p, ThreadClock.now() + PATIENT);
        assertEquals(new ConditionResult.Failure("a string grew to 278528 characters, more than 262144", false), r);
    }

    @Test
    void theCompiledPathCapsWhatItBuildsAsTheInterpreterDoes() {
        Payload p = call("a".repeat(Limits.DECODED_ARG_STRING_MAX));
        String concat = String.join(" + ", Collections.nCopies(17, "resource.decoded_args.data"));
        CompiledCondition c = COMPILER.compile(TriggerAction.WEB3_CONTRACT_CALL,
                "has(resource.decoded_args.data) && (size(" + concat + ") > 0 || true)").condition().orElseThrow();
        assertEquals(true, c.compiled(), "no comprehension: the compiled form runs");
        // not absorbed by || true: the rule fails, so it denies
        assertEquals(new ConditionResult.Failure("a string grew to 278528 characters, more than 262144", false),
                c.evaluate(p, ThreadClock.now() + PATIENT));
    }
}
