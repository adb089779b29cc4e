package dev.custody.engine.check;

import dev.custody.engine.payload.Action;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.schema.Section;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The one-pass reader of plain actions ({@link JsonLine#action}) gives what the general path (Jackson, then the
 * payload check) gives for the same text: the same action, its sections equal and in the same order, and the same
 * checked payload, slot by slot; and it gives up on every text where the general path would refuse a value or say
 * something, leaving the message to it.
 */
class PlainActionTest {
    private static final String WITHDRAWAL = "{\"id\": \"a-000001\", \"action\": \"withdrawal.create\", "
            + "\"wallet_id\": \"92e0490b-f666-47c5-8c1a-dd0688c6fc87\", \"workspace_id\": \"00cd4ae6-310e-4566-99ae-1270f1ed5570\", "
            + "\"at\": \"2026-11-02T00:09:04Z\", \"principal\": {\"user_email\": \"ana@contractor.example.net\", \"role\": \"signer\"}, "
            + "\"withdrawal\": {\"amount\": 0.454326, \"value_usd\": 1408.41, \"asset_symbol\": \"ETH\", \"asset_is_native\": true, "
            + "\"destination_address\": \"0x9474bfd290aa63e670a8ad0f0ad082b5114b5ea0\", \"network_code\": \"ETHEREUM_MAINNET\", "
            + "\"is_whitelisted\": true, \"address_age_sec\": 27187791}, \"wallet\": {\"outflow_1h\": 0.00, \"outflow_6h\": 0.00, "
            + "\"outflow_24h\": 0.00, \"withdrawal_count_1h\": 0}, \"workspace\": {\"outflow_1h\": 0.00, \"outflow_6h\": 0.00, "
            + "\"outflow_24h\": 0.00, \"withdrawal_count_1h\": 0, \"network_outflow_1h\": 0.00, \"network_outflow_6h\": 0.00, "
            + "\"network_outflow_24h\": 0.00, \"network_withdrawal_count_1h\": 0}}";
    private static final String CALL = "{\"id\": \"a-000012\", \"action\": \"web3.contract_call\", "
            + "\"wallet_id\": \"AA0FE024-832E-4282-A4E2-C85E2B7AE138\", \"workspace_id\": \"00cd4ae6-310e-4566-99ae-1270f1ed5570\", "
            + "\"at\": \"2026-11-08T23:33:06Z\", \"principal\": {\"user_email\": \"farah@example.com\", \"role\": \"signer\"}, "
            + "\"resource\": {\"network_code\": \"ETHEREUM_MAINNET\", \"contract_address\": \"0x6b175474e89094c44da98b954eedeac495271d0f\", "
            + "\"method_selector\": \"0xa9059cbb\", \"value_wei\": \"0\", \"gas_limit\": 68510, "
            + "\"decoded_args\": {\"to\": \"0x5a0b54d5dc17e0aadc383d2db43b0a0d3e029c4c\", \"value\": \"6900000000\", "
            + "\"path\": [\"0xa\", 1, 2.5, true, {\"deep\": null}]}}}";

    /** Both paths on one text: equal results, and for an action, equal payloads slot by slot. */
    private static void agree(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        ActionReader.Result fast = ActionReader.read(bytes, 0, bytes.length);
        ActionReader.Result general = ActionReader.read(text);
        assertEquals(general, fast, text);
        assertEquals(general.toString(), fast.toString(), text); // sections in the same order
        if (general instanceof ActionReader.Read g) {
            Action a = ((ActionReader.Read) fast).action();
            Action b = g.action();
            for (Instant at : new Instant[] {Instant.parse("2026-11-03T10:00:00Z"), Instant.parse("2026-11-02T00:09:04Z")}) {
                PayloadResult pa = PayloadValidator.validate(a, at);
                PayloadResult pb = PayloadValidator.validate(b, at);
                assertEquals(pb, pa, text);
                if (pb instanceof PayloadResult.Valid vb) {
                    Payload x = ((PayloadResult.Valid) pa).payload();
                    Payload y = vb.payload();
                    for (int s = 0; s < Payload.slotCount(); s++) {
                        assertEquals(y.slot(s), x.slot(s), "slot " + s + " of " + text);
                        if (y.slot(s) != null) {
                            assertEquals(y.slot(s).getClass(), x.slot(s).getClass(), "slot " + s + " of " + text);
                        }
                    }
                    for (Section s : Section.values()) {
                        assertEquals(y.hasSection(s), x.hasSection(s), s + " of " + text);
                    }
                }
            }
        }
    }

    private static ActionReader.Read plain(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return JsonLine.action(bytes, 0, bytes.length);
    }

    @Test
    void aStreamLineIsReadInOnePassAndEqualsTheGeneralPath() {
        for (String text : List.of(WITHDRAWAL, CALL)) {
            ActionReader.Read read = assertInstanceOf(ActionReader.Read.class, plain(text));
            agree(text);
            // the payload was remembered as it was read: the first decision adds nothing
            Payload p = assertInstanceOf(PayloadResult.Valid.class, PayloadValidator.validate(read.action(), Instant.EPOCH))
                    .payload();
            assertSame(p, ((PayloadResult.Valid) PayloadValidator.validate(read.action(), Instant.EPOCH)).payload());
            assertEquals(read.action().at(), p.instant());
        }
        Action call = plain(CALL).action();
        // the wallet id as given on the action, lowercase in the payload
        assertEquals("AA0FE024-832E-4282-A4E2-C85E2B7AE138", call.walletId());
        Payload p = ((PayloadResult.Valid) PayloadValidator.validate(call, Instant.EPOCH)).payload();
        assertEquals("aa0fe024-832e-4282-a4e2-c85e2b7ae138", p.walletId());
        assertEquals(Map.of("hour", 23L, "day_of_week", "Sunday"), p.sections().get("context"));
        assertEquals(List.of("principal", "resource"), List.copyOf(call.sections().keySet()));
        assertThrows(UnsupportedOperationException.class, () -> call.sections().get("resource").put("gas_limit", 1L));
        assertThrows(UnsupportedOperationException.class, () -> call.sections().remove("resource"));
    }

    @Test
    void valuesTheCheckConvertsAreKeptAsReadOnTheActionAndConvertedInThePayload() {
        // an integer where a number belongs: a Long on the action, a Double where CEL reads it
        String text = WITHDRAWAL.replace("\"value_usd\": 1408.41", "\"value_usd\": 1408");
        Action a = assertInstanceOf(ActionReader.Read.class, plain(text)).action();
        assertEquals(1408L, a.sections().get("withdrawal").get("value_usd"));
        Payload p = ((PayloadResult.Valid) PayloadValidator.validate(a, Instant.EPOCH)).payload();
        assertEquals(1408.0, p.sections().get("withdrawal").get("value_usd"));
        assertEquals(1408.0, p.slot(Payload.slotOf(Section.WITHDRAWAL, "value_usd")));
        agree(text);
        // a call without decoded arguments has an empty decoded_args in the payload only
        String bare = CALL.replaceAll(", \"decoded_args\": \\{.*\\}\\}\\}$", "}}");
        Action c = assertInstanceOf(ActionReader.Read.class, plain(bare)).action();
        assertTrue(!c.sections().get("resource").containsKey("decoded_args"));
        Payload q = ((PayloadResult.Valid) PayloadValidator.validate(c, Instant.EPOCH)).payload();
        assertEquals(Map.of(), q.sections().get("resource").get("decoded_args"));
        agree(bare);
    }

    /** Texts the one-pass reader leaves to the general path, which reads or refuses them with its message. */
    @Test
    void everyTextTheGeneralPathWouldWordIsLeftToIt() {
        List<String> givenUp = List.of(
                WITHDRAWAL.replace("\"role\": \"signer\"", "\"role\": \"pilot\""), // not in the enum
                WITHDRAWAL.replace("\"role\": \"signer\"", "\"role\": null"), // a null field
                WITHDRAWAL.replace("\"value_usd\": 1408.41", "\"value_usd\": -1408.41"), // negative
                WITHDRAWAL.replace("\"value_usd\": 1408.41", "\"value_usd\": \"1408.41\""), // a string
                WITHDRAWAL.replace("\"withdrawal_count_1h\": 0}", "\"withdrawal_count_1h\": 0.5}"), // a fraction
                WITHDRAWAL.replace("\"asset_symbol\"", "\"asset_sym\""), // an unknown field
                WITHDRAWAL.replace("\"amount\": 0.454326,", "\"amount\": 0.454326, \"amount\": 1,"), // a duplicate
                WITHDRAWAL.replace("\"wallet\": {", "\"context\": {\"hour\": 3}, \"wallet\": {"), // context given
                WITHDRAWAL.replace("\"wallet\": {", "\"resource\": {}, \"wallet\": {"), // not a withdrawal's section
                WITHDRAWAL.replace("\"wallet_id\": \"92e0490b", "\"wallet_id\": \"nope-92e0490b"), // not a UUID
                WITHDRAWAL.replace("\"at\": \"2026-11-02T00:09:04Z\", ", ""), // no instant
                WITHDRAWAL.replace("2026-11-02T00:09:04Z", "2026-02-30T00:09:04Z"), // no such date
                WITHDRAWAL.replace("\"withdrawal.create\"", "\"withdrawal.created\""), // unknown action
                WITHDRAWAL.replace("\"id\": \"a-000001\"", "\"id\": 1"), // an id that is not a string
                WITHDRAWAL.replace("\"id\": \"a-000001\"", "\"id\": \"a-\\u0030\""), // an escape
                WITHDRAWAL.replace("\"principal\"", "\"event\": \"withdrawal.settled\", \"principal\""),
                WITHDRAWAL.replace("{\"id\"", "{\"extra\": 1, \"id\""), // unknown property
                WITHDRAWAL + " x", // trailing content
                WITHDRAWAL.substring(0, WITHDRAWAL.length() - 1), // cut short
                CALL.replace("\"decoded_args\": {", "\"decoded_args\": {\"n\": " + "[".repeat(9) + "1" + "]".repeat(9) + ", "),
                CALL.replace("\"path\": [", "\"path\": [null, "), // a null in a list
                CALL.replace("\"resource\": {", "\"raw_transaction\": {\"to\": \"0x1\"}, \"resource\": {"),
                "{\"event\": \"withdrawal.settled\", \"wallet_id\": \"92e0490b-f666-47c5-8c1a-dd0688c6fc87\", "
                        + "\"workspace_id\": \"w\", \"network_code\": \"ETH\", \"value_usd\": 1.5, \"status\": \"failed\", "
                        + "\"at\": \"2026-11-02T00:20:48Z\"}",
                "{}",
                "[]");
        for (String text : givenUp) {
            assertNull(plain(text), text);
            agree(text);
        }
    }

    /**
     * Seeded variations of the two stream lines, field by field (reordered sections and fields, values of every
     * kind the schema may or may not accept, whitespace), each read both ways: equal, whether read in one pass or
     * left to the general path.
     */
    @Test
    void generatedVariationsReadTheSameBothWays() {
        String[] values = {"0", "-0", "1", "-1", "0.5", "-0.0", "1e3", "1.5E-2", "12345678901234567", "9007199254740993.5",
            "true", "false", "null", "\"\"", "\"x\"", "\"signer\"", "\"owner\"", "{}", "[]", "[1,2]", "{\"k\": \"v\"}",
            "\"ETHEREUM_MAINNET\"", "1e400", "0.1", "100000000000000000000"};
        Random random = new Random(20261124);
        int onePass = 0;
        int general = 0;
        for (int run = 0; run < 4000; run++) {
            String base = random.nextBoolean() ? WITHDRAWAL : CALL;
            List<String[]> fields = new ArrayList<>();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"(\\w+)\": (\"[^\"]*\"|-?[0-9.]+|true|false)")
                    .matcher(base);
            while (m.find()) {
                fields.add(new String[] {m.group(1), m.group(2)});
            }
            String text = base;
            int changes = random.nextInt(3);
            for (int c = 0; c < changes; c++) {
                String[] f = fields.get(random.nextInt(fields.size()));
                String replacement = values[random.nextInt(values.length)];
                text = text.replace("\"" + f[0] + "\": " + f[1], "\"" + f[0] + "\": " + replacement);
            }
            if (random.nextInt(4) == 0) {
                text = text.replace(", \"", random.nextBoolean() ? ",\"" : " ,\n\t\"");
            }
            if (random.nextInt(4) == 0) { // principal moved to the end
                int from = text.indexOf("\"principal\"");
                int to = text.indexOf('}', from) + 1;
                String principal = text.substring(from, to);
                text = text.substring(0, from) + text.substring(to + 2, text.length() - 1) + ", " + principal + "}";
            }
            if (plain(text) != null) {
                onePass++;
            } else {
                general++;
            }
            agree(text);
        }
        assertTrue(onePass > 800 && general > 800, onePass + " read in one pass, " + general + " left to Jackson");
    }

    /**
     * {@code ActionReader} hands a line to {@code JsonLine} without an ASCII check: every byte past ASCII, wherever it
     * stands (in a value, in a key, between tokens, in a number), makes both readers give up.
     */
    @Test
    void anyBytePastAsciiAnywhereGivesUp() {
        byte[] line = WITHDRAWAL.getBytes(StandardCharsets.US_ASCII);
        int[] places = {WITHDRAWAL.indexOf("ana@") + 1, WITHDRAWAL.indexOf("\"role\"") + 2, WITHDRAWAL.indexOf(": 0.454326"),
            WITHDRAWAL.indexOf("0.454326") + 2, WITHDRAWAL.indexOf("true") + 1, 0 + 1, line.length - 1};
        int checked = 0;
        for (int place : places) {
            for (int value = 0x80; value <= 0xFF; value++) {
                byte[] bad = line.clone();
                bad[place] = (byte) value;
                assertNull(JsonLine.action(bad, 0, bad.length), place + ": " + value);
                assertNull(JsonLine.read(bad, 0, bad.length), place + ": " + value);
                checked++;
            }
            byte[] inserted = new byte[line.length + 2];
            System.arraycopy(line, 0, inserted, 0, place);
            inserted[place] = (byte) 0xC3; // é, a well-formed two-byte character
            inserted[place + 1] = (byte) 0xA9;
            System.arraycopy(line, place, inserted, place + 2, line.length - place);
            assertNull(JsonLine.read(inserted, 0, inserted.length), "é at " + place);
            assertNull(JsonLine.action(inserted, 0, inserted.length), "é at " + place);
            String text = new String(inserted, StandardCharsets.UTF_8);
            assertEquals(ActionReader.read(text), ActionReader.read(inserted, 0, inserted.length), text);
        }
        assertEquals(places.length * 128, checked);
    }

    @Test
    void sectionMapsAreEqualToTheGeneralPathsAndLookUpByKey() {
        ArrayMap<Object> m = new ArrayMap<>(new String[] {"a", "b", "c"}, new Object[] {1L, null, "x"}, 3);
        assertEquals(3, m.size());
        assertEquals(1L, m.get("a"));
        assertNull(m.get("b"));
        assertTrue(m.containsKey("b"));
        assertNull(m.get("d"));
        java.util.LinkedHashMap<String, Object> same = new java.util.LinkedHashMap<>();
        same.put("a", 1L);
        same.put("b", null);
        same.put("c", "x");
        assertEquals(same, m);
        assertEquals(m, same);
        assertEquals(same.hashCode(), m.hashCode());
        assertEquals(same.toString(), m.toString());
        assertNotNull(m.entrySet().iterator().next());
        assertThrows(UnsupportedOperationException.class, () -> m.entrySet().iterator().next().setValue(2L));
        assertTrue(Objects.equals(new ArrayMap<>(new String[2], new Object[2], 0), Map.of()));
    }
}
