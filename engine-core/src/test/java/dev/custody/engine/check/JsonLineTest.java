package dev.custody.engine.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link JsonLine#read} gives, for every text it reads, exactly what Jackson's strict path gives
 * ({@link ActionReader#jacksonObject}): the same values of the same classes, maps in the same order. Where it gives
 * up, Jackson reads the text or refuses it; it never reads a text Jackson refuses. Checked on generated JSON texts
 * full of the cases a hand-written reader gets wrong (numbers at every boundary, escapes, whitespace, literals,
 * nesting, duplicates, trailing content) and on mutated stream lines, and with {@code ActionReader.read} on bytes
 * against the same on the decoded text.
 */
class JsonLineTest {
    /** Equal as JSON values, class by class, maps in the same order, doubles bit for bit. */
    private static void same(Object expected, Object actual, String text) {
        if (expected == null || actual == null) {
            assertSame(expected, actual, text);
            return;
        }
        assertEquals(expected.getClass(), actual.getClass(), text);
        if (expected instanceof Map<?, ?> e) {
            Map<?, ?> a = (Map<?, ?>) actual;
            assertEquals(List.copyOf(e.keySet()), List.copyOf(a.keySet()), text);
            for (Object k : e.keySet()) {
                same(e.get(k), a.get(k), text);
            }
        } else if (expected instanceof List<?> e) {
            List<?> a = (List<?>) actual;
            assertEquals(e.size(), a.size(), text);
            for (int i = 0; i < e.size(); i++) {
                same(e.get(i), a.get(i), text);
            }
        } else if (expected instanceof Double e) {
            assertEquals(Double.doubleToRawLongBits(e), Double.doubleToRawLongBits((Double) actual), text);
        } else {
            assertEquals(expected, actual, text);
        }
    }

    /** The contract on one text; returns whether JsonLine read it. */
    private static boolean agrees(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        Map<String, Object> fast = JsonLine.read(bytes, 0, bytes.length);
        if (fast != null) {
            Map<String, Object> jackson = ActionReader.jacksonObject(text);
            if (jackson == null) {
                fail("JsonLine read a text Jackson refuses: " + text);
            }
            assertEquals(LinkedHashMap.class, fast.getClass(), text);
            same(jackson, fast, text);
        }
        assertEquals(ActionReader.read(text), ActionReader.read(bytes, 0, bytes.length), text);
        return fast != null;
    }

    private static final String[] NUMBERS = {"0", "-0", "1", "-1", "7", "10", "01", "-01", "00", "1.", ".5", "-", "+1",
        "-.5", "1.0", "-0.0", "0.0", "0.1", "0.2", "0.3", "1e5", "1E5", "1e+5", "1e-5", "1.5E-3", "-2.5e+10", "1e", "1e+",
        "1.e5", "9007199254740991", "9007199254740992", "9007199254740993", "9007199254740993.0", "0.9007199254740993",
        "123456789012345678", "-123456789012345678", "1234567890123456789", "12345678901234567890",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "123456789012345678901",
        "0.1234567890123456789", "1234567.1234567891", "1.7976931348623157e308", "1e308", "1e309", "-1e309", "1e-400",
        "4.9e-324", "2.2250738585072014E-308", "1408.41", "355427.90", "0.00", "0.454326", "100000000000000000000.5",
        "3.141592653589793238462643383279", "0.0000000000000000000001", "0.00000000000000000000001", "1_000", "0x10",
        "NaN", "Infinity", "-Infinity", "1.5.5", "2-1", "4611686018427387904.0", "4.611686018427387904e18", "-0e-0",
        "-0.0e5"};
    private static final String[] LITERALS = {"true", "false", "null", "tru", "nul", "fals", "truex", "True", "NULL"};
    private static final String[] STRINGS = {"\"\"", "\"x\"", "\"signer\"", "\"a b\"", "\"quote\\\"d\"", "\"back\\\\slash\"",
        "\"\\n\"", "\"\\u00e9\"", "\"\\u0000\"", "\"é\"", "\"😀\"", "\"tab\tin\"", "\"bell\u0007\"", "\"del\u007f\"",
        "\"0x9474bfd290aa63e670a8ad0f0ad082b5114b5ea0\"", "\"unterminated", "'single'", "\"\\x\""};
    private static final String[] KEYS = {"a", "b", "withdrawal", "value_usd", "id", "event", "", "é", "with space",
        "q\\\"k", "wallet"};
    private static final String[] SPACES = {"", "", "", " ", "  ", "\n", "\r\n", "\t", "\f", "\u000b", "\u00a0"};

    private static String value(Random r, int depth) {
        int kind = r.nextInt(depth > 20 ? 3 : 6);
        switch (kind) {
            case 0:
                return NUMBERS[r.nextInt(NUMBERS.length)];
            case 1:
                return r.nextInt(4) == 0 ? LITERALS[r.nextInt(LITERALS.length)] : LITERALS[r.nextInt(3)];
            case 2:
                return STRINGS[r.nextInt(STRINGS.length)];
            case 3:
            case 4:
                return object(r, depth + 1);
            default: {
                StringBuilder b = new StringBuilder("[").append(space(r));
                int n = r.nextInt(4);
                for (int i = 0; i < n; i++) {
                    if (i > 0) {
                        b.append(space(r)).append(',').append(space(r));
                    }
                    b.append(value(r, depth + 1));
                }
                if (r.nextInt(30) == 0) {
                    b.append(',');
                }
                return b.append(space(r)).append(']').toString();
            }
        }
    }

    private static String space(Random r) {
        return r.nextInt(10) < 8 ? SPACES[r.nextInt(4)] : SPACES[r.nextInt(SPACES.length)];
    }

    private static String object(Random r, int depth) {
        StringBuilder b = new StringBuilder("{").append(space(r));
        int n = r.nextInt(5);
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                b.append(space(r)).append(r.nextInt(50) == 0 ? ";" : ",").append(space(r));
            }
            b.append('"').append(KEYS[r.nextInt(KEYS.length)]).append('"').append(space(r))
                    .append(r.nextInt(60) == 0 ? "=" : ":").append(space(r)).append(value(r, depth));
        }
        return b.append(space(r)).append('}').toString();
    }

    /** A deep chain of objects and arrays, {@code levels} deep in all (the top object is level 1). */
    private static String nested(int levels) {
        StringBuilder open = new StringBuilder("{\"a\": ");
        StringBuilder close = new StringBuilder("}");
        for (int i = 1; i < levels; i++) {
            open.append(i % 2 == 0 ? "{\"k\": " : "[");
            close.insert(0, i % 2 == 0 ? "}" : "]");
        }
        return open.append("1").append(close).toString();
    }

    @Test
    void generatedTextsReadAsJacksonReadsThem() {
        Random r = new Random(20261124);
        int read = 0;
        int givenUp = 0;
        for (int run = 0; run < 20_000; run++) {
            String text = space(r) + object(r, 1) + space(r);
            if (r.nextInt(40) == 0) {
                text += r.nextBoolean() ? "x" : " {}";
            }
            if (agrees(text)) {
                read++;
            } else {
                givenUp++;
            }
        }
        // both sides of the contract are exercised, not one
        assertTrue(read > 4_000, read + " read");
        assertTrue(givenUp > 4_000, givenUp + " given up");
    }

    /** Realistic lines, each mutated many ways, byte by byte. */
    @Test
    void mutatedStreamLinesReadAsJacksonReadsThem() {
        List<String> lines = List.of(
                "{\"id\": \"a-000001\", \"action\": \"withdrawal.create\", \"wallet_id\": \"92e0490b-f666-47c5-8c1a-dd0688c6fc87\", "
                        + "\"workspace_id\": \"00cd4ae6-310e-4566-99ae-1270f1ed5570\", \"at\": \"2026-11-02T00:09:04Z\", "
                        + "\"principal\": {\"user_email\": \"ana@contractor.example.net\", \"role\": \"signer\"}, "
                        + "\"withdrawal\": {\"amount\": 0.454326, \"value_usd\": 1408.41, \"asset_symbol\": \"ETH\", "
                        + "\"asset_is_native\": true, \"is_whitelisted\": false, \"address_age_sec\": 27187791}, "
                        + "\"wallet\": {\"outflow_1h\": 0.00, \"withdrawal_count_1h\": 0}}",
                "{\"id\": \"a-000012\", \"action\": \"web3.contract_call\", \"wallet_id\": \"aa0fe024-832e-4282-a4e2-c85e2b7ae138\", "
                        + "\"at\": \"2026-11-02T01:33:06Z\", \"resource\": {\"network_code\": \"ETHEREUM_MAINNET\", "
                        + "\"method_selector\": \"0xa9059cbb\", \"gas_limit\": 68510, \"decoded_args\": {\"to\": \"0x5a\", "
                        + "\"value\": \"6900000000\", \"path\": [1, -2.5e3, null, {\"x\": [true]}]}}}",
                "{\"event\": \"withdrawal.settled\", \"wallet_id\": \"92e0490b-f666-47c5-8c1a-dd0688c6fc87\", "
                        + "\"workspace_id\": \"00cd4ae6-310e-4566-99ae-1270f1ed5570\", \"network_code\": \"ETHEREUM_MAINNET\", "
                        + "\"value_usd\": 1408.41, \"status\": \"failed\", \"at\": \"2026-11-02T00:20:48Z\"}",
                "{\"id\": \"c-1\", \"action\": \"web3.contract_call\", \"wallet_id\": \"aa0fe024-832e-4282-a4e2-c85e2b7ae138\", "
                        + "\"raw_transaction\": {\"to\": \"0x6b175474e89094c44da98b954eedeac495271d0f\", \"value\": \"0x0\", "
                        + "\"data\": \"0xa9059cbb\"}, \"network_code\": \"ETHEREUM_MAINNET\"}");
        byte[] inserts = "{}[]\",:\\ 0123456789.e-+atfn\t\f".getBytes(StandardCharsets.US_ASCII);
        Random r = new Random(11);
        int read = 0;
        int texts = 0;
        for (String line : lines) {
            assertTrue(agrees(line), line);
            byte[] base = line.getBytes(StandardCharsets.UTF_8);
            for (int run = 0; run < 1_500; run++) {
                byte[] b = base.clone();
                int edits = 1 + r.nextInt(2);
                for (int e = 0; e < edits && b.length > 0; e++) {
                    int at = r.nextInt(b.length);
                    switch (r.nextInt(6)) {
                        case 0 -> b = splice(b, at, 1, new byte[0]); // delete
                        case 1 -> b = splice(b, at, 0, new byte[] {inserts[r.nextInt(inserts.length)]});
                        case 2 -> b = splice(b, at, 0, new byte[] {(byte) (0x80 + r.nextInt(128))});
                        case 3 -> { // swap two neighbours
                            if (at + 1 < b.length) {
                                byte t = b[at];
                                b[at] = b[at + 1];
                                b[at + 1] = t;
                            }
                        }
                        case 4 -> b = java.util.Arrays.copyOf(b, at); // truncate
                        default -> { // a key written twice
                            String s = new String(b, StandardCharsets.UTF_8);
                            int q = s.indexOf("\": ", at);
                            int k = q < 0 ? -1 : s.lastIndexOf(", \"", q);
                            if (k >= 0) {
                                String key = s.substring(k + 2, q + 1);
                                b = (s.substring(0, k) + ", " + key + ": 1" + s.substring(k)).getBytes(StandardCharsets.UTF_8);
                            }
                        }
                    }
                }
                String text = new String(b, StandardCharsets.UTF_8);
                byte[] bytes = b;
                Map<String, Object> fast = JsonLine.read(bytes, 0, bytes.length);
                if (fast != null) {
                    Map<String, Object> jackson = ActionReader.jacksonObject(text);
                    assertNotNull(jackson, text);
                    same(jackson, fast, text);
                    read++;
                }
                // what the reader gives from the bytes is what it gives from their decoding, whichever path reads them
                assertEquals(ActionReader.read(ActionReader.decode(bytes, 0, bytes.length)),
                        ActionReader.read(bytes, 0, bytes.length), text);
                texts++;
            }
        }
        assertEquals(6_000, texts);
        assertTrue(read > 600, read + " of " + texts + " mutated lines read by JsonLine");
    }

    private static byte[] splice(byte[] b, int at, int remove, byte[] insert) {
        byte[] out = new byte[b.length - remove + insert.length];
        System.arraycopy(b, 0, out, 0, at);
        System.arraycopy(insert, 0, out, at, insert.length);
        System.arraycopy(b, at + remove, out, at + insert.length, b.length - at - remove);
        return out;
    }

    private static Map<String, Object> read(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return JsonLine.read(bytes, 0, bytes.length);
    }

    @Test
    void numbersReadAsTheirExactValues() {
        assertEquals(0.1, read("{\"a\": 0.1}").get("a"));
        assertEquals(1408.41, read("{\"a\": 1408.41}").get("a"));
        assertEquals(12345678901234567L, read("{\"a\": 12345678901234567}").get("a"));
        assertEquals(-123456789012345678L, read("{\"a\": -123456789012345678}").get("a"));
        assertEquals(0L, read("{\"a\": -0}").get("a"));
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits((Double) read("{\"a\": -0.0}").get("a")));
        assertEquals(1500.0, read("{\"a\": 1.5E+3}").get("a"));
        // past 2^53, and past 22 decimals: Double.parseDouble, still the nearest double (a tie goes to the even one)
        assertEquals(9007199254740992.0, read("{\"a\": 9007199254740993.0}").get("a"));
        assertEquals(9007199254740996.0, read("{\"a\": 9007199254740995.0}").get("a"));
        assertEquals(1e-22, read("{\"a\": 0.0000000000000000000001}").get("a"));
        assertEquals(1e-23, read("{\"a\": 0.00000000000000000000001}").get("a"));
        // left to Jackson: a 21-digit integer (a BigInteger there), an infinity, an escape
        assertNull(read("{\"a\": 123456789012345678901}"));
        assertInstanceOf(java.math.BigInteger.class, ActionReader.jacksonObject("{\"a\": 123456789012345678901}").get("a"));
        assertNull(read("{\"a\": 1e400}"));
        assertNull(read("{\"a\": \"x\\\"y\"}"));
        assertNull(read("{\"a\": 01}"));
        assertNull(ActionReader.jacksonObject("{\"a\": 01}"));
    }

    @Test
    void whatIsLeftToJackson() {
        assertNull(read("{\"a\": 1, \"a\": 2}")); // a duplicate key: Jackson says so, with its column
        assertNotNull(read(nested(JsonLine.MAX_DEPTH)));
        assertNull(read(nested(JsonLine.MAX_DEPTH + 1)));
        assertNotNull(ActionReader.jacksonObject(nested(JsonLine.MAX_DEPTH + 1)));
        assertNull(read("{} x"));
        assertNull(read("{}\f"));
        assertNull(read("[1]"));
        assertNull(read(""));
        assertEquals(Map.of(), read(" \t\r\n{ }\n"));
    }

    /**
     * Jackson refuses a number of more than 1,000 digits and a name of more than 50,000 characters; this reader
     * gives up far below both, so the one-pass path never reads what Jackson refuses (a wrong read here would be
     * an action decided where the line is malformed).
     */
    @Test
    void longNumbersAndStringsAreLeftToJacksonWellBelowItsLimits() {
        String longest = "1." + "2".repeat(JsonLine.MAX_NUMBER - 2);
        assertEquals(JsonLine.MAX_NUMBER, longest.length());
        assertEquals(Double.parseDouble(longest), read("{\"a\": " + longest + "}").get("a"));
        assertNull(read("{\"a\": " + longest + "2}"));
        assertNull(read("{\"a\": -" + longest + "}"));
        assertNull(read("{\"a\": 1e" + "0".repeat(JsonLine.MAX_NUMBER) + "3}"));
        assertTrue(agrees("{\"a\": " + longest + "}"));
        assertFalse(agrees("{\"a\": " + longest + "2}"));
        // over Jackson's own limit: refused on both paths, with the same message
        for (String number : List.of("1408." + "0".repeat(1200), "1.40841e" + "0".repeat(1200) + "3")) {
            String text = "{\"a\": " + number + "}";
            assertNull(read(text));
            assertNull(ActionReader.jacksonObject(text));
            assertFalse(agrees(text));
        }
        String longestString = "x".repeat(JsonLine.MAX_STRING);
        assertEquals(longestString, read("{\"a\": \"" + longestString + "\"}").get("a"));
        assertEquals(1L, read("{\"" + longestString + "\": 1}").get(longestString));
        assertNull(read("{\"a\": \"" + longestString + "x\"}"));
        assertNull(read("{\"" + longestString + "x\": 1}"));
        assertFalse(agrees("{\"a\": \"" + longestString + "x\"}"));
        String overJacksons = "{\"" + "k".repeat(60_000) + "\": 1}";
        assertNull(read(overJacksons));
        assertNull(ActionReader.jacksonObject(overJacksons));
        assertFalse(agrees(overJacksons));
    }

    @Test
    void theSchemasNamesComeBackAsTheSameStrings() {
        String a = read("{\"withdrawal\": {\"value_usd\": 1}}").keySet().iterator().next();
        String b = read("{\"withdrawal\": {}}").keySet().iterator().next();
        assertSame(a, b);
        String other = read("{\"withdrawals\": 1}").keySet().iterator().next();
        assertEquals("withdrawals", other);
        List<String> keys = new ArrayList<>(read("{\"b\": 1, \"a\": 2, \"c\": 3}").keySet());
        assertEquals(List.of("b", "a", "c"), keys);
    }
    @Test
    void aStringEndsAtItsFirstQuoteOrGivesUpAtItsFirstOtherStopWherever() {
        // eight bytes at a time: a stop byte at every offset of a word, after every kind of byte, at every length
        byte[] stops = {'"', '\\', 0x00, 0x1f, 0x7f, (byte) 0x80, (byte) 0xc3, (byte) 0xff};
        byte[] fillers = {'a', ' ', '!', '#', '[', ']', '~', 0x20};
        for (int length = 0; length < 20; length++) {
            for (byte filler : fillers) {
                for (byte stop : stops) {
                    byte[] value = new byte[length + 1];
                    java.util.Arrays.fill(value, filler);
                    value[length] = stop;
                    byte[] text = concat("{\"k\": \"".getBytes(StandardCharsets.US_ASCII), value,
                            (stop == '"' ? "}" : "\"}").getBytes(StandardCharsets.US_ASCII));
                    Map<String, Object> m = JsonLine.read(text, 0, text.length);
                    String shown = length + " × " + filler + " then " + stop;
                    if (stop == '"') {
                        assertEquals(Map.of("k", new String(value, 0, length, StandardCharsets.US_ASCII)), m, shown);
                    } else {
                        assertNull(m, shown);
                    }
                }
            }
        }
    }

    @Test
    void theWordWideTestFlagsFirstTheFirstByteThatEndsAPlainString() {
        // against a byte-by-byte reference, on words of bytes drawn mostly from around the stop bytes
        byte[] pool = {'"', '\\', 0x00, 0x01, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7e, 0x7f,
            (byte) 0x80, (byte) 0x81, (byte) 0xa0, (byte) 0xdc, (byte) 0xfe, (byte) 0xff, 'a', '0'};
        Random random = new Random(11);
        for (int n = 0; n < 300_000; n++) {
            long w = 0;
            int first = 8;
            for (int k = 0; k < 8; k++) {
                byte b = random.nextInt(4) == 0 ? (byte) random.nextInt(256) : pool[random.nextInt(pool.length)];
                w |= (b & 0xFFL) << (8 * k);
                int u = b & 0xFF;
                if (first == 8 && (u == '"' || u == '\\' || u < 0x20 || u >= 0x7f)) {
                    first = k;
                }
            }
            long stops = JsonLine.stops(w);
            assertEquals(first, stops == 0 ? 8 : Long.numberOfTrailingZeros(stops) >>> 3, Long.toHexString(w));
        }
    }

    @Test
    void keysThatAreAlmostTheSchemasNamesAreOtherKeys() {
        // a known name is matched by its length and first and last eight bytes, and in full past sixteen
        for (String name : List.of("id", "at", "role", "outflow_1h", "value_usd", "withdrawal_count_1h",
                "network_outflow_1h", "network_outflow_24h", "network_withdrawal_count_1h")) {
            assertSame(name, read("{\"" + name + "\": 1}").keySet().iterator().next(), name);
            List<String> near = new ArrayList<>(List.of(name + "x", "x" + name, name.substring(1),
                    name.substring(0, name.length() - 1)));
            for (int k = 0; k < name.length(); k++) {
                near.add(name.substring(0, k) + (char) (name.charAt(k) ^ 1) + name.substring(k + 1));
            }
            for (String other : near) {
                String key = read("{\"" + other + "\": 1}").keySet().iterator().next();
                assertEquals(other, key, name);
            }
        }
        // at the very end of the array, where a word cannot be read in one go
        byte[] tail = "{\"id\": 1, \"at\"".getBytes(StandardCharsets.US_ASCII);
        byte[] text = concat(tail, ": 2}".getBytes(StandardCharsets.US_ASCII));
        assertEquals(List.of("id", "at"), new ArrayList<>(JsonLine.read(text, 0, text.length).keySet()));
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
