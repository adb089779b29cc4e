package dev.custody.engine.replay;

import dev.custody.engine.payload.Action;
import dev.custody.engine.payload.ActionReader;
import dev.custody.engine.velocity.Settlement;
import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
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
     * A non-blank line, not parsed yet.
     *
     * @param text the line, or null when it was longer than the limit (it was skipped, not read)
     * @param length its length in characters
     */
    public record RawLine(long number, String text, long length) {}

    /** The default longest line read: 4 Mi characters (a line longer than that is one malformed record). */
    public static final int DEFAULT_MAX_LINE = 4 * 1024 * 1024;

    private final Reader reader;
    private final int maxLine;
    private final char[] buffer = new char[64 * 1024];
    private int pos;
    private int limit;
    private boolean skipLf;
    private long number;
    private long chars;
    private long blank;
    private long overLong;

    /** A stream over these lines with the {@linkplain #DEFAULT_MAX_LINE default line limit}. */
    public ActionStream(Reader reader) {
        this(reader, DEFAULT_MAX_LINE);
    }

    /**
     * A stream over these lines; closing the stream closes the reader.
     *
     * @param maxLine the longest line read, in characters; a longer one is skipped up to its end without being
     *     held in memory, and reported as a {@link MalformedLine}
     */
    public ActionStream(Reader reader, int maxLine) {
        this.reader = Objects.requireNonNull(reader, "reader");
        if (maxLine < 1) {
            throw new IllegalArgumentException("maxLine must be at least 1, got " + maxLine);
        }
        this.maxLine = maxLine;
    }

    /** The next non-blank line, parsed, or null at the end. */
    public Line next() throws IOException {
        RawLine raw;
        while ((raw = readLine()) != null) {
            if (raw.text() == null || !raw.text().isBlank()) {
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
            if (raw.text() == null || !raw.text().isBlank()) {
                batch.add(raw);
            }
        }
        return batch;
    }

    /**
     * The next line (terminated by {@code \n}, {@code \r\n} or {@code \r}, as {@link BufferedReader#readLine}
     * has it), or null at the end. A line longer than the limit is consumed up to its end but not kept.
     */
    private RawLine readLine() throws IOException {
        StringBuilder text = null;
        long length = 0;
        boolean any = false;
        while (true) {
            if (pos >= limit) {
                limit = reader.read(buffer, 0, buffer.length);
                pos = 0;
                if (limit <= 0) {
                    limit = 0;
                    if (!any) {
                        return null;
                    }
                    break;
                }
            }
            if (skipLf) {
                skipLf = false;
                if (buffer[pos] == '\n') {
                    pos++;
                    continue;
                }
            }
            any = true;
            int start = pos;
            while (pos < limit && buffer[pos] != '\n' && buffer[pos] != '\r') {
                pos++;
            }
            int n = pos - start;
            if (length + n <= maxLine) {
                if (text == null) {
                    text = new StringBuilder(Math.max(16, n));
                }
                text.append(buffer, start, n);
            } else {
                text = null;
            }
            length += n;
            if (pos < limit) {
                skipLf = buffer[pos] == '\r';
                pos++;
                break;
            }
        }
        if (number == 0 && text != null && text.length() > 0 && text.charAt(0) == '\uFEFF') {
            text.deleteCharAt(0);
            length--;
        }
        number++;
        chars += length + 1;
        if (length > maxLine) {
            overLong++;
            return new RawLine(number, null, length);
        }
        String line = text == null ? "" : text.toString();
        if (line.isBlank()) {
            blank++;
        }
        return new RawLine(number, line, length);
    }

    /** Reads one line as {@link #nextBatch} returned it. Never throws. Thread-safe. */
    public Line parse(RawLine raw) {
        if (raw.text() == null) {
            return new MalformedLine(raw.number(), 0, null, "line is " + raw.length() + " characters long, more than the "
                    + maxLine + " read (it was skipped)");
        }
        return parse(raw.number(), raw.text());
    }

    /** Reads one line. Never throws. Thread-safe. */
    public static Line parse(long number, String text) {
        ActionReader.Result r = ActionReader.read(text);
        if (r instanceof ActionReader.Read read) {
            return new ActionLine(number, read.action(), read.notes());
        }
        if (r instanceof ActionReader.SettlementRead s) {
            return new SettlementLine(number, s.settlement());
        }
        ActionReader.Malformed m = (ActionReader.Malformed) r;
        return new MalformedLine(number, m.column(), m.id(), m.message());
    }

    /** Characters read so far (an estimate of bytes, for progress). */
    public long charsRead() {
        return chars;
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
        reader.close();
    }
}
