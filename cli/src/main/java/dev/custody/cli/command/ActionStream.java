package dev.custody.cli.command;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.custody.engine.payload.Action;
import dev.custody.engine.payload.ActionJson;
import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads an action stream (DESIGN §4) line by line, in constant memory: one JSON object per line, blank lines
 * skipped. Each line is an {@link ActionLine}, a {@link Malformed} line (with the reason, and the action's id
 * when it could be read), or an {@link EventLine}: a record with an {@code "event"} key, such as
 * {@code withdrawal.settled}, which is not an action but input for the velocity ledger. Not thread-safe.
 */
final class ActionStream implements Closeable {

    /** One non-blank line of the stream. */
    sealed interface Line permits ActionLine, Malformed, EventLine {
        /** 1-based line number in the stream. */
        long number();
    }

    /** An action. */
    record ActionLine(long number, Action action) implements Line {}

    /** A line that is not a readable action. */
    record Malformed(long number, String id, String message) implements Line {}

    /** A non-action record (it has an {@code "event"} key). */
    record EventLine(long number, String event, Map<String, Object> record) implements Line {}

    /** Reads event records as strictly as {@link ActionJson} reads actions (duplicate keys, trailing tokens). */
    private static final ObjectReader EVENTS = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build()
            .readerFor(Object.class);

    private final BufferedReader reader;
    private long number;
    private long chars;

    ActionStream(BufferedReader reader) {
        this.reader = reader;
    }

    /** The next non-blank line, or null at the end. */
    Line next() throws IOException {
        String text;
        while ((text = reader.readLine()) != null) {
            number++;
            chars += text.length() + 1;
            if (!text.isBlank()) {
                return parse(number, text);
            }
        }
        return null;
    }

    /** A non-blank line, not parsed yet. */
    record RawLine(long number, String text) {}

    /** Up to {@code max} non-blank lines, unparsed (so that a pool can parse them); empty at the end. */
    List<RawLine> nextBatch(int max) throws IOException {
        List<RawLine> batch = new ArrayList<>(max);
        String text;
        while (batch.size() < max && (text = reader.readLine()) != null) {
            number++;
            chars += text.length() + 1;
            if (!text.isBlank()) {
                batch.add(new RawLine(number, text));
            }
        }
        return batch;
    }

    /** Characters read so far (an estimate of bytes, for progress). */
    long charsRead() {
        return chars;
    }

    static Line parse(long number, String text) {
        Line fast = FastActionReader.read(number, text);
        if (fast != null) {
            return fast;
        }
        if (text.contains("\"event\"")) {
            Line event = readEvent(number, text);
            if (event != null) {
                return event;
            }
        }
        ActionJson.Result r = ActionJson.parse(text);
        if (r instanceof ActionJson.Ok ok) {
            return new ActionLine(number, ok.action());
        }
        ActionJson.Error e = (ActionJson.Error) r;
        return new Malformed(number, e.id(), e.message());
    }

    /** The line as an event when it is a JSON object with a top-level {@code "event"} key, else null. */
    @SuppressWarnings("unchecked")
    static EventLine readEvent(long number, String text) {
        try {
            Object tree = EVENTS.readValue(text);
            if (tree instanceof Map<?, ?> m && m.containsKey("event")) {
                return new EventLine(number, String.valueOf(m.get("event")), (Map<String, Object>) m);
            }
            return null;
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    @Override
    public void close() throws IOException {
        reader.close();
    }
}
