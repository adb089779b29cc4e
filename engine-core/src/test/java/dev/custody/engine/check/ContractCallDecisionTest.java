package dev.custody.engine.check;

import static dev.custody.engine.check.ContractCallDecoderTest.BINANCE_14;
import static dev.custody.engine.check.ContractCallDecoderTest.PAD;
import static dev.custody.engine.check.ContractCallDecoderTest.TRANSFER;
import static dev.custody.engine.check.ContractCallDecoderTest.USDC;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.Fixtures;
import dev.custody.engine.internal.bundle.PolicyBundle;
import dev.custody.engine.Decision;
import dev.custody.engine.TestEvaluator;
import dev.custody.engine.Outcome;
import dev.custody.engine.policy.Rule;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Actions whose {@code resource} is derived from a raw transaction, read by ActionReader and decided. */
class ContractCallDecisionTest {
    private static final String ALLOWLISTED = "0x" + BINANCE_14;
    private static final String STRANGER = "0x1111111111111111111111111111111111111111";

    /** USDC transfers only to the allowlist; unlimited approvals never; anything else goes to approval. */
    private static final PolicyBundle BUNDLE = Fixtures.bundle(Fixtures.policy("usdc",
            new Rule("not-allowlisted", "web3.contract_call",
                    "resource.contract_address == '" + USDC.toLowerCase() + "' && resource.method_selector == '0xa9059cbb'"
                            + " && !(has(resource.decoded_args.to) && resource.decoded_args.to in ['" + ALLOWLISTED + "'])",
                    "DENY", "usdc transfers go to allowlisted addresses only", null),
            new Rule("unlimited-approve", "web3.contract_call",
                    "resource.method_selector == '0x095ea7b3' && has(resource.decoded_args.value)"
                            + " && size(resource.decoded_args.value) >= 70",
                    "DENY", "no unlimited approvals", null),
            new Rule("allowlisted", "web3.contract_call",
                    "has(resource.decoded_args.to) && resource.decoded_args.to == '" + ALLOWLISTED + "'"
                            + " && resource.value_wei == '0' && resource.gas_limit <= 200000",
                    "ALLOW", "allowlisted usdc transfer", null)));

    private final TestEvaluator evaluator = relaxedEvaluator();

    private static String line(String data) {
        return line("\"to\": \"" + USDC + "\", \"data\": \"" + data + "\", \"value\": \"0x0\", \"gasLimit\": \"0x186a0\"", "");
    }

    private static String line(String rawFields, String more) {
        return "{\"id\": \"c-1\", \"action\": \"web3.contract_call\", \"wallet_id\": \"" + Fixtures.WALLET + "\","
                + " \"at\": \"2026-11-03T14:05:00Z\", \"principal\": {\"role\": \"signer\"},"
                + " \"network_code\": \"ETHEREUM_MAINNET\", \"method_name\": \"transfer\"" + more + ","
                + " \"raw_transaction\": {" + rawFields + ", \"chainId\": 1}}";
    }

    private static ActionReader.Read ok(String json) {
        return assertInstanceOf(ActionReader.Read.class, ActionReader.read(json));
    }

    private static ActionReader.Malformed error(String json) {
        return assertInstanceOf(ActionReader.Malformed.class, ActionReader.read(json));
    }

    private Decision decide(String json) {
        return evaluator.evaluate(BUNDLE, ok(json).action(), true);
    }

    @Test
    void theBundleCompiles() {
        assertTrue(BUNDLE.valid(), () -> BUNDLE.errors().toString());
    }

    @Test
    void aTransferToAnAllowlistedAddressIsAllowed() {
        ActionReader.Read ok = ok(line(TRANSFER));
        assertEquals(List.of(), ok.notes());
        assertEquals(Map.of("to", ALLOWLISTED, "value", "1000000000"),
                ok.action().sections().get("resource").get("decoded_args"));
        Decision d = evaluator.evaluate(BUNDLE, ok.action());
        assertEquals(Outcome.ALLOW, d.outcome());
        assertEquals("allowlisted", d.ruleId());
    }

    @Test
    void aTransferToAnyoneElseIsDenied() {
        String data = "0xa9059cbb" + PAD + STRANGER.substring(2) + TRANSFER.substring(10 + 64);
        Decision d = decide(line(data));
        assertEquals(Outcome.DENY, d.outcome());
        assertEquals("not-allowlisted", d.ruleId());
        assertFalse(d.failClosed());
    }

    @Test
    void dirtyPaddingCannotSmuggleAnAllowlistedAddress() {
        // the low 20 bytes are the allowlisted address, but the word is not a valid address encoding
        String data = "0xa9059cbb" + "0000000000000000000000ff" + BINANCE_14 + TRANSFER.substring(10 + 64);
        ActionReader.Read ok = ok(line(data));
        assertEquals(1, ok.notes().size());
        Decision d = evaluator.evaluate(BUNDLE, ok.action());
        assertEquals(Outcome.DENY, d.outcome());
        assertEquals("not-allowlisted", d.ruleId());
    }

