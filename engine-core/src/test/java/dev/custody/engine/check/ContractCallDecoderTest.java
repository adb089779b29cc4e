package dev.custody.engine.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * ABI vectors shaped like mainnet USDC calls (token 0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48, 6 decimals):
 * a transfer of 1,000 USDC to Binance 14, an unlimited approve to Permit2, a transferFrom of 250 USDC.
 */
class ContractCallDecoderTest {
    static final String USDC = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48";
    static final String USDC_LOWER = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
    static final String BINANCE_14 = "28c6c06298d514db089934071355e5743bf21d60";
    static final String PERMIT2 = "000000000022d473030f116ddee9f6b43ac78ba3";
    static final String SENDER = "f977814e90da44bfa03b6295a0616a897441acec";
    static final String PAD = "000000000000000000000000";
    static final String MAX_UINT256 =
            "115792089237316195423570985008687907853269984665640564039457584007913129639935";

    /** transfer(0x28c6…1d60, 1_000_000_000) = 1,000 USDC. */
    static final String TRANSFER = "0xa9059cbb" + PAD + BINANCE_14
            + "000000000000000000000000000000000000000000000000000000003b9aca00";
    /** approve(Permit2, 2^256-1). */
    static final String APPROVE_MAX = "0x095ea7b3" + PAD + PERMIT2 + "f".repeat(64);
    /** transferFrom(0xf977…acec, 0x28c6…1d60, 250_000_000) = 250 USDC. */
    static final String TRANSFER_FROM = "0x23b872dd" + PAD + SENDER + PAD + BINANCE_14
            + "000000000000000000000000000000000000000000000000000000000ee6b280";

