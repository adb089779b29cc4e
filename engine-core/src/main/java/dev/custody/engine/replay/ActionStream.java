package dev.custody.engine.replay;

import dev.custody.engine.payload.Action;
import dev.custody.engine.payload.ActionReader;
import dev.custody.engine.velocity.Settlement;
import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An action stream (docs/design.md §4) read line by line in constant memory: one JSON object per line, blank lines
 * skipped, a UTF-8 byte-order mark before the first line skipped. Each non-blank line is read once, by
 * {@link ActionReader}, into an {@link ActionLine}, a {@link SettlementLine} or a {@link MalformedLine} with
 * its line and column.
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

    /** A non-blank line, not parsed yet. */
    public record RawLine(long number, String text) {}

    private final BufferedReader reader;
    private long number;
    private long chars;
    private long blank;

    /** A stream over these lines; closing the stream closes the reader. */
    public ActionStream(BufferedReader reader) {
        this.reader = Objects.requireNonNull(reader, "reader");
    }

    /** The next non-blank line, parsed, or null at the end. */
    public Line next() throws IOException {
        String text;
        while ((text = readLine()) != null) {
            if (!text.isBlank()) {
                return parse(number, text);
            }
        }
        return null;
    }

    /** Up to {@code max} non-blank lines, unparsed (so that a pool can parse them); empty at the end. */
    public List<RawLine> nextBatch(int max) throws IOException {
        List<RawLine> batch = new ArrayList<>(max);
        String text;
        while (batch.size() < max && (text = readLine()) != null) {
            if (!text.isBlank()) {
                batch.add(new RawLine(number, text));
            }
        }
        return batch;
    }

    private String readLine() throws IOException {
        String text = reader.readLine();
        if (text == null) {
            return null;
        }
        if (number == 0 && !text.isEmpty() && text.charAt(0) == '\uFEFF') {
            text = text.substring(1);
        }
        number++;
        chars += text.length() + 1;
        if (text.isBlank()) {
            blank++;
        }
        return text;
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
