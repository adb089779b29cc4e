package dev.custody.engine.check;

import dev.custody.engine.internal.payload.ActionSections;
import dev.custody.engine.payload.Action;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import dev.custody.engine.text.Printable;
import dev.custody.engine.text.JsonLimits;
import dev.custody.engine.text.Suggestions;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import dev.custody.engine.velocity.Settlement;
import dev.custody.engine.velocity.SettlementStatus;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The one reader of actions (docs/design.md §4): a JSON text (one line of an action stream, a payload file)
 * becomes an {@link Read action}, a {@link SettlementRead settlement record}, or a {@link Malformed} text
 * with its line and column. Every verb of the CLI, the REPL, the conformance corpus and a service that reads
 * actions from JSON use it, so one strictness holds everywhere.
 *
 * <h2>One pass</h2>
 * The text is tokenized once with Jackson's streaming parser into the top-level properties (section values as
 * Jackson's untyped reader would make them: {@code LinkedHashMap}, {@code ArrayList}, {@code Integer} /
 * {@code Long} / {@code BigInteger}, {@code Double}, strings, booleans, nulls), remembering where each property
 * starts; then the properties are checked. No tree is built twice, and no line is parsed a second time.
 *
 * <p>Decimal numbers are read with Jackson's fast double parser (FastDoubleParser), which gives the double
 * nearest the decimal, exactly as {@link Double#parseDouble} does, without building a string and a decimal
 * expansion for each number.
 *
 * <h2>Strictness</h2>
 * Duplicate keys are refused (a second {@code value_usd} must not silently win), nesting deeper than
 * {@value #MAX_DEPTH} is refused, {@code NaN}/{@code Infinity} are not numbers, nothing may follow the object.
 * Top level of an action: {@code id}, {@code action}, {@code wallet_id}, {@code workspace_id}, {@code at}
 * (an ISO-8601 instant) and the payload sections as objects; for a {@code web3.contract_call}, instead of
 * {@code resource}, the EVM {@code raw_transaction} with optional {@code method_name} and {@code network_code},
 * from which {@link ContractCallDecoder} derives the section. Anything else (an unknown property, a section
 * that is not an object, an unknown action, a bad instant) is malformed. Field-level checks are left to the
 * evaluator's payload check, so a wrong field type <em>denies</em> rather than failing to read.
 *
 * <p>A record with a top-level {@code "event"} key is a settlement record
 * ({@code {"event": "withdrawal.settled", "wallet_id", "workspace_id", "network_code", "value_usd", "status",
 * "at"}}, optional {@code id}); one that has both {@code event} and {@code action} is malformed, never silently
 * taken as either.
 *
 * <p>Stateless and thread-safe.
 */
public final class ActionReader {
    /** The deepest nesting of arrays and objects a text may have. */
    public static final int MAX_DEPTH = 64;

    /** Top-level properties of an action that are not sections. */
    static final Set<String> TOP_LEVEL = Set.of("id", "action", "wallet_id", "workspace_id", "at",
            "raw_transaction", "method_name", "network_code");

    private static final List<String> EVENT_FIELDS =
            List.of("event", "id", "wallet_id", "workspace_id", "network_code", "value_usd", "status", "at");

    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
            .build();

    /**
     * The byte path's factory: without Jackson's duplicate detection (a set per object), because {@link #value}
     * finds a duplicate as it fills the object's map; the text is then read again with {@link #JSON}, for Jackson's
     * message.
     */
    private static final JsonFactory FAST = JsonFactory.builder()
            .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
            .build();

    private ActionReader() {}

    /** What a text is. */
    public sealed interface Result permits Read, SettlementRead, Malformed {}

    /**
     * An action, with notes for the trace (what could not be decoded from a {@code raw_transaction}; empty
     * otherwise).
     */
    public record Read(Action action, List<String> notes) implements Result {
        public Read {
            Objects.requireNonNull(action, "action");
            notes = List.copyOf(notes);
        }
    }

    /** A settlement record, for a replay's velocity ledger. */
    public record SettlementRead(Settlement settlement) implements Result {
        public SettlementRead {
            Objects.requireNonNull(settlement, "settlement");
        }
    }

    /**
     * Not a readable action or settlement.
     *
     * @param message one line, lowercase, user input in backticks
     * @param id the record's {@code id} when it could be read, else null
     * @param column 1-based column in the text where the problem is (the offending property, or where the
     *     JSON breaks), or 0 when the whole text is at fault
     */
    public record Malformed(String message, String id, int column) implements Result {
        public Malformed {
            // one line whatever the quoted input holds (an `action` of "a\rb" is not a line break in a log)
            message = Printable.of(Objects.requireNonNull(message, "message"));
        }
    }

    /** Reads one JSON text. Never throws. */
    public static Result read(String text) {
        try {
            return read(JSON.createParser(text), true);
        } catch (IOException e) {
            return new Malformed("malformed JSON: " + e.getClass().getSimpleName(), null, 0);
        }
    }

    /**
     * Reads one JSON text given as UTF-8 bytes (a line of a stream as read), exactly as {@link #read(String)}
     * reads their decoding, bytes that are not UTF-8 decoding to U+0000. Never throws.
     *
     * <p>The common case, a plain ASCII line, is read by {@link JsonLine}, a reader of a strict subset of JSON that
     * gives the same values as Jackson faster, and leaves everything else to Jackson. Then Jackson's byte parser
     * reads without decoding the text first. It is used only where it
     * cannot read the bytes differently: when the text is ASCII, starts with <code>{</code> and has no zero byte
     * among its first four (from which Jackson would guess UTF-16 or UTF-32). ASCII only, because Jackson's UTF-8
     * decoding is lenient where the JDK's is strict: it reads overlong forms ({@code C0 AF} as {@code /}),
     * surrogates and code points past U+10FFFF as characters, where the text path reads U+0000 and refuses the
     * line. Whatever the byte path finds malformed is read again from the decoded text, so that messages and
     * columns (counted in characters, not bytes) are the same whichever way the text came.
     */
    public static Result read(byte[] bytes, int offset, int length) {
        // JsonLine reads ASCII only (it gives up on any other byte), so it needs no ASCII check of its own: a line
        // it reads has been read once, not scanned first
        if (length >= 2 && bytes[offset] == '{') {
            Read plain = JsonLine.action(bytes, offset, length);
            if (plain != null) {
                return plain;
            }
            SettlementRead settled = JsonLine.settlement(bytes, offset, length);
            if (settled != null) {
                return settled;
            }
            Map<String, Object> top = JsonLine.read(bytes, offset, length);
            if (top != null) {
                Result r = top.containsKey("event") ? settlement(top, Map.of()) : fromMap(top, Map.of(), true);
                if (!(r instanceof Malformed)) {
                    return r;
                }
            }
        }
        if (length >= 4 && bytes[offset] == '{' && bytes[offset + 1] != 0 && bytes[offset + 2] != 0
                && bytes[offset + 3] != 0 && ascii(bytes, offset, length)) {
            try {
                Result r = read(FAST.createParser(bytes, offset, length), false);
                if (!(r instanceof Malformed)) {
                    return r;
                }
            } catch (IOException e) {
                // read again below
            }
        }
        TEXT_READS.increment();
        return read(decode(bytes, offset, length));
    }

    private static final java.lang.invoke.VarHandle LONGS =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    /** Whether every byte is below 0x80, eight at a time. */
    static boolean ascii(byte[] bytes, int offset, int length) {
        int i = offset;
        int end = offset + length;
        long high = 0;
        for (; i + 8 <= end; i += 8) {
            high |= (long) LONGS.get(bytes, i);
        }
        for (; i < end; i++) {
            high |= bytes[i];
        }
        return (high & 0x8080808080808080L) == 0;
    }

    /** How many byte texts were read on the text path, for the test that the byte path is taken. */
    static final java.util.concurrent.atomic.LongAdder TEXT_READS = new java.util.concurrent.atomic.LongAdder();

    /** UTF-8 bytes as text, a byte that is not part of a UTF-8 character read as U+0000 (as the CLI reads input). */
    public static String decode(byte[] bytes, int offset, int length) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE)
                    .replaceWith("\0")
                    .decode(ByteBuffer.wrap(bytes, offset, length))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IllegalStateException("a replacing decoder cannot fail", e);
        }
    }

    /**
     * @param located whether to note where each property starts, for the column of a malformed one (the byte
     *     path does not: what it finds malformed is read again with them)
     */
    private static Result read(JsonParser parser, boolean located) {
        Map<String, Object> top = new LinkedHashMap<>();
        Map<String, Integer> columns = located ? new HashMap<>() : Map.of();
        try (JsonParser p = parser) {
            JsonToken t = p.nextToken();
            if (t != JsonToken.START_OBJECT) {
                if (t == null) {
                    return new Malformed("malformed JSON: no content", null, 0);
                }
                skip(p, t);
                if (p.nextToken() != null) {
                    return trailing(p);
                }
                return new Malformed("an action must be a JSON object", null, 0);
            }
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String key = p.currentName();
                if (located) {
                    columns.put(key, p.currentTokenLocation().getColumnNr());
                }
                put(p, top, key, value(p, p.nextToken()));
            }
            if (p.nextToken() != null) {
                return trailing(p);
            }
        } catch (JsonProcessingException e) {
            return new Malformed(jsonMessage(e), idOf(top), e.getLocation() == null ? 0 : e.getLocation().getColumnNr());
        } catch (IOException | RuntimeException e) {
            return new Malformed("malformed JSON: " + e.getClass().getSimpleName(), idOf(top), 0);
        }
        return top.containsKey("event") ? settlement(top, columns) : fromMap(top, columns, true);
    }

    /**
     * The top-level object Jackson's strict path makes of a text (the values {@link JsonLine} must equal), or null
     * where that path finds the text malformed JSON or not an object. For tests.
     */
    static Map<String, Object> jacksonObject(String text) {
        Map<String, Object> top = new LinkedHashMap<>();
        try (JsonParser p = JSON.createParser(text)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String key = p.currentName();
                put(p, top, key, value(p, p.nextToken()));
            }
            return t == JsonToken.END_OBJECT && p.nextToken() == null ? top : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Malformed, placed at the column where property {@code key} starts (0 when unknown). */
    private static Malformed blame(Map<String, Integer> columns, String key, String message, String id) {
        return new Malformed(message, id, columns.getOrDefault(key, 0));
    }

    private static Malformed trailing(JsonParser p) {
        return new Malformed("malformed JSON at column " + p.currentTokenLocation().getColumnNr()
                + ": trailing content after the JSON value", null, p.currentTokenLocation().getColumnNr());
    }

    private static String idOf(Map<String, Object> top) {
        Object id = top.get("id");
        return id == null ? null : String.valueOf(id);
    }

    /**
     * Reads an action from an already-parsed object (a payload in a YAML policy test file, the REPL's draft),
     * with the same checks as {@link #read}. Never throws. Event records are not actions here.
     */
    public static Result fromMap(Map<String, Object> m) {
        return fromMap(m, Map.of(), false);
    }

    /** @param owned whether {@code m} and its maps are this reader's own (from {@link #read}): sections are kept, not copied */
    private static Result fromMap(Map<String, Object> m, Map<String, Integer> columns, boolean owned) {
        String id = idOf(m);
        Object actionName = m.get("action");
        if (m.containsKey("event")) {
            return blame(columns, "event", actionName == null ? "a settlement record is not an action"
                    : "a record has both `action` and `event`: an action has no `event`, a settlement no `action`", id);
        }
        if (actionName == null) {
            return blame(columns, "action", "`action` is missing", id);
        }
        if (!(actionName instanceof String name)) {
            return blame(columns, "action", "`action` must be a string", id);
        }
        TriggerAction action = TriggerAction.fromWireName(name).orElse(null);
        if (action == null) {
            List<String> names = new ArrayList<>();
            for (TriggerAction a : TriggerAction.values()) {
                names.add(a.wireName());
            }
            return blame(columns, "action", "unknown action `" + name + "`" + hint(name, names), id);
        }
        String walletId = null;
        String workspaceId = null;
        Instant at = null;
        // the sections are the reader's own maps, handed to the action without a copy
        Map<String, Map<String, Object>> sections = new LinkedHashMap<>();
        Map<String, Object> rawTransaction = null;
        String methodName = null;
        String networkCode = null;
        boolean hasResource = false;
        for (Map.Entry<String, Object> e : m.entrySet()) {
            String key = e.getKey();
            Object value = e.getValue();
            switch (key) {
                case "id", "action" -> {
                }
                case "raw_transaction" -> {
                    if (value == null) {
                        continue;
                    }
                    if (!(value instanceof Map<?, ?> raw)) {
                        return blame(columns, key, "`raw_transaction` must be an object", id);
                    }
                    rawTransaction = new LinkedHashMap<>();
                    for (Map.Entry<?, ?> f : raw.entrySet()) {
                        rawTransaction.put(String.valueOf(f.getKey()), f.getValue());
                    }
                }
                case "method_name", "network_code" -> {
                    if (value == null) {
                        continue;
                    }
                    if (!(value instanceof String s)) {
                        return blame(columns, key, "`" + key + "` must be a string", id);
                    }
                    if (key.equals("method_name")) {
                        methodName = s;
                    } else {
                        networkCode = s;
                    }
                }
                case "wallet_id", "workspace_id" -> {
                    if (value != null && !(value instanceof String)) {
                        return blame(columns, key, "`" + key + "` must be a string", id);
                    }
                    if (key.equals("wallet_id")) {
                        walletId = (String) value;
                    } else {
                        workspaceId = (String) value;
                    }
                }
                case "at" -> {
                    if (value == null) {
                        continue;
                    }
                    if (!(value instanceof String s)) {
                        return blame(columns, key, "`at` must be an ISO-8601 instant string such as `2026-11-02T14:05:00Z`", id);
                    }
                    at = instant(s);
                    if (at == null) {
                        return blame(columns, key, "`at` `" + s + "` is not an ISO-8601 instant such as `2026-11-02T14:05:00Z`", id);
                    }
                }
                default -> {
                    if (Section.fromWireName(key).isEmpty()) {
                        List<String> known = new ArrayList<>(TOP_LEVEL);
                        for (Section s : Section.values()) {
                            known.add(s.wireName());
                        }
                        return blame(columns, key, "unknown property `" + key + "`" + hint(key, known), id);
                    }
                    if (value == null) {
                        continue;
                    }
                    if (!(value instanceof Map<?, ?> section)) {
                        return blame(columns, key, "section `" + key + "` must be an object", id);
                    }
                    @SuppressWarnings("unchecked")
                    Map<String, Object> fields = owned ? (Map<String, Object>) section : new LinkedHashMap<>();
                    if (!owned) {
                        section.forEach((k, v) -> fields.put(String.valueOf(k), v));
                    }
                    sections.put(key, fields);
                    hasResource |= key.equals("resource");
                }
            }
        }
        if (rawTransaction == null) {
            if (methodName != null || networkCode != null) {
                String key = methodName != null ? "method_name" : "network_code";
                return blame(columns, key, "`" + key + "` goes with `raw_transaction`; without one, give `resource` fields", id);
            }
            return new Read(checked(new Action(id, action, walletId, workspaceId, at, ActionSections.adopt(sections))),
                    List.of());
        }
        if (action != TriggerAction.WEB3_CONTRACT_CALL) {
            return blame(columns, "raw_transaction", "`raw_transaction` is only for `web3.contract_call` actions", id);
        }
        if (hasResource) {
            return blame(columns, "resource", "give either `resource` or `raw_transaction`, not both", id);
        }
        ContractCallResult derived = ContractCallDecoder.decode(rawTransaction, methodName, networkCode);
        if (derived instanceof ContractCallResult.Rejected r) {
            return blame(columns, "raw_transaction", r.error(), id);
        }
        ContractCallResult.Decoded d = (ContractCallResult.Decoded) derived;
        sections.put("resource", new LinkedHashMap<>(d.resource()));
        return new Read(checked(new Action(id, action, walletId, workspaceId, at, ActionSections.adopt(sections))),
                d.notes());
    }

    /** The action, its payload checked now (docs/design.md §10.5: an action is checked once, when it is read). */
    private static Action checked(Action action) {
        PayloadValidator.precheck(action);
        return action;
    }

    /** A record with an {@code event} key: a settlement, or malformed. */
    private static Result settlement(Map<String, Object> record, Map<String, Integer> columns) {
        String id = idOf(record);
        if (record.containsKey("action")) {
            return blame(columns, "action",
                    "a record has both `action` and `event`: an action has no `event`, a settlement no `action`", id);
        }
        Object event = record.get("event");
        if (!Settlement.EVENT.equals(event)) {
            String name = String.valueOf(event);
            return blame(columns, "event", "unknown event `" + clip(name) + "`" + hint(name, List.of(Settlement.EVENT)), id);
        }
        for (String key : record.keySet()) {
            if (!EVENT_FIELDS.contains(key)) {
                return blame(columns, key, "unknown property `" + clip(key) + "` in a `" + Settlement.EVENT + "` record"
                        + hint(key, EVENT_FIELDS), id);
            }
        }
        String field = "wallet_id";
        try {
            String wallet = text(record, field);
            field = "workspace_id";
            String workspace = text(record, field);
            field = "network_code";
            String network = text(record, field);
            field = "value_usd";
            BigDecimal value = usd(record.get(field));
            field = "status";
            Object rawStatus = record.get(field);
            SettlementStatus status = rawStatus instanceof String s ? SettlementStatus.fromWireName(s).orElse(null) : null;
            if (status == null) {
                throw new IllegalArgumentException("`status` must be `executed`, `success` or `failed`"
                        + (rawStatus == null ? "" : ", not `" + clip(String.valueOf(rawStatus)) + "`"));
            }
            field = "at";
            Object at = record.get(field);
            if (at == null) {
                throw new IllegalArgumentException("`at` is missing");
            }
            Instant instant = at instanceof String s ? instant(s) : null;
            if (instant == null) {
                throw new IllegalArgumentException("`at` `" + clip(String.valueOf(at))
                        + "` is not an ISO-8601 instant such as `2026-11-02T14:05:00Z`");
            }
            return new SettlementRead(new Settlement(id, workspace, wallet, network, value, status, instant));
        } catch (IllegalArgumentException e) {
            return blame(columns, record.containsKey(field) ? field : "event", e.getMessage(), id);
        }
    }

    private static String text(Map<String, ?> record, String key) {
        Object v = record.get(key);
        if (v == null) {
            throw new IllegalArgumentException("`" + key + "` is missing");
        }
        if (!(v instanceof String s) || s.isEmpty()) {
            throw new IllegalArgumentException("`" + key + "` must be a non-empty string");
        }
        return s;
    }

    /**
     * A USD value as an exact decimal: a double is taken as the shortest decimal that reads back as it
     * ({@code 0.1} stays {@code 0.1}).
     *
     * @throws IllegalArgumentException when it is absent, not a number, not finite or negative
     */
    public static BigDecimal usd(Object v) {
        if (v == null) {
            throw new IllegalArgumentException("`value_usd` is missing");
        }
        BigDecimal d;
        if (v instanceof BigDecimal b) {
            d = b;
        } else if (v instanceof Double || v instanceof Float) {
            double x = ((Number) v).doubleValue();
            if (!Double.isFinite(x)) {
                throw new IllegalArgumentException("`value_usd` must be a finite number");
            }
            d = BigDecimal.valueOf(x);
        } else if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            d = BigDecimal.valueOf(((Number) v).longValue());
        } else if (v instanceof BigInteger b) {
            d = new BigDecimal(b);
        } else {
            throw new IllegalArgumentException("`value_usd` must be a number");
        }
        if (d.signum() < 0) {
            throw new IllegalArgumentException("`value_usd` must not be negative, got " + d.toPlainString());
        }
        return d;
    }

    private static String hint(String name, List<String> candidates) {
        return Suggestions.closest(name, candidates).map(s -> " (did you mean `" + s + "`?)").orElse("");
    }

    private static String clip(String s) {
        return s.length() <= 64 ? s : s.substring(0, 61) + "...";
    }

    /** Jackson's message as one plain lowercase line, with the column. */
    private static String jsonMessage(JsonProcessingException e) {
        if (e instanceof StreamConstraintsException c) {
            // Jackson names its own configuration API here; say what is wrong with the text instead
            return "malformed JSON: " + JsonLimits.describe(c);
        }
        String m = e.getOriginalMessage() == null ? "unreadable" : e.getOriginalMessage();
        // Jackson's "(start marker at [Source: …])" tail is parser internals, not for users
        m = m.replaceAll("(?s)\\s*\\(start marker at .*", "");
        int nl = m.indexOf('\n');
        if (nl >= 0) {
            m = m.substring(0, nl);
        }
        m = m.replaceAll("\\s*\\(for .*?\\)", "").replaceAll("'([^']*)'", "`$1`").replace('"', '`');
        String where = e.getLocation() == null ? "" : " at column " + e.getLocation().getColumnNr();
        return "malformed JSON" + where + ": " + lower(m);
    }

    private static String lower(String m) {
        return m.isEmpty() || !Character.isUpperCase(m.charAt(0)) ? m : Character.toLowerCase(m.charAt(0)) + m.substring(1);
    }

    private static void skip(JsonParser p, JsonToken t) throws IOException {
        if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
            p.skipChildren();
        }
    }

    /** Adds a property to an object's map, refusing a second one of the same name (as Jackson's strict parser does). */
    private static void put(JsonParser p, Map<String, Object> object, String key, Object value) throws JsonParseException {
        int size = object.size();
        object.put(key, value);
        if (object.size() == size) {
            throw new JsonParseException(p, "Duplicate field '" + key + "'");
        }
    }

    /** A value as Jackson's untyped reader makes it, but integers in the long range as {@code Long}. */
    private static Object value(JsonParser p, JsonToken t) throws IOException {
        switch (t) {
            case START_OBJECT -> {
                Map<String, Object> m = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String k = p.currentName();
                    put(p, m, k, value(p, p.nextToken()));
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
            case VALUE_NUMBER_INT -> {
                // CEL's int is a long: read it so (BigInteger only past the long range), sparing the payload check
                // a conversion and a copy of the section
                JsonParser.NumberType type = p.getNumberType();
                return type == JsonParser.NumberType.INT || type == JsonParser.NumberType.LONG
                        ? (Object) p.getLongValue() : p.getNumberValue();
            }
            case VALUE_NUMBER_FLOAT -> {
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
     * (fractions, offsets) goes through {@link Instant#parse}. Null when it is not an instant.
     *
     * <p>The day is counted by arithmetic ({@link #epochDay}), with no branch that depends on which valid date it
     * is: a replay compiles this once, where {@code LocalDate.of} made the compiler throw its code away and compile
     * the one-pass reader again the first time a stream reached a 31st, a February or a leap year.
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
            if ((year | month | day | hour | minute | second) >= 0 && hour < 24 && minute < 60 && second < 60) {
                long days = epochDay(year, month, day);
                return days == Long.MIN_VALUE ? null
                        : Instant.ofEpochSecond(days * 86_400L + hour * 3600L + minute * 60L + second);
            }
        }
        try {
            return Instant.parse(s);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** Days in each month of a common year. */
    private static final int[] MONTH_DAYS = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

    /** 1 when {@code x} is 0, else 0, for {@code 0 <= x < 2^31}: a test that compiles to no branch. */
    private static int isZero(int x) {
        return (x - 1) >>> 31;
    }

    /**
     * The day of a proleptic Gregorian date counted from 1970-01-01, as {@code LocalDate.of(year, month, day)
     * .toEpochDay()} gives it, or {@link Long#MIN_VALUE} when there is no such date (month or day out of range).
     * For {@code 0 <= year <= 9999}. The count is the days-from-civil algorithm (years starting in March, so that
     * the leap day is the last of its year), with the leap year and the month's length computed without branches.
     */
    static long epochDay(int year, int month, int day) {
        if (month < 1 || month > 12 || day < 1) {
            return Long.MIN_VALUE;
        }
        int leap = isZero(year & 3) & (1 - isZero(year % 100) | isZero(year % 400));
        if (day > MONTH_DAYS[month - 1] + (leap & isZero(month ^ 2))) {
            return Long.MIN_VALUE;
        }
        int y = year - (14 - month) / 12; // January and February count in the year before
        int era = Math.floorDiv(y, 400);
        int yearOfEra = y - era * 400;
        int dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
        int dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
        return era * 146_097L + dayOfEra - 719_468L;
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
