package dev.custody.engine.check;

import dev.custody.engine.payload.Action;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.fail;

import dev.custody.engine.replay.ActionStream;
import dev.custody.engine.velocity.Settlement;
import dev.custody.engine.velocity.SettlementStatus;
import java.io.BufferedReader;
import java.io.StringReader;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** The one reader of actions: what each kind of text reads as, with the exact message and column. */
class ActionReaderTest {
    static final String W = "\"wallet_id\": \"00000000-0000-4000-8000-000000000001\"";

    /**
     * Found by ActionLineFuzz: a quoted value with a line break made the one-line message two lines (and a replay's
     * text output a broken record). Control characters and line separators are written as escapes.
     */
    @Test
    void aMalformedMessageStaysOneLineWhateverTheInputHolds() {
        String line = "{\"id\": \"a-1\", \"action\": \"with\\r\\ndrawal.create\\u2028\"}";
        ActionReader.Malformed m = assertInstanceOf(ActionReader.Malformed.class, ActionReader.read(line));
        assertEquals("unknown action `with\\r\\ndrawal.create\\u2028` (did you mean `withdrawal.create`?)", m.message());
        byte[] bytes = line.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(m, ActionReader.read(bytes, 0, bytes.length));
        ActionReader.Malformed section = assertInstanceOf(ActionReader.Malformed.class,
                ActionReader.read("{\"id\": \"a-2\", \"action\": \"withdrawal.create\", \"wallet\\t\": {}}"));
        assertEquals("unknown property `wallet\\t` (did you mean `wallet`?)", section.message());
    }

