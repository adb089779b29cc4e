package dev.custody.engine.check;

import dev.custody.engine.payload.Action;
import static dev.custody.engine.Fixtures.deny;
import static dev.custody.engine.Fixtures.policy;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.custody.engine.Fixtures;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.Decision;
import dev.custody.engine.FailureKind;
import dev.custody.engine.Outcome;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.schema.Limits;
import dev.custody.engine.schema.TriggerAction;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The payload limits: what a caller may send is bounded before any rule runs, so a regex, a concatenation or a
 * comprehension cannot be handed megabytes. Each limit is pinned on both sides: at the limit the rule decides,
 * one past it the action is malformed, with the message naming the field.
 */
class PayloadLimitsTest {
    static final PolicyEngine ENGINE = PolicyEngine.builder(ws -> List.of(policy("p",
            deny("email", "has(principal.user_email) && principal.user_email.matches('^(a|aa)+$')"),
            new Rule("args", "web3.contract_call",
                    "resource.decoded_args.exists(k, k.matches('^k0'))", "DENY",
                    null, true))))
            .timeBudget(Duration.ofSeconds(30)).build();

    static Map<String, Object> args(int strings, int length, int keyLength) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < strings; i++) {
            String key = ("k" + i + "_").repeat(keyLength).substring(0, keyLength);
            m.put(key, "a".repeat(length));
        }
        return m;
    }

    static Stream<Arguments> cases() {
        int s = Limits.PAYLOAD_STRING_MAX;
        int a = Limits.DECODED_ARG_STRING_MAX;
        int k = Limits.DECODED_ARG_KEY_MAX;
        return Stream.of(
                Arguments.of("email at the limit", Fixtures.withdrawal(1).field("principal.user_email", "a".repeat(s)),
                        "DENY email"),
                Arguments.of("email past the limit", Fixtures.withdrawal(1).field("principal.user_email", "a".repeat(s + 1)),
                        "malformed action: field `principal.user_email` is 1025 characters long, more than 1024"),
                Arguments.of("address past the limit",
                        Fixtures.withdrawal(1).field("withdrawal.destination_address", "0x" + "b".repeat(4 * 1024 * 1024)),
                        "malformed action: field `withdrawal.destination_address` is 4194306 characters long, more than 1024"),
                Arguments.of("argument at the limit", call(args(1, a, 4)), "DENY args"),
                Arguments.of("argument past the limit", call(args(1, a + 1, 4)),
                        "malformed action: field `resource.decoded_args` holds a string 16385 characters long, more than 16384"),
                Arguments.of("key at the limit", call(args(1, 1, k)), "DENY args"),
                Arguments.of("key past the limit", call(args(1, 1, k + 1)),
                        "malformed action: field `resource.decoded_args` has a key 129 characters long, more than 128"),
                Arguments.of("arguments at the total", call(args(4, a - 2, 2)), "DENY args"),
                Arguments.of("arguments past the total", call(args(5, a - 2, 2)),
                        "malformed action: field `resource.decoded_args` holds more than 65536 characters of strings and keys"));
    }

    static Action.Builder call(Map<String, Object> decodedArgs) {
        return Action.builder(TriggerAction.WEB3_CONTRACT_CALL).walletId(Fixtures.WALLET).at(Fixtures.TUESDAY_14H)
                .field("resource.network_code", "ETHEREUM_MAINNET")
                .field("resource.contract_address", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48")
                .field("resource.method_selector", "0xa9059cbb")
                .field("resource.value_wei", "0")
                .field("resource.gas_limit", 60000L)
                .field("resource.decoded_args", decodedArgs);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aPayloadAtALimitIsDecidedAndOnePastItIsMalformed(String name, Action.Builder action, String expected) {
        Decision d = ENGINE.evaluate("ws", action.build());
        if (expected.startsWith("DENY ")) {
            assertEquals(expected, d.outcome() + " " + d.ruleId(), String.valueOf(d.error()));
            assertEquals(null, d.failure());
        } else {
            assertEquals(Outcome.DENY, d.outcome());
            assertEquals(FailureKind.MALFORMED_ACTION, d.failure());
            assertEquals(expected, d.error());
        }
    }
}
