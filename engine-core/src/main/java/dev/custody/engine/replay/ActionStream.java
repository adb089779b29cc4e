package dev.custody.engine.replay;

import dev.custody.engine.payload.Action;
import dev.custody.engine.check.ActionReader;
import dev.custody.engine.velocity.Settlement;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * An action stream (docs/design.md §4) read line by line in constant memory: one JSON object per line, blank lines
 * skipped, a UTF-8 byte-order mark before the first line skipped. Each non-blank line is read once, by
 * {@link ActionReader}, into an {@link ActionLine}, a {@link SettlementLine} or a {@link MalformedLine} with
 * its line and column.
 *
 * <p><b>No line lost.</b> A line longer than the limit ({@link #DEFAULT_MAX_LINE} unless given) is consumed to its
 * end without being held in memory and becomes one {@link MalformedLine} with its number; the stream goes on.
 * Every line read is either blank ({@link #blankLines()}) or returned as exactly one {@link Line}, so a caller can
 * check at the end that {@link #linesRead()} equals the records it wrote plus the blank lines.
 *
 * <p>Lines can be read and parsed in one step ({@link #next()}), or read in order and parsed elsewhere
 * ({@link #nextBatch} then {@link #parse}, so a pool can parse while the reader goes on). Not thread-safe;
 * {@link #parse} is.
 */
public final class ActionStream implements Closeable {

    /** One non-blank line of the stream. */
    public sealed interface Line permits ActionLine, SettlementLine, MalformedLine {
        /** 1-based line number in the stream. */
        long number();
    }

    /** An action, with notes for the trace (what a {@code raw_transaction} could not be decoded into). */
    public record ActionLine(long number, Action action, List<String> notes) implements Line {
        public ActionLine {
            Objects.requireNonNull(action, "action");
            notes = List.copyOf(notes);
        }

        /** The same line with another action (its velocity sections derived, say). */
        public ActionLine with(Action other) {
            return new ActionLine(number, other, notes);
        }
    }

    /** A settlement record, for the velocity ledger. */
    public record SettlementLine(long number, Settlement settlement) implements Line {}

    /**
     * A line that is neither a readable action nor a settlement.
     *
     * @param column 1-based column of the problem in the line, or 0 when the whole line is at fault
     * @param id the record's {@code id} when it could be read, else null
     * @param message one line
     */
    public record MalformedLine(long number, int column, String id, String message) implements Line {}

    /**
     * A non-blank line, not parsed yet: its bytes as read (UTF-8), not copied out of the stream's buffer.
     *
     * @param bytes the buffer holding the line, or null when the line was longer than the limit (it was skipped,
     *     not read)
     * @param offset where the line starts in {@code bytes}
     * @param size its length in bytes
     * @param length its length in characters when it was skipped, else in bytes
     */
    public record RawLine(long number, byte[] bytes, int offset, int size, long length) {
        /** A line given as text (UTF-8 encoded here), or an over-long line ({@code text} null) of {@code length} characters. */
        public RawLine(long number, String text, long length) {
            this(number, text == null ? null : text.getBytes(StandardCharsets.UTF_8), 0,
                    text == null ? 0 : text.getBytes(StandardCharsets.UTF_8).length, length);
        }

        /** The line as text (bytes that are not UTF-8 read as U+0000, as the parser sees them), or null when skipped. */
        public String text() {
            return bytes == null ? null : ActionReader.decode(bytes, offset, size);
        }
    }

    /** The default longest line read: 4 Mi characters (a line longer than that is one malformed record). */
    public static final int DEFAULT_MAX_LINE = 4 * 1024 * 1024;

    /**
     * Bytes read from the source at a time. Each read goes into a buffer of its own, which the lines of a batch
     * keep alive until they are parsed; nothing is copied except a line cut by the end of a buffer.
     */
    static final int CHUNK = 128 * 1024;

    /** What {@link #readLine} returns for a blank line. */
    private static final RawLine BLANK = new RawLine(0, new byte[0], 0, 0, 0);

    private final InputStream in;
    private final int maxLine;
    private byte[] buffer = new byte[0];
    private int pos;
    private int limit;
    private boolean eof;
    private boolean skipLf;
    private long number;
    private long bytesBefore;
    private long blank;
    private long overLong;

    /** A stream over these bytes (UTF-8) with the {@linkplain #DEFAULT_MAX_LINE default line limit}. */
    public ActionStream(InputStream in) {
        this(in, DEFAULT_MAX_LINE);
    }

    /**
     * A stream over these bytes (UTF-8); closing the stream closes {@code in}. This is the fast form: lines are
     * cut and parsed as bytes, never decoded into strings first.
     *
     * @param maxLine the longest line read, in characters; a longer one is skipped up to its end without being
     *     held in memory, and reported as a {@link MalformedLine}
     */
    public ActionStream(InputStream in, int maxLine) {
        this.in = Objects.requireNonNull(in, "in");
        if (maxLine < 1) {
            throw new IllegalArgumentException("maxLine must be at least 1, got " + maxLine);
        }
        this.maxLine = maxLine;
    }

    /** A stream over these characters with the {@linkplain #DEFAULT_MAX_LINE default line limit}. */
    public ActionStream(Reader reader) {
        this(reader, DEFAULT_MAX_LINE);
    }

    /**
     * A stream over these characters, read as their UTF-8 encoding (a lone surrogate becomes U+0000, which no
     * JSON text may hold unescaped); closing the stream closes the reader.
     */
    public ActionStream(Reader reader, int maxLine) {
        this(new Utf8Bytes(Objects.requireNonNull(reader, "reader")), maxLine);
    }

    /** The next non-blank line, parsed, or null at the end. */
    public Line next() throws IOException {
        RawLine raw;
        while ((raw = readLine()) != null) {
            if (raw != BLANK) {
                return parse(raw);
            }
        }
        return null;
    }

    /** Up to {@code max} non-blank lines, unparsed (so that a pool can parse them); empty at the end. */
    public List<RawLine> nextBatch(int max) throws IOException {
        List<RawLine> batch = new ArrayList<>(max);
        RawLine raw;
        while (batch.size() < max && (raw = readLine()) != null) {
            if (raw != BLANK) {
                batch.add(raw);
            }
        }
        return batch;
    }

    /**
     * The next line (terminated by {@code \n}, {@code \r\n} or {@code \r}, as {@link java.io.BufferedReader#readLine}
     * has it), {@link #BLANK} for a blank one, or null at the end. A line longer than the limit is consumed up to
     * its end but not kept. These two bytes never occur inside the UTF-8 encoding of another character, so lines
     * are cut exactly where the decoded text would be.
     */
    private static final java.lang.invoke.VarHandle LONGS =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;

    /**
     * The index of the first LF or CR in {@code b[from, lim)}, or {@code lim}: eight bytes at a time, a byte equal to
     * LF (or CR) being a zero byte of the word XOR eight LFs (or CRs), and {@code (v - ONES) & ~v & HIGHS} non-zero
     * exactly when {@code v} has a zero byte. The byte is then found one by one within the word.
     */
    static int lineEnd(byte[] b, int from, int lim) {
        int i = from;
        for (; i + 8 <= lim; i += 8) {
            long w = (long) LONGS.get(b, i);
            long lf = w ^ 0x0A0A0A0A0A0A0A0AL;
            long cr = w ^ 0x0D0D0D0D0D0D0D0DL;
            if (((((lf - ONES) & ~lf) | ((cr - ONES) & ~cr)) & HIGHS) != 0) {
                break;
            }
        }
        while (i < lim && b[i] != '\n' && b[i] != '\r') {
            i++;
        }
        return i;
    }

    private RawLine readLine() throws IOException {
        if (skipLf && (pos < limit || fill(pos))) {
            skipLf = false;
            if (buffer[pos] == '\n') {
                pos++;
            }
        }
        if (pos >= limit && !fill(pos)) {
            return null;
        }
        int start = pos;
        int i = pos;
        long skipped = -1; // characters of an over-long line consumed so far; -1 while the line is kept
        int end;
        while (true) {
            byte[] b = buffer;
            int lim = limit;
            i = lineEnd(b, i, lim);
            if (i < lim) {
                end = i;
                skipLf = b[i] == '\r';
                pos = i + 1;
                break;
            }
            if (skipped >= 0) {
                skipped += chars(b, start, lim);
                start = lim;
            } else if (lim - start > maxLine) {
                long n = chars(b, start, lim);
                if (n > maxLine) {
                    skipped = n;
                    start = lim;
                }
            }
            int kept = lim - start;
            boolean more = fill(start);
            start = 0;
            i = kept;
            if (!more) {
                end = limit;
                pos = limit;
                break;
            }
        }
        if (skipped >= 0) {
            skipped += chars(buffer, start, end);
        }
        if (number == 0 && skipped < 0 && end - start >= 3 && buffer[start] == (byte) 0xEF
                && buffer[start + 1] == (byte) 0xBB && buffer[start + 2] == (byte) 0xBF) {
            start += 3; // the byte-order mark
        }
        number++;
        if (skipped < 0 && end - start > maxLine) {
            long n = chars(buffer, start, end);
            if (n > maxLine) {
                skipped = n;
            }
        }
        if (skipped >= 0) {
            overLong++;
            return new RawLine(number, null, 0, 0, skipped);
        }
        if (blank(buffer, start, end)) {
            blank++;
            return BLANK;
        }
        return new RawLine(number, buffer, start, end - start, end - start);
    }

    /**
     * Reads more bytes into a new buffer, keeping {@code buffer[from..limit)} at its start (the line being read);
     * the old buffer is left as it is, for the lines that point into it. False at the end of the input.
     */
    private boolean fill(int from) throws IOException {
        int kept = limit - from;
        if (eof) {
            if (from > 0) {
                buffer = Arrays.copyOfRange(buffer, from, limit);
                bytesBefore += from;
                limit = kept;
            }
            pos = 0;
            return false;
        }
        int size = kept < CHUNK / 2 ? CHUNK : (int) Math.min(2L * kept, Integer.MAX_VALUE - 8);
        byte[] next = new byte[size];
        System.arraycopy(buffer, from, next, 0, kept);
        bytesBefore += limit - kept;
        int n = in.read(next, kept, size - kept);
        while (n == 0) {
            n = in.read(next, kept, size - kept);
        }
        buffer = next;
        pos = 0;
        if (n < 0) {
            eof = true;
            limit = kept;
            return false;
        }
        limit = kept + n;
        return true;
    }

    /** Characters (UTF-16 units) in these UTF-8 bytes: one per byte that starts a character, two for a 4-byte one. */
    private static long chars(byte[] b, int from, int to) {
        long n = 0;
        for (int i = from; i < to; i++) {
            int c = b[i] & 0xFF;
            if ((c & 0xC0) != 0x80) {
                n += c >= 0xF0 ? 2 : 1;
            }
        }
        return n;
    }

    /** Whether the line is blank as {@link String#isBlank} has it (only non-ASCII lines are decoded to tell). */
    private static boolean blank(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            int c = b[i] & 0xFF;
            if (c >= 0x80) {
                return ActionReader.decode(b, from, to - from).isBlank();
            }
            if (c != ' ' && (c < 0x09 || c > 0x0D) && (c < 0x1C || c > 0x1F)) {
                return false;
            }
        }
        return true;
    }

    /** Reads one line as {@link #nextBatch} returned it. Never throws. Thread-safe. */
    public Line parse(RawLine raw) {
        if (raw.bytes() == null) {
            return new MalformedLine(raw.number(), 0, null, "line is " + raw.length() + " characters long, more than the "
                    + maxLine + " read (it was skipped)");
        }
        return line(raw.number(), ActionReader.read(raw.bytes(), raw.offset(), raw.size()));
    }

    /** Reads one line. Never throws. Thread-safe. */
    public static Line parse(long number, String text) {
        return line(number, ActionReader.read(text));
    }

    private static Line line(long number, ActionReader.Result r) {
        if (r instanceof ActionReader.Read read) {
            return new ActionLine(number, read.action(), read.notes());
        }
        if (r instanceof ActionReader.SettlementRead s) {
            return new SettlementLine(number, s.settlement());
        }
        ActionReader.Malformed m = (ActionReader.Malformed) r;
        return new MalformedLine(number, m.column(), m.id(), m.message());
    }

    /** Bytes read so far, up to the end of the last line returned (for progress). */
    public long charsRead() {
        return bytesBefore + pos;
    }

    /** Lines longer than the limit so far (each also a {@link MalformedLine}). */
    public long overLongLines() {
        return overLong;
    }

    /** Lines read so far, blank ones included. */
    public long linesRead() {
        return number;
    }

    /** Blank lines read so far. */
    public long blankLines() {
        return blank;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }

    /** A reader's characters as UTF-8 bytes, for the {@link Reader} constructors. */
    private static final class Utf8Bytes extends InputStream {
        private final Reader reader;
        private final CharsetEncoder encoder = StandardCharsets.UTF_8.newEncoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE)
                .replaceWith(new byte[] {0});
        private final CharBuffer chars = CharBuffer.allocate(16 * 1024);
        private boolean end;

        Utf8Bytes(Reader reader) {
            this.reader = reader;
            chars.flip();
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            ByteBuffer out = ByteBuffer.wrap(b, off, len);
            while (out.position() == off) {
                if (!chars.hasRemaining() || chars.remaining() < 2) {
                    if (end) {
                        if (chars.hasRemaining()) {
                            encoder.encode(chars, out, true);
                            continue;
                        }
                        return -1;
                    }
                    chars.compact();
                    int n = reader.read(chars);
                    chars.flip();
                    if (n < 0) {
                        end = true;
                    }
                    continue;
                }
                CoderResult r = encoder.encode(chars, out, false);
                if (r.isOverflow() && out.position() == off) {
                    // room for less than one character: give back what fits of it next time
                    break;
                }
            }
            return out.position() == off ? 0 : out.position() - off;
        }

        @Override
        public void close() throws IOException {
            reader.close();
        }
    }
}