    static Map<String, Object> tx(String data) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("from", "0x" + SENDER);
        m.put("to", USDC);
        m.put("nonce", "0x1f");
        m.put("gasLimit", "0x186a0");
        m.put("data", data);
        m.put("value", "0x0");
        m.put("chainId", 1);
        m.put("maxFeePerGas", "0x6fc23ac00");
        m.put("maxPriorityFeePerGas", "0x3b9aca00");
        m.put("accessList", List.of());
        return m;
    }

    static Map<String, Object> with(Map<String, Object> tx, String key, Object value) {
        Map<String, Object> m = new LinkedHashMap<>(tx);
        m.put(key, value);
        return m;
    }

    static ContractCallResult.Decoded decoded(Map<String, Object> tx) {
        return assertInstanceOf(ContractCallResult.Decoded.class, ContractCallDecoder.decode(tx, null, "ETHEREUM_MAINNET"));
    }

    static String rejected(Map<String, Object> tx) {
        return assertInstanceOf(ContractCallResult.Rejected.class,
                ContractCallDecoder.decode(tx, null, "ETHEREUM_MAINNET")).error();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> args(ContractCallResult.Decoded d) {
        return (Map<String, Object>) d.resource().get("decoded_args");
    }

    @Test
    void transferDerivesTheWholeResourceSection() {
        ContractCallResult.Decoded d = assertInstanceOf(ContractCallResult.Decoded.class,
                ContractCallDecoder.decode(tx(TRANSFER), "transfer", "ETHEREUM_MAINNET"));
        Map<String, Object> want = new LinkedHashMap<>();
        want.put("network_code", "ETHEREUM_MAINNET");
        want.put("contract_address", USDC_LOWER);
        want.put("method_selector", "0xa9059cbb");
        want.put("method_name", "transfer");
        want.put("value_wei", "0");
        want.put("gas_limit", 100_000L);
        want.put("decoded_args", Map.of("to", "0x" + BINANCE_14, "value", "1000000000"));
        assertEquals(want, d.resource());
        assertEquals(List.copyOf(want.keySet()), List.copyOf(d.resource().keySet()));
        assertEquals(List.of(), d.notes());
    }

    @Test
    void approveOfTheMaximumAmount() {
        ContractCallResult.Decoded d = decoded(tx(APPROVE_MAX));
        assertEquals("0x095ea7b3", d.resource().get("method_selector"));
        assertEquals(Map.of("spender", "0x" + PERMIT2, "value", MAX_UINT256), args(d));
    }

    @Test
    void transferFrom() {
        ContractCallResult.Decoded d = decoded(tx(TRANSFER_FROM));
        assertEquals(Map.of("from", "0x" + SENDER, "to", "0x" + BINANCE_14, "value", "250000000"), args(d));
        assertEquals(List.of("from", "to", "value"), List.copyOf(args(d).keySet()));
    }

    @Test
    void uppercaseHexIsReadAndLowercased() {
        ContractCallResult.Decoded d = decoded(with(tx("0X" + TRANSFER.substring(2).toUpperCase()), "to",
                USDC.toUpperCase().replace("0X", "0x")));
        assertEquals(USDC_LOWER, d.resource().get("contract_address"));
        assertEquals("0xa9059cbb", d.resource().get("method_selector"));
        assertEquals(Map.of("to", "0x" + BINANCE_14, "value", "1000000000"), args(d));
    }

    @Test
    void shortCalldataKeepsTheSelectorButDecodesNothing() {
        ContractCallResult.Decoded d = decoded(tx(TRANSFER.substring(0, TRANSFER.length() - 2)));
        assertEquals("0xa9059cbb", d.resource().get("method_selector"));
        assertEquals(Map.of(), args(d));
        assertEquals(List.of("calldata of `transfer(address,uint256)` is 67 bytes, not 68: arguments not decoded"),
                d.notes());
    }

    @Test
    void longCalldataDecodesNothing() {
        // an appended word (some wallets append tracking data) would be ignored by the token, but not by us
        ContractCallResult.Decoded d = decoded(tx(TRANSFER + "00".repeat(32)));
        assertEquals(Map.of(), args(d));
        assertEquals(List.of("calldata of `transfer(address,uint256)` is 100 bytes, not 68: arguments not decoded"),
                d.notes());
        assertEquals(Map.of(), args(decoded(tx(TRANSFER + "deadbeef"))));
    }

    @Test
    void nonZeroAddressPaddingDecodesNothing() {
        String dirty = "0xa9059cbb" + "000000000000000000000001" + BINANCE_14 + TRANSFER.substring(10 + 64);
        ContractCallResult.Decoded d = decoded(tx(dirty));
        assertEquals(Map.of(), args(d));
        assertEquals(List.of("argument `to` of `transfer(address,uint256)` has non-zero address padding: "
                + "arguments not decoded"), d.notes());
        String dirtyFrom = TRANSFER_FROM.substring(0, 10) + "ff" + TRANSFER_FROM.substring(12);
        assertEquals(Map.of(), args(decoded(tx(dirtyFrom))));
    }

    @Test
    void oddHexLengthDecodesNothing() {
        ContractCallResult.Decoded d = decoded(tx(TRANSFER + "0"));
        assertEquals("0xa9059cbb", d.resource().get("method_selector"));
        assertEquals(Map.of(), args(d));
        assertEquals(List.of("calldata has an odd number of hex digits (137): arguments not decoded"), d.notes());
    }

    @Test
    void anUnrecognizedSelectorHasEmptyArgumentsAndNoNote() {
        // Uniswap V2 swapExactTokensForTokens
        ContractCallResult.Decoded d = decoded(tx("0x38ed1739" + "00".repeat(32 * 5)));
        assertEquals("0x38ed1739", d.resource().get("method_selector"));
        assertEquals(Map.of(), args(d));
        assertEquals(List.of(), d.notes());
    }

    @Test
    void noCalldataIsAPlainTransferWithoutSelector() {
        for (Object data : new Object[] {"0x", null}) {
            ContractCallResult.Decoded d = decoded(with(tx(TRANSFER), "data", data));
            assertFalse(d.resource().containsKey("method_selector"));
            assertEquals(Map.of(), args(d));
            assertEquals(List.of("no calldata (a plain value transfer): `resource.method_selector` is absent"),
                    d.notes());
        }
        ContractCallResult.Decoded shortOne = decoded(tx("0xa9059c"));
        assertFalse(shortOne.resource().containsKey("method_selector"));
        assertEquals(List.of("calldata is shorter than a 4-byte selector: `resource.method_selector` is absent"),
                shortOne.notes());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "0x0                | 0",
            "0x00               | 0",
            "0xde0b6b3a7640000  | 1000000000000000000",
            "0XDE0B6B3A7640000  | 1000000000000000000",
            "1000000000000000000| 1000000000000000000",
            "007                | 7",
    })
    void valueFromHexOrDecimal(String value, String wei) {
        assertEquals(wei, decoded(with(tx(TRANSFER), "value", value.strip())).resource().get("value_wei"));
    }

    @Test
    void valueCoversTheFullUint256Range() {
        assertEquals(MAX_UINT256, decoded(with(tx(TRANSFER), "value", "0x" + "f".repeat(64))).resource().get("value_wei"));
        assertEquals(MAX_UINT256, decoded(with(tx(TRANSFER), "value", MAX_UINT256)).resource().get("value_wei"));
        assertEquals(MAX_UINT256, decoded(with(tx(TRANSFER), "value", new BigInteger(MAX_UINT256))).resource().get("value_wei"));
        assertEquals("5", decoded(with(tx(TRANSFER), "value", 5)).resource().get("value_wei"));
        assertEquals("0", decoded(with(tx(TRANSFER), "value", null)).resource().get("value_wei"));
        String over = new BigInteger(MAX_UINT256).add(BigInteger.ONE).toString();
        assertEquals("`raw_transaction.value` is out of range: at most 2^256-1", rejected(with(tx(TRANSFER), "value", over)));
        assertEquals("`raw_transaction.value` is out of range: at most 2^256-1",
                rejected(with(tx(TRANSFER), "value", "0x1" + "0".repeat(64))));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "-1          | `raw_transaction.value` `-1` is not a hex (`0x…`) or decimal integer",
            "0x-1        | `raw_transaction.value` `0x-1` is not a hex (`0x…`) or decimal integer",
            "0x          | `raw_transaction.value` `0x` is not a hex (`0x…`) or decimal integer",
            "0xzz        | `raw_transaction.value` `0xzz` is not a hex (`0x…`) or decimal integer",
            "1e18        | `raw_transaction.value` `1e18` is not a hex (`0x…`) or decimal integer",
            "'1 000'     | `raw_transaction.value` `1 000` is not a hex (`0x…`) or decimal integer",
            "+5          | `raw_transaction.value` `+5` is not a hex (`0x…`) or decimal integer",
            "''          | `raw_transaction.value` `` is not a hex (`0x…`) or decimal integer",
            "١٢          | `raw_transaction.value` `١٢` is not a hex (`0x…`) or decimal integer",
    })
    void junkValuesAreRefused(String value, String error) {
        assertEquals(error, rejected(with(tx(TRANSFER), "value", value)));
    }

    @Test
    void nonIntegerJsonValuesAreRefused() {
        String want = "`raw_transaction.value` must be an integer, as a hex (`0x…`) or decimal string";
        assertEquals(want, rejected(with(tx(TRANSFER), "value", 1.5)));
        assertEquals(want, rejected(with(tx(TRANSFER), "value", true)));
        assertEquals("`raw_transaction.value` must not be negative, got -3", rejected(with(tx(TRANSFER), "value", -3)));
    }

    @Test
    void gasLimitFromHexOrDecimalUpToLongMax() {
        assertEquals(21_000L, decoded(with(tx(TRANSFER), "gasLimit", "21000")).resource().get("gas_limit"));
        assertEquals(21_000L, decoded(with(tx(TRANSFER), "gasLimit", 21000)).resource().get("gas_limit"));
        assertEquals(Long.MAX_VALUE, decoded(with(tx(TRANSFER), "gasLimit", "0x7fffffffffffffff")).resource().get("gas_limit"));
        assertEquals("`raw_transaction.gasLimit` is out of range: at most 9223372036854775807",
                rejected(with(tx(TRANSFER), "gasLimit", "0x8000000000000000")));
        assertEquals("`raw_transaction.gasLimit` `0x5208g` is not a hex (`0x…`) or decimal integer",
                rejected(with(tx(TRANSFER), "gasLimit", "0x5208g")));
        assertFalse(decoded(with(tx(TRANSFER), "gasLimit", null)).resource().containsKey("gas_limit"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb4        | `raw_transaction.to` `0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb4` is not an address (`0x` and 40 hex digits)",
            "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb480      | `raw_transaction.to` `0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb480` is not an address (`0x` and 40 hex digits)",
            "a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48ab       | `raw_transaction.to` `a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48ab` is not an address (`0x` and 40 hex digits)",
            "0xg0b86991c6218b36c1d19d4a2e9eb0ce3606eb48       | `raw_transaction.to` `0xg0b86991c6218b36c1d19d4a2e9eb0ce3606eb48` is not an address (`0x` and 40 hex digits)",
    })
    void malformedToIsRefused(String to, String error) {
        assertEquals(error, rejected(with(tx(TRANSFER), "to", to)));
    }

    @Test
    void otherRefusals() {
        assertEquals("`raw_transaction.to` is missing (a contract creation is not a contract call)",
                rejected(with(tx(TRANSFER), "to", null)));
        assertEquals("`raw_transaction.to` must be a string", rejected(with(tx(TRANSFER), "to", 5)));
        assertEquals("`raw_transaction.data` `0xa9059cbz` is not `0x`-prefixed hex", rejected(tx("0xa9059cbz")));
        assertEquals("`raw_transaction.data` `a9059cbb` is not `0x`-prefixed hex", rejected(tx("a9059cbb")));
        assertEquals("`raw_transaction.data` must be a hex string", rejected(with(tx(TRANSFER), "data", 12)));
        assertEquals("unknown field `raw_transaction.gaslimit` (did you mean `raw_transaction.gasLimit`?)",
                rejected(with(tx(TRANSFER), "gaslimit", "0x1")));
    }

    @Test
    void solanaTransactionsAreRefused() {
        String want = "`raw_transaction` is a solana transaction: `web3.contract_call` rules guard evm contract "
                + "calls only, so it is refused";
        Map<String, Object> sol = new LinkedHashMap<>();
        sol.put("data", "AQABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4fIA==");
        sol.put("from", "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM");
        sol.put("meta", Map.of("tx_method", "solana_signTransaction"));
        sol.put("chainId", "1399811149");
        assertEquals(want, assertInstanceOf(ContractCallResult.Rejected.class,
                ContractCallDecoder.decode(sol, null, "SOL_MAINNET")).error());
        // recognized even without the network code or the meta
        sol.remove("meta");
        assertEquals(want, rejected(sol));
        assertEquals(want, assertInstanceOf(ContractCallResult.Rejected.class,
                ContractCallDecoder.decode(tx(TRANSFER), null, "SOL_MAINNET")).error());
    }

    @Test
    void aMethodNameThatContradictsTheSelectorIsNoted() {
        ContractCallResult.Decoded d = assertInstanceOf(ContractCallResult.Decoded.class,
                ContractCallDecoder.decode(tx(APPROVE_MAX), "transfer", "ETHEREUM_MAINNET"));
        assertEquals("transfer", d.resource().get("method_name"));
        assertEquals(List.of("`method_name` `transfer` does not match the selector `0x095ea7b3`; rules see the "
                + "selector as sent"), d.notes());
        assertTrue(assertInstanceOf(ContractCallResult.Decoded.class,
                ContractCallDecoder.decode(tx(APPROVE_MAX), "approve(address,uint256)", null)).notes().isEmpty());
    }
}
