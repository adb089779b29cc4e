package dev.custody.engine.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The stream reads bytes: lines are cut and parsed as UTF-8 bytes, never decoded first. Whatever the bytes and
 * however the source hands them over, every line must come out as the text path ({@link ActionStream#parse(long,
 * String)} over {@link BufferedReader#readLine}'s lines) reads it: same numbers, same records, same messages and
 * columns (in characters).
 */
class ActionStreamBytesTest {
    static final String W = "\"wallet_id\": \"11111111-2222-4333-8444-555555555555\"";
    static final String OK = "{\"id\": \"a-%d\", \"action\": \"withdrawal.create\", " + W + ", \"at\": \"2026-11-02T14:05:00Z\","
            + " \"withdrawal\": {\"value_usd\": 10.5, \"network_code\": \"ETHEREUM_MAINNET\"}}";

    /** A source that hands over at most {@code step} bytes per read, so lines are cut by every refill. */
    static InputStream trickle(byte[] bytes, int step) {
        return new FilterInputStream(new ByteArrayInputStream(bytes)) {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return super.read(b, off, Math.min(len, step));
            }
        };
    }

    /** Each record as a line of text: its number, kind and what a user sees of it. */
    static String describe(ActionStream.Line line) {
        if (line instanceof ActionStream.ActionLine a) {
            return a.number() + " action " + a.action().id() + " " + a.action().sections();
        }
        if (line instanceof ActionStream.MalformedLine m) {
            return m.number() + " malformed " + m.id() + " @" + m.column() + " " + m.message();
        }
        return line.number() + " settlement " + ((ActionStream.SettlementLine) line).settlement();
    }

    /** What the text path reads: {@code BufferedReader} lines of the decoded text, each parsed as a string. */
    static List<String> expected(String text) throws IOException {
        List<String> out = new ArrayList<>();
        BufferedReader in = new BufferedReader(new StringReader(text));
        String line;
        long n = 0;
        while ((line = in.readLine()) != null) {
            n++;
            if (n == 1 && line.startsWith("\uFEFF")) {
                line = line.substring(1);
            }
            if (!line.isBlank()) {
                out.add(describe(ActionStream.parse(n, line)));
            }
        }
        return out;
    }

    static List<String> read(ActionStream stream) throws IOException {
        List<String> out = new ArrayList<>();
        ActionStream.Line line;
        while ((line = stream.next()) != null) {
            out.add(describe(line));
        }
        return out;
    }

    @Test
    void randomStreamsReadAsTheirTextWhateverTheRefills() throws IOException {
        String[] pieces = {OK, OK.replace("a-%d", "a-é%d"), OK.replace("10.5", "\"x\""), "", "   ", "\u2003\t",
            "{\"action\": 1}", "{\"id\": \"ü-%d\", \"action\": 1}", "{\"action\": \"withdrawal.create\", \"action\": \"x\"}",
            "{\"id\": \"é\", \"withdrawal\": {\"value_usd\": 1, \"value_usd\": 2}, \"action\": \"withdrawal.create\"}",
            "not json %d", "{\"event\": \"withdrawal.settled\", \"wallet_id\": \"w\", \"workspace_id\": \"s\","
                + " \"network_code\": \"n\", \"value_usd\": 1.5, \"status\": \"executed\", \"at\": \"2026-11-02T14:05:00Z\"}",
            "{\"id\": \"\uD83D\uDE00-%d\", \"action\": \"nope\"}", "[1, 2]", "{\"id\": \"a\"} trailing"};
        String[] endings = {"\n", "\r\n", "\r"};
        Random random = new Random(20261124);
        for (int round = 0; round < 40; round++) {
            StringBuilder text = new StringBuilder(round % 5 == 0 ? "\uFEFF" : "");
            int lines = 1 + random.nextInt(400);
            for (int i = 0; i < lines; i++) {
                text.append(pieces[random.nextInt(pieces.length)].replace("%d", Integer.toString(i)))
                        .append(endings[random.nextInt(endings.length)]);
            }
            if (random.nextBoolean()) {
                text.setLength(text.length() - 1); // no line break after the last line
            }
            byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
            List<String> want = expected(text.toString());
            int step = 1 + random.nextInt(300);
            try (ActionStream stream = new ActionStream(trickle(bytes, step))) {
                assertEquals(want, read(stream), "round " + round + ", " + step + " bytes per read");
                assertEquals(bytes.length, stream.charsRead(), "every byte counted once");
            }
            try (ActionStream stream = new ActionStream(new StringReader(text.toString()))) {
                assertEquals(want, read(stream), "round " + round + " through a Reader");
            }
        }
    }

    @Test
    void aCarriageReturnEndingOneBufferAndItsLineFeedStartingTheNextAreOneEnding() throws IOException {
        String first = "{\"action\": \"withdrawal.create\", \"id\": \"" + "y".repeat(ActionStream.CHUNK - 42) + "\"}";
        assertEquals(ActionStream.CHUNK - 1, first.length());
        byte[] bytes = (first + "\r\n" + OK.formatted(2) + "\n").getBytes(StandardCharsets.UTF_8);
        try (ActionStream stream = new ActionStream(new ByteArrayInputStream(bytes))) {
            assertEquals(1, assertInstanceOf(ActionStream.ActionLine.class, stream.next()).number());
            assertEquals(2, assertInstanceOf(ActionStream.ActionLine.class, stream.next()).number());
            assertNull(stream.next());
            assertEquals(2, stream.linesRead());
            assertEquals(0, stream.blankLines());
        }
    }

    @Test
    void theLimitCountsCharactersNotBytes() throws IOException {
        // 10 characters, 20 bytes: within a 10-character limit; 11 characters are not
        String ten = "é".repeat(10);
        String eleven = "é".repeat(11);
        byte[] bytes = (ten + "\n" + eleven + "\n" + "\uD83D\uDE00".repeat(6) + "\n").getBytes(StandardCharsets.UTF_8);
        try (ActionStream stream = new ActionStream(trickle(bytes, 3), 10)) {
            ActionStream.MalformedLine kept = assertInstanceOf(ActionStream.MalformedLine.class, stream.next());
            assertEquals(ActionStream.parse(1, ten).toString(), kept.toString(), "read, as the text path reads it");
            ActionStream.MalformedLine skipped = assertInstanceOf(ActionStream.MalformedLine.class, stream.next());
            assertEquals("line is 11 characters long, more than the 10 read (it was skipped)", skipped.message());
            ActionStream.MalformedLine surrogates = assertInstanceOf(ActionStream.MalformedLine.class, stream.next());
            assertEquals("line is 12 characters long, more than the 10 read (it was skipped)", surrogates.message(),
                    "a character outside the BMP is two, as in a Java string");
            assertEquals(2, stream.overLongLines());
        }
    }

    @Test
    void bytesThatAreNotUtf8ReadAsTheTextPathReadsThem() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes("{\"id\": \"a-".getBytes(StandardCharsets.UTF_8));
        out.write(0xE9); // Latin-1 é
        out.writeBytes("\", \"action\": \"withdrawal.create\"}\n".getBytes(StandardCharsets.UTF_8));
        out.writeBytes(new byte[] {'{', 0, '"', 0, 'a', 0, '"', 0, '}', '\n'}); // UTF-16LE-like: not guessed as UTF-16
        byte[] bytes = out.toByteArray();
        try (ActionStream stream = new ActionStream(new ByteArrayInputStream(bytes))) {
            ActionStream.MalformedLine latin1 = assertInstanceOf(ActionStream.MalformedLine.class, stream.next());
            assertEquals(ActionStream.parse(1, "{\"id\": \"a-\0\", \"action\": \"withdrawal.create\"}"), latin1,
                    "the byte that is not UTF-8 reads as U+0000, which JSON refuses where it stands");
            assertEquals(11, latin1.column());
            ActionStream.MalformedLine wide = assertInstanceOf(ActionStream.MalformedLine.class, stream.next());
            assertEquals(ActionStream.parse(2, "{\0\"\0a\0\"\0}"), wide, "read as UTF-8, not guessed to be UTF-16");
            assertEquals("malformed JSON at column 3: illegal character ((CTRL-CHAR, code 0)): only regular white space"
                    + " (\\r, \\n, \\t) is allowed between tokens", wide.message());
        }
    }

    @Test
    void aDuplicateKeyFoundOnTheBytePathGetsJacksonsMessageAndColumn() throws IOException {
        String text = "{\"id\": \"é\", \"action\": \"withdrawal.create\", \"withdrawal\": {\"amount\": 1, \"amount\": 2}}";
        try (ActionStream stream = new ActionStream(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)))) {
            ActionStream.MalformedLine m = assertInstanceOf(ActionStream.MalformedLine.class, stream.next());
            assertEquals(ActionStream.parse(1, text), m);
            assertEquals("malformed JSON at column 80: duplicate field `amount`", m.message());
        }
    }

    /** The word-at-a-time search for a line's end finds the first LF or CR, as a byte-by-byte scan does. */
    @Test
    void lineEndFindsTheFirstLineBreakAsAByteScanDoes() {
        // bytes next to LF and CR, their high-bit twins, zero and 0xFF: where a borrow could fool the word test
        byte[] near = {0x0A, 0x0D, 0x09, 0x0B, 0x0C, 0x0E, (byte) 0x8A, (byte) 0x8D, 0x00, (byte) 0xFF, 0x01, 'a', '{'};
        Random random = new Random(11);
        int checked = 0;
        for (int run = 0; run < 20_000; run++) {
            int length = random.nextInt(40);
            byte[] b = new byte[length];
            for (int k = 0; k < length; k++) {
                b[k] = random.nextInt(4) == 0 ? near[random.nextInt(near.length)] : (byte) ('b' + random.nextInt(20));
            }
            int from = length == 0 ? 0 : random.nextInt(length + 1);
            int lim = from + random.nextInt(length - from + 1);
            int expected = from;
            while (expected < lim && b[expected] != '\n' && b[expected] != '\r') {
                expected++;
            }
            assertEquals(expected, ActionStream.lineEnd(b, from, lim), () -> java.util.Arrays.toString(b));
            checked++;
        }
        assertEquals(20_000, checked);
        byte[] none = "abcdefghijklmnopqrstuvwxyz".getBytes(StandardCharsets.US_ASCII);
        assertEquals(26, ActionStream.lineEnd(none, 0, 26));
        byte[] last = "abcdefghijklmnop\r".getBytes(StandardCharsets.US_ASCII);
        assertEquals(16, ActionStream.lineEnd(last, 0, 17));
        assertEquals(16, ActionStream.lineEnd(last, 9, 17));
    }
}
