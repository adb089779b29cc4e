package dev.custody.cli.command;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.custody.engine.payload.Action;
import dev.custody.engine.payload.ActionJson;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a well-formed action line straight into an {@link Action} with a streaming parser, for replay's
 * throughput; anything else falls back to {@link ActionJson#parse}, which stays the one definition of what an
 * action line is and of every error message.
 *
 * <h2>Why it gives the same result</h2>
 * The fast path accepts only what {@code ActionJson} accepts without question, and builds what it builds: a
 * top-level object with string {@code id}, {@code action} (a trigger action's name), {@code wallet_id},
 * {@code workspace_id} (strings or null) and {@code at} (null or an instant), the other keys being section
 * names whose values are objects or null; section values are read as Jackson's untyped reader reads them
 * ({@code LinkedHashMap}, {@code ArrayList}, {@code Integer}/{@code Long}/{@code BigInteger}, {@code Double},
 * strings, booleans, nulls). The parser has the same strictness (duplicate keys, nesting depth, no trailing
 * tokens). Any other shape, and any parse error, returns null so that the caller asks {@code ActionJson}: a
 * numeric id, an unknown key, a bad instant, malformed JSON. A differential test pins the equivalence.
 *
 * <p>A record with a top-level {@code "event"} key is reported as an event. Stateless and thread-safe.
 */
final class FastActionReader {
    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build())
            .build();

    private static final Set<String> SECTIONS = sections();

    private FastActionReader() {}

    private static Set<String> sections() {
        Set<String> names = new HashSet<>();
        for (Section s : Section.values()) {
            names.add(s.wireName());
        }
        return Set.copyOf(names);
    }

    /** The line read: an {@link ActionStream.ActionLine}, an {@link ActionStream.EventLine}, or null to fall back. */
    static ActionStream.Line read(long number, String text) {
        try (JsonParser p = JSON.createParser(text)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            String id = null;
            TriggerAction action = null;
            String wallet = null;
            String workspace = null;
            Instant at = null;
            Map<String, Map<String, Object>> sections = new LinkedHashMap<>();
            Map<String, Object> event = null;
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String key = p.currentName();
                JsonToken v = p.nextToken();
                switch (key) {
                    case "event" -> {
                        return event(number, text);
                    }
                    case "id" -> {
                        if (v != JsonToken.VALUE_STRING) {
                            return null;
                        }
                        id = p.getText();
                    }
                    case "action" -> {
                        if (v != JsonToken.VALUE_STRING) {
                            return null;
                        }
                        action = TriggerAction.fromWireName(p.getText()).orElse(null);
                        if (action == null) {
                            return null;
                        }
                    }
                    case "wallet_id", "workspace_id" -> {
                        String s;
                        if (v == JsonToken.VALUE_STRING) {
                            s = p.getText();
                        } else if (v == JsonToken.VALUE_NULL) {
                            s = null;
                        } else {
                            return null;
                        }
                        if (key.equals("wallet_id")) {
                            wallet = s;
                        } else {
                            workspace = s;
                        }
                    }
                    case "at" -> {
                        if (v == JsonToken.VALUE_STRING) {
                            at = instant(p.getText());
                            if (at == null) {
                                return null;
                            }
                        } else if (v != JsonToken.VALUE_NULL) {
                            return null;
                        }
                    }
                    default -> {
                        if (!isSection(key)) {
                            return null;
                        }
                        if (v == JsonToken.START_OBJECT) {
                            @SuppressWarnings("unchecked")
                            Map<String, Object> fields = (Map<String, Object>) value(p, v);
                            sections.put(key, fields);
                        } else if (v != JsonToken.VALUE_NULL) {
                            return null;
                        }
                    }
                }
            }
            if (t != JsonToken.END_OBJECT || p.nextToken() != null || action == null) {
                return null;
            }
            return new ActionStream.ActionLine(number, new Action(id, action, wallet, workspace, at, sections));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static ActionStream.Line event(long number, String text) {
        return ActionStream.readEvent(number, text);
    }

    private static boolean isSection(String key) {
        return SECTIONS.contains(key);
    }

    /** A value as Jackson's untyped reader makes it. */
    private static Object value(JsonParser p, JsonToken t) throws IOException {
        switch (t) {
            case START_OBJECT -> {
                Map<String, Object> m = new LinkedHashMap<>();
                JsonToken n;
                while ((n = p.nextToken()) == JsonToken.FIELD_NAME) {
                    String k = p.currentName();
                    m.put(k, value(p, p.nextToken()));
                }
                if (n != JsonToken.END_OBJECT) {
                    throw new IOException("unexpected " + n);
                }
                return m;
            }
            case START_ARRAY -> {
                List<Object> l = new ArrayList<>();
                JsonToken n;
                while ((n = p.nextToken()) != JsonToken.END_ARRAY) {
                    l.add(value(p, n));
                }
                return l;
            }
            case VALUE_STRING -> {
                return p.getText();
            }
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
                return p.getNumberValue();
            }
            case VALUE_TRUE -> {
                return Boolean.TRUE;
            }
            case VALUE_FALSE -> {
                return Boolean.FALSE;
            }
            case VALUE_NULL -> {
                return null;
            }
            default -> throw new IOException("unexpected " + t);
        }
    }

    /**
     * {@code 2026-11-02T14:05:00Z}, the form streams use, read without the general formatter; any other form
     * (fractions, offsets, leap seconds) goes through {@link Instant#parse}, as in {@code ActionJson}. Null when
     * it is not an instant.
     */
    static Instant instant(String s) {
        if (s.length() == 20 && s.charAt(4) == '-' && s.charAt(7) == '-' && s.charAt(10) == 'T' && s.charAt(13) == ':'
                && s.charAt(16) == ':' && s.charAt(19) == 'Z') {
            int year = digits(s, 0, 4);
            int month = digits(s, 5, 7);
            int day = digits(s, 8, 10);
            int hour = digits(s, 11, 13);
            int minute = digits(s, 14, 16);
            int second = digits(s, 17, 19);
            if (year >= 0 && month >= 0 && day >= 0 && hour >= 0 && hour < 24 && minute >= 0 && minute < 60
                    && second >= 0 && second < 60) {
                try {
                    long days = LocalDate.of(year, month, day).toEpochDay();
                    return Instant.ofEpochSecond(days * 86_400L + hour * 3600L + minute * 60L + second);
                } catch (DateTimeException e) {
                    return null;
                }
            }
        }
        try {
            return Instant.parse(s);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static int digits(String s, int from, int to) {
        int n = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }
}
