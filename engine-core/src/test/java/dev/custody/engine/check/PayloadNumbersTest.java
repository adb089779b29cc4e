package dev.custody.engine.check;

import dev.custody.engine.payload.Action;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.custody.engine.Fixtures;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.Outcome;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * How a payload reads numbers where cel-java's meaning depends on more than the value (docs/design.md §3.9):
 * {@code -0.0} is read as {@code 0.0} on every path that builds a payload (the one-pass bytes reader, the Jackson
 * path, {@link Action.Builder#field}, {@code decoded_args} at any depth), so cel-java's ordering of {@code -0.0}
 * below int {@code 0} decides nothing; and a JSON number in an int field is read to the exact long of its double
 * when that double is whole and within the long range ({@code 4611686018427387904.0} is 2^62, not
 * {@code 4611686018427387900}), refused as malformed otherwise.
 */
class PayloadNumbersTest {
    private static final String WALLET = "\"wallet_id\": \"00000000-0000-4000-8000-000000000001\"";

    private static String withdrawal(String withdrawalFields, String walletFields) {
        return "{\"id\": \"a\", \"action\": \"withdrawal.create\", " + WALLET + ", \"workspace_id\": \"w\", "
                + "\"at\": \"2026-11-03T14:05:00Z\", \"principal\": {\"role\": \"signer\"}, \"withdrawal\": {"
                + "\"amount\": 1.5, \"value_usd\": 10.0, \"asset_symbol\": \"ETH\", \"asset_is_native\": true, "
                + "\"destination_address\": \"0xabc\", \"network_code\": \"ETHEREUM_MAINNET\", \"is_whitelisted\": false, "
                + "\"address_age_sec\": 0" + withdrawalFields + "}, \"wallet\": {\"outflow_24h\": 1.0" + walletFields + "}}";
    }

    /** The checked payload of a line, read both ways: the bytes (one-pass reader first) and the text (Jackson). */
    private static PayloadResult[] bothPaths(String line) {
        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
        ActionReader.Result fast = ActionReader.read(bytes, 0, bytes.length);
        ActionReader.Result general = ActionReader.read(line);
        assertEquals(general, fast, line);
        Action a = assertInstanceOf(ActionReader.Read.class, fast, line).action();
        Action b = assertInstanceOf(ActionReader.Read.class, general, line).action();
        PayloadResult pa = PayloadValidator.validate(a, Fixtures.TUESDAY_14H);
        PayloadResult pb = PayloadValidator.validate(b, Fixtures.TUESDAY_14H);
        assertEquals(pb, pa, line);
        return new PayloadResult[] {pa, pb};
    }

    private static Object value(PayloadResult r, String section, String field) {
        Payload p = assertInstanceOf(PayloadResult.Valid.class, r).payload();
        Object inSection = p.sections().get(section).get(field);
        Object inSlot = p.slot(Payload.slotOf(dev.custody.engine.schema.Section.fromWireName(section).orElseThrow(), field));
        assertEquals(inSection, inSlot, section + "." + field);
        return inSection;
    }

    private static void positiveZero(Object v, String what) {
        Double d = assertInstanceOf(Double.class, v, what);
        assertEquals(0L, Double.doubleToRawLongBits(d), what + " is " + d);
    }

    @Test
    void negativeZeroIsReadAsZeroOnBothPathsOfTheText() {
        for (String zero : List.of("-0.0", "-0", "-0e0", "-0.0e5", "-0.000")) {
            String line = withdrawal(", \"value_usd\": " + zero, ", \"outflow_1h\": " + zero).replace("\"value_usd\": 10.0, ", "");
            for (PayloadResult r : bothPaths(line)) {
                positiveZero(value(r, "withdrawal", "value_usd"), zero + " as value_usd");
                positiveZero(value(r, "wallet", "outflow_1h"), zero + " as outflow_1h");
            }
        }
        // the plain line is the one-pass reader's: it did read it (it gives up on nothing here)
        byte[] bytes = withdrawal("", ", \"outflow_1h\": -0.0").getBytes(StandardCharsets.US_ASCII);
        assertInstanceOf(ActionReader.Read.class, JsonLine.action(bytes, 0, bytes.length));
    }

    @Test
    void negativeZeroIsReadAsZeroInDecodedArgumentsAtAnyDepth() {
        String line = "{\"action\": \"web3.contract_call\", " + WALLET + ", \"resource\": {\"gas_limit\": 21000, "
                + "\"decoded_args\": {\"x\": -0.0, \"list\": [1.5, -0.0, {\"deep\": -0.0}]}}}";
        for (PayloadResult r : bothPaths(line)) {
            Map<?, ?> args = (Map<?, ?>) value(r, "resource", "decoded_args");
            positiveZero(args.get("x"), "decoded_args.x");
            List<?> list = (List<?>) args.get("list");
            assertEquals(1.5, list.get(0));
            positiveZero(list.get(1), "decoded_args.list[1]");
            positiveZero(((Map<?, ?>) list.get(2)).get("deep"), "decoded_args.list[2].deep");
        }
    }

    @Test
    void negativeZeroIsReadAsZeroFromABuiltAction() {
        for (Object zero : List.of(-0.0, -0.0f, Double.valueOf(-0.0))) {
            Action a = Fixtures.withdrawal(10).field("withdrawal.amount", zero).field("wallet.outflow_1h", zero)
                    .field("withdrawal.value_usd", zero).build();
            PayloadResult r = PayloadValidator.validate(a, Fixtures.TUESDAY_14H);
            positiveZero(value(r, "withdrawal", "amount"), zero + " amount");
            positiveZero(value(r, "withdrawal", "value_usd"), zero + " value_usd");
            positiveZero(value(r, "wallet", "outflow_1h"), zero + " outflow_1h");
        }
        // a zero of another type in a double field was already a double 0.0
        PayloadResult r = PayloadValidator.validate(Fixtures.withdrawal(10).field("withdrawal.amount", BigDecimal.ZERO.negate())
                .build(), Fixtures.TUESDAY_14H);
        positiveZero(value(r, "withdrawal", "amount"), "BigDecimal zero");
    }

    @Test
    void noDecisionDependsOnANegativeZeroInThePayload() {
        // cel-java orders -0.0 below int 0: read as -0.0, `wallet.outflow_1h < 0` would be true for a valid action
        PolicyEngine engine = PolicyEngine.builder(ws -> List.of(Fixtures.policy("p",
                Fixtures.deny("negative", "has(wallet.outflow_1h) && wallet.outflow_1h < 0"),
                Fixtures.deny("minus-zero-amount", "withdrawal.amount < 0 || withdrawal.amount != 0.0 && withdrawal.amount <= 0"),
                Fixtures.allow("ok", "true")))).timeBudget(Duration.ofSeconds(5)).build();
        Action built = Fixtures.withdrawal(10).field("wallet.outflow_1h", -0.0).field("withdrawal.amount", -0.0).build();
        assertEquals(Outcome.ALLOW, engine.evaluate("w", built).outcome());
        String line = withdrawal("", ", \"outflow_1h\": -0.0").replace("\"amount\": 1.5", "\"amount\": -0.0");
        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
        Action read = ((ActionReader.Read) ActionReader.read(bytes, 0, bytes.length)).action();
        assertEquals(Outcome.ALLOW, engine.evaluate("w", read).outcome());
        Action general = ((ActionReader.Read) ActionReader.read(line)).action();
        assertEquals(Outcome.ALLOW, engine.evaluate("w", general).outcome());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        // JSON text in an int field | the long read
        "4611686018427387904.0 | 4611686018427387904",
        "4.611686018427387904e18 | 4611686018427387904",
        "4611686018427387904 | 4611686018427387904",
        "9007199254740993 | 9007199254740993",
        "9007199254740993.0 | 9007199254740992",
        "9007199254740992.0 | 9007199254740992",
        "9.223372036854775E18 | 9223372036854774784",
        "9223372036854774784.0 | 9223372036854774784",
        "123456789012345678.0 | 123456789012345680",
        "1e18 | 1000000000000000000",
        "3.0 | 3",
        "-0.0 | 0",
        "-0 | 0",
        "0e5 | 0",
    })
    void aWholeDoubleInAnIntFieldIsReadAsItsExactLong(String text, long expected) {
        for (PayloadResult r : bothPaths(withdrawal("", ", \"withdrawal_count_1h\": " + text))) {
            assertEquals(expected, value(r, "wallet", "withdrawal_count_1h"), text);
        }
        // built with the value the text reads as: a Long for an integer, else a Double
        Object v = text.matches("-?[0-9]+") ? (Object) Long.parseLong(text) : (Object) Double.parseDouble(text);
        PayloadResult built = PayloadValidator.validate(Fixtures.withdrawal(10).field("wallet.withdrawal_count_1h", v)
                .build(), Fixtures.TUESDAY_14H);
        assertEquals(expected, value(built, "wallet", "withdrawal_count_1h"), text + " built");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        // JSON text in an int field | the reason
        "9223372036854775807.0 | field `wallet.withdrawal_count_1h` must be a whole number in the integer range, not 9.223372036854776E18",
        "9223372036854775808.0 | field `wallet.withdrawal_count_1h` must be a whole number in the integer range, not 9.223372036854776E18",
        "1e19 | field `wallet.withdrawal_count_1h` must be a whole number in the integer range, not 1.0E19",
        "1.5 | field `wallet.withdrawal_count_1h` must be a whole number in the integer range, not 1.5",
        "0.1 | field `wallet.withdrawal_count_1h` must be a whole number in the integer range, not 0.1",
        "4.9e-324 | field `wallet.withdrawal_count_1h` must be a whole number in the integer range, not 4.9E-324",
    })
    void aDoubleInAnIntFieldThatIsNotAWholeLongIsMalformed(String text, String reason) {
        for (PayloadResult r : bothPaths(withdrawal("", ", \"withdrawal_count_1h\": " + text))) {
            assertEquals(reason, assertInstanceOf(PayloadResult.Invalid.class, r).error(), text);
        }
    }
}
