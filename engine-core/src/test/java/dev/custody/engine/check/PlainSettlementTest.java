package dev.custody.engine.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.custody.engine.velocity.Settlement;
import dev.custody.engine.velocity.SettlementStatus;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The one-pass reader of settlement records ({@link JsonLine#settlement}) gives what the general path (Jackson, then
 * {@code ActionReader}'s checks) gives for the same text, and gives up on every text the general path refuses or
 * would read differently, leaving the message to it.
 */
class PlainSettlementTest {
    private static final String SETTLED = "{\"event\": \"withdrawal.settled\", "
            + "\"wallet_id\": \"92e0490b-f666-47c5-8c1a-dd0688c6fc87\", "
            + "\"workspace_id\": \"00cd4ae6-310e-4566-99ae-1270f1ed5570\", \"network_code\": \"ETHEREUM_MAINNET\", "
            + "\"value_usd\": 1408.41, \"status\": \"success\", \"at\": \"2026-11-02T00:20:48Z\"}";

    /** The one-pass reader's result on a text, or null where it gives up. */
    private static ActionReader.SettlementRead fast(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return JsonLine.settlement(bytes, 0, bytes.length);
    }

    /** Both paths on one text: the bytes path (which tries the one-pass reader first) and Jackson's on the text. */
    private static void agree(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        ActionReader.Result general = ActionReader.read(text);
        assertEquals(general, ActionReader.read(bytes, 0, bytes.length), text);
        ActionReader.SettlementRead one = fast(text);
        if (one != null) {
            assertEquals(general, one, text); // never reads what the general path refuses, never reads it otherwise
        }
    }

    @Test
    void aPlainSettlementIsReadInOnePassAsTheGeneralPathReadsIt() {
        ActionReader.SettlementRead read = fast(SETTLED);
        assertNotNull(read);
        assertEquals(new Settlement(null, "00cd4ae6-310e-4566-99ae-1270f1ed5570", "92e0490b-f666-47c5-8c1a-dd0688c6fc87",
                "ETHEREUM_MAINNET", new BigDecimal("1408.41"), SettlementStatus.SUCCESS,
                Instant.parse("2026-11-02T00:20:48Z")), read.settlement());
        agree(SETTLED);
        String withId = SETTLED.replace("{\"event\"", "{\"id\": \"e-7\", \"event\"");
        assertEquals("e-7", fast(withId).settlement().id());
        agree(withId);
        // values as Jackson's path makes them: an integer, a shortest decimal, zero, a decimal with trailing zeros
        for (String v : List.of("1408", "0", "-0", "0.00", "-0.0", "355427.90", "1e3", "12345678.5", "0.1")) {
            String text = SETTLED.replace("1408.41", v);
            assertNotNull(fast(text), text);
            agree(text);
        }
        assertEquals(new BigDecimal("355427.9"), fast(SETTLED.replace("1408.41", "355427.90")).settlement().valueUsd());
    }

    @Test
    void everyTextTheGeneralPathRefusesIsLeftToIt() {
        List<String> refused = List.of(
                SETTLED.replace("withdrawal.settled", "withdrawal.failed"),
                SETTLED.replace("\"success\"", "\"pending\""),
                SETTLED.replace("\"success\"", "\"\""),
                SETTLED.replace("1408.41", "-0.01"),
                SETTLED.replace("1408.41", "\"1408.41\""),
                SETTLED.replace("1408.41", "null"),
                SETTLED.replace("2026-11-02T00:20:48Z", "2026-02-30T00:20:48Z"),
                SETTLED.replace("2026-11-02T00:20:48Z", "yesterday"),
                SETTLED.replace("\"ETHEREUM_MAINNET\"", "\"\""),
                SETTLED.replace("\"ETHEREUM_MAINNET\"", "7"),
                SETTLED.replace(", \"network_code\": \"ETHEREUM_MAINNET\"", ""),
                SETTLED.replace(", \"value_usd\": 1408.41", ""),
                SETTLED.replace(", \"status\": \"success\"", ""),
                SETTLED.replace(", \"at\": \"2026-11-02T00:20:48Z\"", ""),
                SETTLED.replace("{\"event\"", "{\"action\": \"withdrawal.create\", \"event\""),
                SETTLED.replace("{\"event\"", "{\"color\": \"red\", \"event\""),
                SETTLED.replace("{\"event\"", "{\"status\": \"failed\", \"event\""),
                SETTLED.replace("}", ", \"value_usd\": 1}"),
                SETTLED.replace("{\"event\"", "{\"id\": 7, \"event\""),
                SETTLED.replace("{\"event\"", "{\"id\": null, \"event\""),
                SETTLED.replace("\"success\"", "\"succ\\u0065ss\""),
                SETTLED + " x",
                "{}");
        for (String text : refused) {
            assertNull(fast(text), text);
            agree(text);
        }
    }

    @Test
    void shuffledAndMutatedRecordsReadAsTheGeneralPathReadsThem() {
        Map<String, String> members = new LinkedHashMap<>();
        members.put("id", "\"e-1\"");
        members.put("event", "\"withdrawal.settled\"");
        members.put("wallet_id", "\"92e0490b-f666-47c5-8c1a-dd0688c6fc87\"");
        members.put("workspace_id", "\"00cd4ae6-310e-4566-99ae-1270f1ed5570\"");
        members.put("network_code", "\"TRON_MAINNET\"");
        members.put("value_usd", "1492.71");
        members.put("status", "\"executed\"");
        members.put("at", "\"2026-11-02T01:04:11Z\"");
        List<String> values = List.of("\"\"", "\"x\"", "0", "-1", "2.5", "1e400", "true", "null", "{}", "[]",
                "\"failed\"", "\"2026-11-02T01:04:11.5Z\"", "\"withdrawal.settled\"", "12345678901234567890");
        Random random = new Random(5);
        int readInOnePass = 0;
        for (int n = 0; n < 4_000; n++) {
            List<String> keys = new ArrayList<>(members.keySet());
            java.util.Collections.shuffle(keys, random);
            StringBuilder text = new StringBuilder("{");
            for (String key : keys) {
                int roll = random.nextInt(12);
                if (roll == 0) {
                    continue; // left out
                }
                String value = roll == 1 ? values.get(random.nextInt(values.size())) : members.get(key);
                if (text.length() > 1) {
                    text.append(random.nextInt(8) == 0 ? " ,\t" : ", ");
                }
                text.append('"').append(key).append("\": ").append(value);
            }
            text.append('}');
            agree(text.toString());
            readInOnePass += fast(text.toString()) != null ? 1 : 0;
        }
        // the generated texts reach both sides of the one-pass reader
        assertEquals(true, readInOnePass > 400 && readInOnePass < 3_600, "read in one pass: " + readInOnePass);
    }
}
