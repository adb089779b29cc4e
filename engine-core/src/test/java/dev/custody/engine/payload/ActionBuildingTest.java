package dev.custody.engine.payload;

import dev.custody.engine.check.ActionReader;
import dev.custody.engine.check.Payload;
import dev.custody.engine.check.PayloadResult;
import dev.custody.engine.check.PayloadValidator;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.custody.engine.Fixtures;
import dev.custody.engine.schema.TriggerAction;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What replay's speed rests on (engine-core/BENCHMARKS.md, "Replay against the JSON-parsing floor"): a built
 * action wraps its builder's maps without copying them, the builder copies them before it changes them again, and
 * the reader gives integers as {@code Long}, CEL's int, so the payload check converts and copies nothing.
 */
class ActionBuildingTest {
    @Test
    void changingABuilderAfterBuildLeavesTheBuiltActionAsItWas() {
        Action.Builder b = Fixtures.withdrawal(500);
        Action first = b.build();
        b.field("withdrawal.value_usd", 900.0);
        Action second = b.build();
        b.section("principal", Map.of("role", "owner"));
        assertEquals(500.0, first.sections().get("withdrawal").get("value_usd"));
        assertEquals(900.0, second.sections().get("withdrawal").get("value_usd"));
        assertEquals("signer", second.sections().get("principal").get("role"));
        assertEquals("owner", b.build().sections().get("principal").get("role"));
        assertThrows(UnsupportedOperationException.class, () -> first.sections().get("withdrawal").put("amount", 1.0));
    }

    @Test
    void theReaderGivesIntegersAsLongsAndOnlyHugeOnesAsBigIntegers() {
        ActionReader.Read read = assertInstanceOf(ActionReader.Read.class, ActionReader.read("{\"action\": \"web3.contract_call\","
                + " \"wallet_id\": \"" + Fixtures.WALLET + "\", \"resource\": {\"gas_limit\": 21000,"
                + " \"decoded_args\": {\"n\": 5, \"big\": 123456789012345678901234567890, \"x\": 2.5}}}"));
        Map<String, Object> resource = read.action().sections().get("resource");
        assertEquals(21000L, resource.get("gas_limit"));
        Map<?, ?> args = (Map<?, ?>) resource.get("decoded_args");
        assertEquals(5L, args.get("n"));
        assertEquals(new BigInteger("123456789012345678901234567890"), args.get("big"));
        assertEquals(2.5, args.get("x"));
        // a section of longs is shared by the checked payload, not converted and copied
        Action call = read.action();
        Payload p = ((PayloadResult.Valid) PayloadValidator.validate(call.withSection("resource",
                new HashMap<>(Map.of("gas_limit", 21000L))), Fixtures.TUESDAY_14H)).payload();
        assertEquals(21000L, p.sections().get("resource").get("gas_limit"));
        assertEquals(TriggerAction.WEB3_CONTRACT_CALL, p.action());
    }
}
