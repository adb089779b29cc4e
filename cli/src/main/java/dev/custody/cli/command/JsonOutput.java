package dev.custody.cli.command;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.Writer;

/**
 * JSON output of every command: compact (one line per document, one line per record in JSONL), key order as
 * built (the maps are {@link java.util.LinkedHashMap}s), UTF-8 text, never closing or flushing the writer
 * behind the caller's back (a replay flushes once, at the end).
 */
final class JsonOutput {
    /** Databind, set up on first use (a replay that writes only records never needs it). */
    private static final class Mapper {
        static final ObjectMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                        .disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
                        .disable(StreamWriteFeature.FLUSH_PASSED_TO_STREAM)
                        .build())
                .build();
    }

    private JsonOutput() {}

    /** A value (maps, lists, strings, numbers, booleans, null) as compact JSON. */
    static String write(Object value) {
        try {
            return Mapper.MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** A value as JSON indented two spaces a level, for people (a witness in a review). */
    static String pretty(Object value) {
        try {
            return Mapper.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * {@link #generator(Writer)}, writing UTF-8 bytes, from jackson-core alone: a replay that writes only records
     * does not pay for setting up databind's mapper (about a tenth of a second of its start).
     */
    static JsonGenerator generator(java.io.OutputStream out) throws IOException {
        JsonGenerator g = Streaming.FACTORY.createGenerator(out);
        g.setRootValueSeparator(null);
        return g;
    }

    /** The factory of {@link #generator(java.io.OutputStream)}, made on first use, apart from the mapper. */
    private static final class Streaming {
        static final JsonFactory FACTORY = JsonFactory.builder()
                .disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
                .disable(StreamWriteFeature.FLUSH_PASSED_TO_STREAM)
                .build();
    }

    static JsonGenerator generator(Writer out) throws IOException {
        JsonGenerator g = Mapper.MAPPER.getFactory().createGenerator(out);
        g.setRootValueSeparator(null);
        return g;
    }
}