    @Test
    void aWithdrawalReadsIntoItsSectionsAsJacksonsUntypedReaderWouldButWithIntegersAsLongs() {
        ActionReader.Read r = assertInstanceOf(ActionReader.Read.class, ActionReader.read(
                "{\"id\": \"a\", \"action\": \"withdrawal.create\", " + W + ", \"at\": \"2026-11-02T14:05:00Z\", "
                        + "\"withdrawal\": {\"value_usd\": 1.5, \"amount\": 3000000000, \"address_age_sec\": 7}, "
                        + "\"principal\": null}"));
        Action a = r.action();
        assertEquals("a", a.id());
        assertEquals(Instant.parse("2026-11-02T14:05:00Z"), a.at());
        assertEquals(Map.of("value_usd", 1.5, "amount", 3_000_000_000L, "address_age_sec", 7L), a.sections().get("withdrawal"));
        assertEquals(List.of("withdrawal"), List.copyOf(a.sections().keySet()));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
        // text | message | column
        "{\"id\": \"a\", \"action\": \"withdrawal.delete\", " + W + "}"
                + "| unknown action `withdrawal.delete` | 13",
        "{\"id\": \"a\", " + W + "} | `action` is missing | 0",
        "{\"id\": \"a\", \"action\": 3} | `action` must be a string | 13",
        "{\"action\": \"withdrawal.create\", \"wallet_id\": 12} | `wallet_id` must be a string | 33",
        "{\"action\": \"withdrawal.create\", \"withdrawl\": {}} | unknown property `withdrawl` (did you mean `withdrawal`?) | 33",
        "{\"action\": \"withdrawal.create\", \"withdrawal\": []} | section `withdrawal` must be an object | 33",
        "{\"action\": \"withdrawal.create\", \"at\": 17} "
                + "| `at` must be an ISO-8601 instant string such as `2026-11-02T14:05:00Z` | 33",
        "{\"action\": \"withdrawal.create\", \"at\": \"2026-02-30T00:00:00Z\"} "
                + "| `at` `2026-02-30T00:00:00Z` is not an ISO-8601 instant such as `2026-11-02T14:05:00Z` | 33",
        "{\"action\": \"withdrawal.create\", \"withdrawal\": {\"a\": 1, \"a\": 2}} "
                + "| malformed JSON at column 59: duplicate field `a` | 59",
        "{\"action\": \"withdrawal.create\"} {} | malformed JSON at column 33: trailing content after the JSON value | 33",
        "{\"action\": \"withdrawal.create\", \"withdrawal\": {\"v\": NaN}} "
                + "| malformed JSON at column 56: non-standard token `NaN`: enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to allow | 56",
        "[1, 2] | an action must be a JSON object | 0",
        "{\"id\": \"a\", \"action\": \"withdrawal.create\", \"event\": \"withdrawal.settled\"} "
                + "| a record has both `action` and `event`: an action has no `event`, a settlement no `action` | 13",
        "{\"event\": \"withdrawal.setled\"} | unknown event `withdrawal.setled` (did you mean `withdrawal.settled`?) | 2",
    })
    void malformedTextsSayWhatAndWhere(String text, String message, int column) {
        ActionReader.Malformed m = assertInstanceOf(ActionReader.Malformed.class, ActionReader.read(text.strip()));
        assertEquals(message, m.message());
        assertEquals(column, m.column());
    }

    @Test
    void nestingDeeperThanTheLimitIsRefused() {
        String deep = "{\"action\": \"web3.contract_call\", " + W + ", \"resource\": {\"decoded_args\": "
                + "{\"a\": ".repeat(70) + "1" + "}".repeat(70) + "}}";
        ActionReader.Malformed m = assertInstanceOf(ActionReader.Malformed.class, ActionReader.read(deep));
        assertEquals("malformed JSON: nested deeper than 64 levels", m.message());
    }

    /**
     * Over Jackson's length limits, a line is malformed on both paths, the bytes' (which tries the one-pass reader
     * first) and the text's, and the message says which limit in the text's terms.
     */
    @Test
    void numbersAndNamesOverJacksonsLimitsAreRefusedOnEveryPath() {
        String action = "{\"action\": \"withdrawal.create\", " + W + ", \"withdrawal\": {\"value_usd\": 1408.41}}";
        String settled = "{\"event\": \"withdrawal.settled\", \"wallet_id\": \"w\", \"workspace_id\": \"s\", "
                + "\"network_code\": \"n\", \"value_usd\": 1408.41, \"status\": \"success\", \"at\": \"2026-11-03T14:00:00Z\"}";
        String number = "malformed JSON: a number longer than 1000 digits";
        String name = "malformed JSON: a member name longer than 50000 characters";
        for (String[] c : new String[][] {
                {action.replace("1408.41", "1408." + "0".repeat(1200)), number},
                {action.replace("1408.41", "1.40841e" + "0".repeat(1200) + "3"), number},
                {settled.replace("1408.41", "1408." + "0".repeat(1200)), number},
                {settled.replace("1408.41", "1.40841e" + "0".repeat(1200) + "3"), number},
                {action.replace("{\"value_usd\"", "{\"" + "k".repeat(60_000) + "\": 1, \"value_usd\""), name},
        }) {
            byte[] bytes = c[0].getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            for (ActionReader.Result r : List.of(ActionReader.read(c[0]), ActionReader.read(bytes, 0, bytes.length))) {
                ActionReader.Malformed m = assertInstanceOf(ActionReader.Malformed.class, r, c[1]);
                assertEquals(c[1], m.message());
            }
        }
        // just under them: read, and the same on both paths
        String under = action.replace("1408.41", "1408." + "0".repeat(995));
        byte[] bytes = under.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertInstanceOf(ActionReader.Read.class, ActionReader.read(under));
        assertEquals(ActionReader.read(under), ActionReader.read(bytes, 0, bytes.length));
    }

    @Test
    void aSettlementRecordIsTypedWhenRead() {
        ActionReader.SettlementRead s = assertInstanceOf(ActionReader.SettlementRead.class, ActionReader.read(
                "{\"event\": \"withdrawal.settled\", \"id\": \"e1\", \"wallet_id\": \"w\", \"workspace_id\": \"s\", "
                        + "\"network_code\": \"n\", \"value_usd\": 0.1, \"status\": \"success\", \"at\": \"2026-11-03T14:00:00Z\"}"));
        assertEquals(new Settlement("e1", "s", "w", "n", new BigDecimal("0.1"), SettlementStatus.SUCCESS,
                Instant.parse("2026-11-03T14:00:00Z")), s.settlement());
    }

    @ParameterizedTest
    @ValueSource(strings = {"2026-11-02T14:05:00Z", "1970-01-01T00:00:00Z", "2000-02-29T12:00:00Z",
        "9999-12-31T23:59:59Z", "2026-01-01T24:00:00Z", "2026-11-02T14:05:00.250Z", "2026-11-02T14:05:00+01:00"})
    void instantsReadAsInstantParseReadsThem(String at) {
        assertEquals(Instant.parse(at), ActionReader.instant(at));
    }

    @ParameterizedTest
    @ValueSource(strings = {"2026-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
        "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-01-00T00:00:00Z", "2026-01-32T00:00:00Z",
        "2026-01-01T00:60:00Z", "2026-01-01T00:00:60Z", "2026-1a-01T00:00:00Z"})
    void datesThatDoNotExistAreNoInstant(String at) {
        assertEquals(null, ActionReader.instant(at));
    }

    @Test
    void everyDayOfTenThousandYearsCountsAsLocalDateCountsIt() {
        for (int year = 0; year <= 9999; year++) {
            for (int month = 0; month <= 13; month++) {
                for (int day = 0; day <= 32; day++) {
                    long expected;
                    try {
                        expected = java.time.LocalDate.of(year, month, day).toEpochDay();
                    } catch (java.time.DateTimeException e) {
                        expected = Long.MIN_VALUE;
                    }
                    if (expected != ActionReader.epochDay(year, month, day)) {
                        fail(year + "-" + month + "-" + day + ": " + ActionReader.epochDay(year, month, day)
                                + ", not " + expected);
                    }
                }
            }
        }
    }

    @Test
    void aStreamSkipsAByteOrderMarkAndBlankLinesAndNumbersEveryLine() throws Exception {
        String text = "\uFEFF{\"action\": \"withdrawal.create\", " + W + "}\n\n   \n{\"action\": 1}\n";
        try (ActionStream stream = new ActionStream(new BufferedReader(new StringReader(text)))) {
            ActionStream.ActionLine first = assertInstanceOf(ActionStream.ActionLine.class, stream.next());
            assertEquals(1, first.number());
            ActionStream.MalformedLine second = assertInstanceOf(ActionStream.MalformedLine.class, stream.next());
            assertEquals(4, second.number());
            assertEquals("`action` must be a string", second.message());
            assertEquals(2, second.column());
            assertEquals(null, stream.next());
            assertEquals(4, stream.linesRead());
            assertEquals(2, stream.blankLines());
        }
    }

    @Test
    void withSectionCopiesOnlyTheNewSectionAndWithAtNone() {
        Action a = Action.builder(dev.custody.engine.schema.TriggerAction.WITHDRAWAL_CREATE)
                .field("withdrawal.value_usd", 1.0).field("principal.role", "signer").build();
        Action b = a.withSection("wallet", Map.of("outflow_1h", 0.0)).withAt(Instant.EPOCH);
        assertEquals(true, a.sections().get("withdrawal") == b.sections().get("withdrawal"), "shared, not copied");
        assertEquals(Map.of("outflow_1h", 0.0), b.sections().get("wallet"));
        assertEquals(null, a.sections().get("wallet"));
    }

    @Test
    void aLineLongerThanTheLimitIsOneMalformedRecordAndTheStreamGoesOn() throws Exception {
        String ok = "{\"action\": \"withdrawal.create\", " + W + "}";
        String longLine = "{\"action\": \"withdrawal.create\", \"id\": \"" + "x".repeat(500) + "\"}";
        String text = ok + "\r\n" + longLine + "\r" + ok + "\n\n";
        try (ActionStream stream = new ActionStream(new StringReader(text), ok.length())) {
            List<ActionStream.RawLine> raw = stream.nextBatch(10);
            assertEquals(3, raw.size());
            assertInstanceOf(ActionStream.ActionLine.class, stream.parse(raw.get(0)));
            ActionStream.MalformedLine m = assertInstanceOf(ActionStream.MalformedLine.class, stream.parse(raw.get(1)));
            assertEquals(2, m.number());
            assertEquals("line is " + longLine.length() + " characters long, more than the " + ok.length()
                    + " read (it was skipped)", m.message());
            ActionStream.ActionLine third = assertInstanceOf(ActionStream.ActionLine.class, stream.parse(raw.get(2)));
            assertEquals(3, third.number());
            assertEquals(4, stream.linesRead());
            assertEquals(1, stream.blankLines());
            assertEquals(1, stream.overLongLines());
        }
    }

    @Test
    void lineEndingsSplitAcrossTheBufferAreOneEnding() throws Exception {
        // 64 Ki characters fill the reader's buffer exactly: the \r ends one read and the \n starts the next
        String first = "{\"action\": \"withdrawal.create\", \"id\": \"" + "y".repeat(64 * 1024 - 42) + "\"}";
        String text = first + "\r\n" + "{\"action\": \"withdrawal.create\", " + W + "}\n";
        assertEquals(64 * 1024 - 1, first.length());
        try (ActionStream stream = new ActionStream(new StringReader(text))) {
            assertEquals(1, assertInstanceOf(ActionStream.ActionLine.class, stream.next()).number());
            assertEquals(2, assertInstanceOf(ActionStream.ActionLine.class, stream.next()).number());
            assertEquals(null, stream.next());
            assertEquals(0, stream.blankLines());
        }
    }

    /** Every decimal is read as the double {@link Double#parseDouble} gives, on the text path and the byte path. */
    @Test
    void decimalsReadAsDoubleParseDoubleReadsThem() {
        List<String> decimals = new java.util.ArrayList<>(List.of("0.1", "0.30000000000000004", "1e23", "8.41e21",
                "2.2250738585072011e-308", "2.2250738585072012e-308", "4.9e-324", "2.4703282292062327e-324",
                "2.4703282292062328e-324", "1.7976931348623157e308", "1.7976931348623158e308", "9007199254740993.0",
                "123456789012345678901234567890.5", "0.000000000000000000000000000001", "1e-400", "-0.0", "5e-324"));
        java.util.Random random = new java.util.Random(11);
        for (int i = 0; i < 3000; i++) {
            // JSON: no leading zero, a digit on both sides of the point
            StringBuilder digits = new StringBuilder().append((char) ('1' + random.nextInt(9)));
            int n = 2 + random.nextInt(24);
            for (int d = 1; d < n; d++) {
                digits.append((char) ('0' + random.nextInt(10)));
            }
            digits.insert(1 + random.nextInt(n - 1), '.');
            decimals.add(digits + (random.nextBoolean() ? "" : "e" + (random.nextInt(640) - 330)));
            decimals.add(Double.toString(Double.longBitsToDouble(random.nextLong() & 0x7FEFFFFFFFFFFFFFL)));
        }
        for (String decimal : decimals) {
            String text = "{\"action\": \"withdrawal.create\", " + W + ", \"withdrawal\": {\"amount\": " + decimal + "}}";
            byte[] bytes = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            for (ActionReader.Result r : List.of(ActionReader.read(text), ActionReader.read(bytes, 0, bytes.length))) {
                Object amount = assertInstanceOf(ActionReader.Read.class, r, decimal).action().sections().get("withdrawal").get("amount");
                assertEquals(Double.doubleToRawLongBits(Double.parseDouble(decimal)),
                        Double.doubleToRawLongBits((Double) amount), decimal);
            }
        }
    }

    /** The byte path answers for a well-formed line; only a line it cannot or must not read goes to the text path. */
    @Test
    void wellFormedBytesAreReadWithoutDecodingThem() {
        byte[] ok = ("{\"id\": \"a-1\", \"action\": \"withdrawal.create\", " + W + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] accented = ("{\"id\": \"a-é\", \"action\": \"withdrawal.create\", " + W + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] bad = "{\"action\": 1}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] wide = {'{', 0, '}', 0};
        long before = ActionReader.TEXT_READS.sum();
        assertEquals("a-1", assertInstanceOf(ActionReader.Read.class, ActionReader.read(ok, 0, ok.length)).action().id());
        assertEquals(before, ActionReader.TEXT_READS.sum(), "read on the byte path");
        assertEquals("a-é", assertInstanceOf(ActionReader.Read.class, ActionReader.read(accented, 0, accented.length)).action().id());
        assertInstanceOf(ActionReader.Malformed.class, ActionReader.read(bad, 0, bad.length));
        assertInstanceOf(ActionReader.Malformed.class, ActionReader.read(wide, 0, wide.length));
        assertEquals(before + 3, ActionReader.TEXT_READS.sum(), "not ASCII, malformed, what Jackson would take for UTF-16");
    }

    /**
     * Jackson's UTF-8 decoding reads overlong forms, surrogates and code points past U+10FFFF as characters; the
     * JDK's refuses them. A line holding one is malformed however it comes, never an action read from a character
     * nobody wrote (an overlong {@code C0 AF} is a {@code /}).
     */
    @ParameterizedTest
    @ValueSource(strings = {"ED A0 80", "ED BF BF", "C0 80", "C0 AF", "C1 BF", "E0 80 AF", "F0 80 80 AF", "F4 90 80 80",
        "F5 80 80 80", "F8 88 80 80 80", "80", "C3", "E2 82", "FF", "FE"})
    void bytesTheJdkDoesNotDecodeAreMalformedWhicheverPathReadsThem(String hex) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.writeBytes("{\"id\": \"a-".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        for (String b : hex.split(" ")) {
            out.write(Integer.parseInt(b, 16));
        }
        out.writeBytes(("\", \"action\": \"withdrawal.create\", " + W + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        byte[] bytes = out.toByteArray();
        ActionReader.Malformed m = assertInstanceOf(ActionReader.Malformed.class, ActionReader.read(bytes, 0, bytes.length));
        assertEquals(ActionReader.read(ActionReader.decode(bytes, 0, bytes.length)), m);
        assertEquals(11, m.column(), "at the first character that stands for the bad bytes");
    }

    @Test
    void asciiIsToldEightBytesAtATimeAndOneByOne() {
        byte[] text = "{\"id\": \"abcdefghijklmnop\"}".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        for (int i = 0; i < text.length; i++) {
            byte[] b = text.clone();
            assertEquals(true, ActionReader.ascii(b, 0, b.length));
            b[i] = (byte) 0x80;
            assertEquals(false, ActionReader.ascii(b, 0, b.length), "a high byte at " + i);
            assertEquals(true, ActionReader.ascii(b, i + 1, b.length - i - 1), "after it");
            assertEquals(i == 0 || ActionReader.ascii(b, 0, i), true, "before it");
        }
    }
}