    @Test
    void anAppendedWordCannotSmuggleAnAllowlistedTransferEither() {
        Decision d = decide(line(TRANSFER + "00".repeat(32)));
        assertEquals(Outcome.DENY, d.outcome());
        assertEquals("not-allowlisted", d.ruleId());
    }

    @Test
    void anUnlimitedApproveIsDenied() {
        Decision d = decide(line(ContractCallDecoderTest.APPROVE_MAX));
        assertEquals(Outcome.DENY, d.outcome());
        assertEquals("unlimited-approve", d.ruleId());
    }

    @Test
    void anUnrecognizedCallMatchesNothing() {
        Decision d = decide(line("0x38ed1739" + "00".repeat(160)));
        assertEquals(Outcome.NO_MATCH, d.outcome());
    }

    @Test
    void aPlainValueTransferFailsClosedOnARuleThatReadsTheSelector() {
        ActionReader.Read ok = ok(line("\"to\": \"" + USDC + "\", \"value\": \"1000\", \"gasLimit\": 21000", ""));
        assertEquals(List.of("no calldata (a plain value transfer): `resource.method_selector` is absent",
                "`method_name` `transfer` does not match the selector (none); rules see the selector as sent"),
                ok.notes());
        Decision d = evaluator.evaluate(BUNDLE, ok.action());
        assertEquals(Outcome.DENY, d.outcome());
        assertTrue(d.failClosed());
    }

    @Test
    void malformedHexIsALineErrorNamingTheField() {
        ActionReader.Malformed e = error(line("\"to\": \"0x12\", \"data\": \"" + TRANSFER + "\"", ""));
        assertEquals("`raw_transaction.to` `0x12` is not an address (`0x` and 40 hex digits)", e.message());
        assertEquals("c-1", e.id());
        assertEquals("`raw_transaction.value` `0x1g` is not a hex (`0x…`) or decimal integer",
                error(line("\"to\": \"" + USDC + "\", \"value\": \"0x1g\"", "")).message());
        assertEquals("`raw_transaction.gasLimit` `ten` is not a hex (`0x…`) or decimal integer",
                error(line("\"to\": \"" + USDC + "\", \"gasLimit\": \"ten\"", "")).message());
    }

    @Test
    void resourceAndRawTransactionAreExclusive() {
        assertEquals("give either `resource` or `raw_transaction`, not both",
                error(line("\"to\": \"" + USDC + "\"", ", \"resource\": {\"network_code\": \"X\"}")).message());
    }

    @Test
    void rawTransactionOnlyForContractCalls() {
        String json = "{\"action\": \"withdrawal.create\", \"wallet_id\": \"" + Fixtures.WALLET + "\","
                + " \"raw_transaction\": {\"to\": \"" + USDC + "\"}}";
        assertEquals("`raw_transaction` is only for `web3.contract_call` actions", error(json).message());
    }

    @Test
    void metadataWithoutRawTransactionIsAnError() {
        String json = "{\"action\": \"web3.contract_call\", \"wallet_id\": \"" + Fixtures.WALLET + "\","
                + " \"method_name\": \"transfer\", \"resource\": {}}";
        assertEquals("`method_name` goes with `raw_transaction`; without one, give `resource` fields",
                error(json).message());
        assertEquals("`network_code` must be a string",
                error(line("\"to\": \"" + USDC + "\"", ", \"network_code\": 1").replace(
                        "\"network_code\": \"ETHEREUM_MAINNET\", ", "")).message());
        assertEquals("`raw_transaction` must be an object", error(
                "{\"action\": \"web3.contract_call\", \"raw_transaction\": \"0xf86c\"}").message());
    }

    @Test
    void aSolanaRequestIsALineError() {
        String json = "{\"id\": \"s-1\", \"action\": \"web3.contract_call\", \"wallet_id\": \"" + Fixtures.WALLET
                + "\", \"network_code\": \"SOL_MAINNET\", \"raw_transaction\": {\"data\": \"AQAB\", \"from\": "
                + "\"9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM\", \"meta\": {\"tx_method\": "
                + "\"solana_signTransaction\"}, \"chainId\": \"1399811149\"}}";
        assertTrue(error(json).message().startsWith("`raw_transaction` is a solana transaction"));
    }

    @Test
    void actionsWithoutRawTransactionHaveNoNotes() {
        String json = "{\"action\": \"web3.contract_call\", \"wallet_id\": \"" + Fixtures.WALLET + "\","
                + " \"resource\": {\"method_selector\": \"0xa9059cbb\"}}";
        assertEquals(List.of(), ok(json).notes());
    }

    /** A budget far above the default: these tests are not about it, and a busy shared core must not fail them. */
    static TestEvaluator relaxedEvaluator() {
        return TestEvaluator.builder().timeBudget(java.time.Duration.ofSeconds(10)).build();
    }
}
