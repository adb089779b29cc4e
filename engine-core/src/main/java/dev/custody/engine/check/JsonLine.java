package dev.custody.engine.check;

import dev.custody.engine.payload.Action;
import dev.custody.engine.internal.payload.ActionSections;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import dev.custody.engine.schema.Uuids;
import dev.custody.engine.velocity.Settlement;
import dev.custody.engine.velocity.SettlementStatus;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A JSON object read from ASCII bytes into the values {@link ActionReader} makes of it, for the plain lines an action
 * stream is made of, or nothing when the text is anything else (docs/design.md §4.2).
 *
 * <p>It reads a strict subset of JSON and gives up, returning null, on everything outside it, even where the text
 * is valid JSON: a string with an escape or a control character, a byte past ASCII, an integer of more than 18
 * digits or of more than {@value #MAX_NUMBER} characters, a number that reads as an infinity, a string or name of
 * more than {@value #MAX_STRING} bytes, a duplicate key, nesting deeper than {@value #MAX_DEPTH}, whitespace
 * other than space, tab, CR and LF, anything after the object. A text it gives up on is read by Jackson, which
 * reads it or says where it breaks. So this reader never refuses a text and never writes a message: it only ever
 * gives, for a text Jackson reads, the same values faster. It reads ASCII only (a byte past it, in a string or
 * between tokens, gives up), and {@link ActionReader} relies on that: a text is handed to it without an ASCII check
 * first. What it gives is equal, value by value and class by class, to what {@link ActionReader}'s Jackson path
 * makes of the same text ({@code JsonLineTest} compares them on generated and mutated lines):
 * <ul>
 *   <li>objects as {@link LinkedHashMap} in the text's order, arrays as {@link ArrayList};
 *   <li>integers as {@link Long};
 *   <li>decimals as the {@link Double} nearest the decimal, as Jackson's fast double parser gives: when the digits,
 *       point left out, are an integer below 2<sup>53</sup> with at most 22 of them after the point and no
 *       exponent, as that integer divided by a power of ten, both exact doubles and the division rounded once
 *       (Clinger's fast path); otherwise by {@link Double#parseDouble};
 *   <li>{@code true}, {@code false} and {@code null} as {@link Boolean#TRUE}, {@link Boolean#FALSE} and null;
 *   <li>keys that are names of the schema (sections, fields, top-level properties) as the one {@code String} of
 *       that name, whose hash is already computed; other keys and strings as new strings.
 * </ul>
 *
 * <p>Thread-safe: each call reads with an instance of its own; the tables of names are made once and only read.
 */
final class JsonLine {
    /** The deepest nesting read here; deeper texts are left to Jackson (whose limit, 64, is higher). */
    static final int MAX_DEPTH = 16;

    /** Integers of up to this many digits fit a long. */
    private static final int LONG_DIGITS = 18;

    /**
     * The longest number read here, in characters, sign, point and exponent included. Jackson refuses a number of
     * more than 1,000 digits (its {@code StreamReadConstraints} default), so a longer one must reach it: giving up
     * far below that limit keeps the two paths from ever disagreeing on where it lies.
     */
    static final int MAX_NUMBER = 64;

    /**
     * The longest string read here, names included, in bytes. Jackson refuses a name of more than 50,000 characters
     * and a string of more than 20,000,000; longer strings are left to it, well below either limit.
     */
    static final int MAX_STRING = 16_384;

    private static final double[] POWERS_OF_TEN = new double[23];

    /**
     * Known names by their hash ({@link #hash} of their bytes), open addressing; their bytes, length, and first and
     * last eight bytes ({@link #word}) alike.
     */
    private static final String[] NAMES = new String[512];
    private static final byte[][] NAME_BYTES = new byte[NAMES.length][];
    private static final int[] NAME_LENGTH = new int[NAMES.length];
    private static final long[] NAME_FIRST = new long[NAMES.length];
    private static final long[] NAME_LAST = new long[NAMES.length];

    /** Bytes read eight at a time, the first one lowest. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    /** For a name that is a section's, the section; null for others. */
    private static final Section[] SECTION_NAMED = new Section[NAMES.length];
    /** By section ordinal, then name: the section's field of that name, or null. */
    private static final Field[][] FIELD_NAMED = new Field[Section.values().length][NAMES.length];

    /** A field of the schema: its spec and its slot ({@link Payload#slotOf}). */
    private record Field(FieldSpec spec, int slot) {}

    private static final int SECTIONS = Section.values().length;
    private static final int ID;
    private static final int ACTION;
    private static final int WALLET_ID;
    private static final int WORKSPACE_ID;
    private static final int AT;
    private static final int EVENT;
    private static final int NETWORK_CODE;
    private static final int VALUE_USD;
    private static final int STATUS;
    /** The one {@code Double} for {@code +0.0}, which streams write for every empty velocity window. */
    private static final Double ZERO = 0.0;

    static {
        double p = 1;
        for (int i = 0; i < POWERS_OF_TEN.length; i++) {
            POWERS_OF_TEN[i] = p; // exact up to 10^22
            p *= 10;
        }
        List<String> names = new ArrayList<>(ActionReader.TOP_LEVEL);
        names.add("event");
        names.add("value_usd");
        names.add("status");
        for (Section s : Section.values()) {
            names.add(s.wireName());
            for (FieldSpec f : FieldSchema.fields(s)) {
                names.add(f.name());
            }
        }
        for (String name : names) {
            byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
            int n = bytes.length;
            long first = word(bytes, 0, Math.min(n, 8));
            long last = n > 8 ? word(bytes, n - 8, 8) : 0;
            int i = hash(first, last, n);
            while (NAMES[i] != null && !NAMES[i].equals(name)) {
                i = (i + 1) & (NAMES.length - 1);
            }
            NAMES[i] = name;
            NAME_BYTES[i] = bytes;
            NAME_LENGTH[i] = n;
            NAME_FIRST[i] = first;
            NAME_LAST[i] = last;
        }
        for (Section s : Section.values()) {
            SECTION_NAMED[index(s.wireName())] = s;
            for (FieldSpec f : FieldSchema.fields(s)) {
                FIELD_NAMED[s.ordinal()][index(f.name())] = new Field(f, Payload.slotOf(s, f.name()));
            }
        }
        ID = index("id");
        ACTION = index("action");
        WALLET_ID = index("wallet_id");
        WORKSPACE_ID = index("workspace_id");
        AT = index("at");
        EVENT = index("event");
        NETWORK_CODE = index("network_code");
        VALUE_USD = index("value_usd");
        STATUS = index("status");
    }

    /** The index of a known name in {@link #NAMES}. */
    private static int index(String name) {
        byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
        int n = bytes.length;
        int i = hash(word(bytes, 0, Math.min(n, 8)), n > 8 ? word(bytes, n - 8, 8) : 0, n);
        while (!name.equals(NAMES[i])) {
            i = (i + 1) & (NAMES.length - 1);
        }
        return i;
    }

    /** Where a read gives up. */
    private static final class GiveUp extends Exception {
        static final GiveUp INSTANCE = new GiveUp();

        private GiveUp() {
            super(null, null, false, false);
        }
    }

    private final byte[] b;
    private final int end;
    private int i;
    /** For {@link #action}: every section's field names and values as read, one section after another. */
    private String[] keys;
    private Object[] raws;
    /** The values as CEL reads them, from the first that differs from the value read (null until then). */
    private Object[] cel;
    /** How many fields {@link #keys} holds. */
    private int fields;
    /** Bit {@code ordinal} set for each section with a value that {@link #cel} holds converted. */
    private int changed;

    private JsonLine(byte[] bytes, int offset, int length) {
        this.b = bytes;
        this.i = offset;
        this.end = offset + length;
    }

    /**
     * The object the bytes hold, or null when they hold something else or something this reader leaves to Jackson.
     * Never throws.
     */
    static Map<String, Object> read(byte[] bytes, int offset, int length) {
        JsonLine r = new JsonLine(bytes, offset, length);
        try {
            r.space();
            if (r.i >= r.end || bytes[r.i] != '{') {
                return null;
            }
            r.i++;
            Map<String, Object> top = r.object(1);
            r.space();
            return r.i == r.end ? top : null;
        } catch (GiveUp | RuntimeException e) {
            // RuntimeException: an index past the end on a truncated text, read by Jackson instead
            return null;
        }
    }

    /**
     * A settlement record read in one pass, or null where the text is anything but the plain case: then
     * {@link ActionReader}'s general path reads it, with its messages. The plain case has only the properties of a
     * settlement record, each once: {@code event} (the one event there is), {@code wallet_id},
     * {@code workspace_id}, {@code network_code} (not empty), {@code status} (one of the statuses) and {@code at}
     * (an instant) as strings, {@code value_usd} a number that is not negative, and {@code id} a string if there.
     * The result equals what the general path gives for the same text ({@code PlainSettlementTest} compares them).
     */
    static ActionReader.SettlementRead settlement(byte[] bytes, int offset, int length) {
        JsonLine r = new JsonLine(bytes, offset, length);
        try {
            return r.settlement();
        } catch (GiveUp | RuntimeException e) {
            return null;
        }
    }

    private ActionReader.SettlementRead settlement() throws GiveUp {
        space();
        if (at() != '{') {
            throw GiveUp.INSTANCE;
        }
        i++;
        String event = null;
        String id = null;
        String wallet = null;
        String workspace = null;
        String network = null;
        String status = null;
        String atText = null;
        Object value = null;
        space();
        while (true) {
            int key = key();
            if (key == EVENT) {
                event = text(event);
            } else if (key == ID) {
                id = text(id);
            } else if (key == WALLET_ID) {
                wallet = text(wallet);
            } else if (key == WORKSPACE_ID) {
                workspace = text(workspace);
            } else if (key == NETWORK_CODE) {
                network = text(network);
            } else if (key == STATUS) {
                status = text(status);
            } else if (key == AT) {
                atText = text(atText);
            } else if (key == VALUE_USD && value == null && (at() == '-' || (at() >= '0' && at() <= '9'))) {
                value = number();
            } else {
                throw GiveUp.INSTANCE; // another property, a second value_usd, or one that is not a number
            }
            if (!next('}')) {
                break;
            }
        }
        space();
        if (i != end) {
            throw GiveUp.INSTANCE;
        }
        return settlement(event, id, wallet, workspace, network, status, atText, value);
    }

    /** The settlement from what {@link #settlement()} read, or a give-up where the general path would refuse it. */
    private static ActionReader.SettlementRead settlement(String event, String id, String wallet, String workspace,
            String network, String status, String atText, Object value) throws GiveUp {
        if (!Settlement.EVENT.equals(event) || wallet == null || wallet.isEmpty() || workspace == null
                || workspace.isEmpty() || network == null || network.isEmpty() || status == null || atText == null
                || value == null) {
            throw GiveUp.INSTANCE;
        }
        SettlementStatus settled = SettlementStatus.fromWireName(status).orElse(null);
        Instant at = ActionReader.instant(atText);
        if (settled == null || at == null) {
            throw GiveUp.INSTANCE;
        }
        BigDecimal usd;
        try {
            usd = ActionReader.usd(value);
        } catch (IllegalArgumentException e) {
            throw GiveUp.INSTANCE; // negative: the general path says so
        }
        return new ActionReader.SettlementRead(new Settlement(id, workspace, wallet, network, usd, settled, at));
    }

    /**
     * An action read and checked in one pass, straight into the slots of its payload, or null where the text is
     * anything but the plain case: then {@link ActionReader}'s general path reads it, with its messages.
     *
     * <p>The plain case is an action with every property a string ({@code id}, {@code action}, {@code wallet_id},
     * {@code workspace_id}, {@code at}, none null), the sections of its trigger as objects, no {@code context},
     * {@code raw_transaction}, {@code method_name} or {@code network_code}, and every field one of its section, not
     * null, with a value {@link PayloadValidator} accepts; a wallet id that is a UUID and an instant with a UTC date.
     * The result equals what the general path gives for the same text, the action (its sections as maps in the
     * text's order) and the payload its check remembers (sections, slots and section mask); {@code PlainActionTest}
     * compares them.
     */
    static ActionReader.Read action(byte[] bytes, int offset, int length) {
        JsonLine r = new JsonLine(bytes, offset, length);
        try {
            return r.action();
        } catch (GiveUp | RuntimeException e) {
            return null;
        }
    }

    private ActionReader.Read action() throws GiveUp {
        space();
        if (at() != '{') {
            throw GiveUp.INSTANCE;
        }
        i++;
        String id = null;
        String actionName = null;
        String walletId = null;
        String workspaceId = null;
        String atText = null;
        Object[] slots = new Object[Payload.slotCount()];
        // the sections in the text's order: where each one's fields start in keys and raws (and cel), how many
        Section[] sections = new Section[SECTIONS];
        int[] starts = new int[SECTIONS];
        int[] sizes = new int[SECTIONS];
        keys = new String[slots.length];
        raws = new Object[slots.length];
        int count = 0;
        int seen = 0;
        space();
        if (at() == '}') {
            throw GiveUp.INSTANCE; // no action: the general path says so
        }
        while (true) {
            int key = key();
            if (key < 0) {
                throw GiveUp.INSTANCE;
            }
            if (key == ID) {
                id = text(id);
            } else if (key == ACTION) {
                actionName = text(actionName);
            } else if (key == WALLET_ID) {
                walletId = text(walletId);
            } else if (key == WORKSPACE_ID) {
                workspaceId = text(workspaceId);
            } else if (key == AT) {
                atText = text(atText);
            } else {
                Section section = SECTION_NAMED[key];
                if (section == null || section == Section.CONTEXT || (seen & (1 << section.ordinal())) != 0
                        || at() != '{') {
                    throw GiveUp.INSTANCE;
                }
                i++;
                seen |= 1 << section.ordinal();
                sections[count] = section;
                starts[count] = fields;
                section(section, slots);
                sizes[count] = fields - starts[count];
                count++;
            }
            if (!next('}')) {
                break;
            }
        }
        space();
        if (i != end) {
            throw GiveUp.INSTANCE;
        }
        return build(id, actionName, walletId, workspaceId, atText, slots, sections, starts, sizes, count);
    }

    /**
     * The action and its payload from what {@link #action()} read. A method of its own, called once per line, so
     * that the compiler compiles the reading loop without it (compiling the two as one cost a replay a second of
     * compiler time, twice).
     */
    private ActionReader.Read build(String id, String actionName, String walletId, String workspaceId,
            String atText, Object[] slots, Section[] sections, int[] starts, int[] sizes, int count) throws GiveUp {
        if (actionName == null || walletId == null || atText == null || !Uuids.isUuid(walletId)) {
            throw GiveUp.INSTANCE;
        }
        TriggerAction trigger = TriggerAction.fromWireName(actionName).orElse(null);
        Instant at = ActionReader.instant(atText);
        if (trigger == null || at == null || !PayloadValidator.dated(at)) {
            throw GiveUp.INSTANCE;
        }
        String[] names = new String[count];
        Object[] actionSections = new Object[count];
        // the payload's sections: the action's, those of its trigger it left out (empty), and context
        String[] payloadNames = new String[SECTIONS];
        Object[] payloadSections = new Object[SECTIONS];
        int mask = 1 << Section.CONTEXT.ordinal();
        for (int k = 0; k < count; k++) {
            Section section = sections[k];
            if (!FieldSchema.hasSection(trigger, section)) {
                throw GiveUp.INSTANCE;
            }
            names[k] = section.wireName();
            ArrayMap<Object> asRead = new ArrayMap<>(keys, raws, starts[k], sizes[k]);
            actionSections[k] = asRead;
            payloadNames[k] = names[k];
            Map<String, Object> fields = (changed & (1 << section.ordinal())) == 0 ? asRead
                    : new ArrayMap<>(keys, cel, starts[k], sizes[k]);
            if (section == Section.RESOURCE && !fields.containsKey("decoded_args")) {
                // as PayloadValidator does: a call without decoded arguments has an empty decoded_args
                Map<String, Object> withArgs = new HashMap<>(fields);
                withArgs.put("decoded_args", Map.of());
                fields = Collections.unmodifiableMap(withArgs);
                slots[Payload.slotOrThrow(Section.RESOURCE, "decoded_args")] = Map.of();
            }
            payloadSections[k] = fields;
            mask |= 1 << section.ordinal();
        }
        int n = count;
        for (Section s : FieldSchema.sections(trigger)) {
            if (s != Section.CONTEXT && (mask & (1 << s.ordinal())) == 0) {
                if (s == Section.RESOURCE) {
                    throw GiveUp.INSTANCE; // a call without resource: left to the general path
                }
                payloadNames[n] = s.wireName();
                payloadSections[n++] = Map.of();
                mask |= 1 << s.ordinal();
            }
        }
        Map<String, Object> context = PayloadValidator.context(at);
        payloadNames[n] = Section.CONTEXT.wireName();
        payloadSections[n++] = context;
        slots[Payload.HOUR_SLOT] = context.get("hour");
        slots[Payload.DAY_SLOT] = context.get("day_of_week");
        Action action = new Action(id, trigger, walletId, workspaceId, at,
                ActionSections.own(new ArrayMap<>(names, actionSections, count)));
        PayloadValidator.remember(action, new Payload(trigger, Uuids.lowerCase(walletId), at,
                new ArrayMap<>(payloadNames, payloadSections, n), slots, mask));
        return new ActionReader.Read(action, List.of());
    }

    /** A top-level string property, read once (a second one, or one that is not a string, gives up). */
    private String text(String before) throws GiveUp {
        if (before != null || at() != '"') {
            throw GiveUp.INSTANCE;
        }
        i++;
        int from = i;
        int to = stringEnd();
        delimited();
        return new String(b, from, to - from, StandardCharsets.ISO_8859_1);
    }

    /**
     * The fields of a section whose <code>{</code> has been read, each into its slot and at the end of {@link #keys}
     * and {@link #raws} (and of {@link #cel}, values as CEL reads them, once one differs from the value read; the
     * section is then marked in {@link #changed}).
     */
    private void section(Section section, Object[] slots) throws GiveUp {
        Field[] named = FIELD_NAMED[section.ordinal()];
        space();
        if (at() == '}') {
            i++;
            return;
        }
        while (true) {
            int key = key();
            Field field = key < 0 ? null : named[key];
            if (field == null || slots[field.slot] != null) {
                throw GiveUp.INSTANCE; // an unknown field, or a second one of the same name
            }
            Object raw = value(2);
            Object value = raw == null ? PayloadValidator.INVALID : PayloadValidator.convertOrInvalid(field.spec, raw);
            if (value == PayloadValidator.INVALID) {
                throw GiveUp.INSTANCE;
            }
            if (value != raw) {
                if (cel == null) {
                    cel = java.util.Arrays.copyOf(raws, raws.length);
                }
                changed |= 1 << section.ordinal();
            }
            keys[fields] = field.spec.name();
            raws[fields] = raw;
            if (cel != null) {
                cel[fields] = value;
            }
            fields++;
            slots[field.slot] = value;
            if (!next('}')) {
                return;
            }
        }
    }

    private void space() {
        int j = i;
        while (j < end) {
            byte c = b[j];
            if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
                j++;
            } else {
                break;
            }
        }
        i = j;
    }

    /** An object whose <code>{</code> has been read. */
    private Map<String, Object> object(int depth) throws GiveUp {
        if (depth > MAX_DEPTH) {
            throw GiveUp.INSTANCE;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        space();
        if (at() == '}') {
            i++;
            return m;
        }
        while (true) {
            if (at() != '"') {
                throw GiveUp.INSTANCE;
            }
            i++;
            String key = name();
            space();
            if (at() != ':') {
                throw GiveUp.INSTANCE;
            }
            i++;
            space();
            int size = m.size();
            m.put(key, value(depth));
            if (m.size() == size) {
                throw GiveUp.INSTANCE; // a duplicate key: Jackson says so
            }
            if (!next('}')) {
                return m;
            }
        }
    }

    /**
     * After a member or an element: true past a comma and the space after it (another one follows), false past
     * {@code close}; gives up on anything else.
     */
    private boolean next(char close) throws GiveUp {
        space();
        byte c = at();
        i++;
        if (c == close) {
            return false;
        }
        if (c != ',') {
            throw GiveUp.INSTANCE;
        }
        space();
        return true;
    }

    private List<Object> array(int depth) throws GiveUp {
        if (depth > MAX_DEPTH) {
            throw GiveUp.INSTANCE;
        }
        List<Object> l = new ArrayList<>();
        space();
        if (at() == ']') {
            i++;
            return l;
        }
        while (true) {
            l.add(value(depth));
            if (!next(']')) {
                return l;
            }
        }
    }

    private byte at() throws GiveUp {
        if (i >= end) {
            throw GiveUp.INSTANCE;
        }
        return b[i];
    }

    private Object value(int depth) throws GiveUp {
        byte c = at();
        switch (c) {
            case '"' -> {
                i++;
                int from = i;
                int to = stringEnd();
                return new String(b, from, to - from, StandardCharsets.ISO_8859_1);
            }
            case '{' -> {
                i++;
                return object(depth + 1);
            }
            case '[' -> {
                i++;
                return array(depth + 1);
            }
            case 't' -> {
                literal("true");
                return Boolean.TRUE;
            }
            case 'f' -> {
                literal("false");
                return Boolean.FALSE;
            }
            case 'n' -> {
                literal("null");
                return null;
            }
            default -> {
                return number();
            }
        }
    }

    /**
     * The index of the closing quote of a string whose opening quote has been read; {@link #i} moves past it.
     * Eight bytes at a time while eight are left ({@link #stops}), then byte by byte.
     */
    private int stringEnd() throws GiveUp {
        int j = i;
        for (; j + 8 <= end; j += 8) {
            long stops = stops((long) LONGS.get(b, j));
            if (stops != 0) {
                j += Long.numberOfTrailingZeros(stops) >>> 3;
                if (b[j] != '"' || j - i > MAX_STRING) {
                    throw GiveUp.INSTANCE;
                }
                i = j + 1;
                return j;
            }
        }
        while (j < end) {
            byte c = b[j];
            if (c == '"') {
                if (j - i > MAX_STRING) {
                    throw GiveUp.INSTANCE;
                }
                i = j + 1;
                return j;
            }
            if (c < 0x20 || c == '\\' || c == 0x7f) {
                // an escape, a control character, DEL, or a byte past ASCII (negative): left to Jackson
                throw GiveUp.INSTANCE;
            }
            j++;
        }
        throw GiveUp.INSTANCE;
    }

    /** A key, as the schema's own string when it is one of its names. */
    private String name() throws GiveUp {
        int from = i;
        int k = nameIndex();
        return k >= 0 ? NAMES[k] : new String(b, from, i - 1 - from, StandardCharsets.ISO_8859_1);
    }

    /**
     * A member's name, its colon and the whitespace around them, read: the name's index in {@link #NAMES}, or -1
     * when it is none of them.
     */
    private int key() throws GiveUp {
        if (at() != '"') {
            throw GiveUp.INSTANCE;
        }
        i++;
        int key = nameIndex();
        space();
        if (at() != ':') {
            throw GiveUp.INSTANCE;
        }
        i++;
        space();
        return key;
    }

    /**
     * A key whose opening quote has been read: its index in {@link #NAMES}, or -1 when it is none of them. Found by
     * its length and its first and last eight bytes, read as two words: a name of up to 16 bytes is equal to a
     * known one when these are (the two words cover it); a longer one is compared in full.
     */
    private int nameIndex() throws GiveUp {
        int from = i;
        int to = stringEnd();
        int n = to - from;
        long first = word(b, from, Math.min(n, 8));
        long last = n > 8 ? word(b, to - 8, 8) : 0;
        for (int k = hash(first, last, n); NAMES[k] != null; k = (k + 1) & (NAMES.length - 1)) {
            if (NAME_LENGTH[k] == n && NAME_FIRST[k] == first && NAME_LAST[k] == last
                    && (n <= 16 || java.util.Arrays.equals(b, from, to, NAME_BYTES[k], 0, n))) {
                return k;
            }
        }
        return -1;
    }

    /**
     * The {@code n <= 8} bytes from {@code from} as a word, the first one lowest and the rest zero: one read when
     * eight bytes are there to read (the array goes on past a line's end), else byte by byte.
     */
    private static long word(byte[] bytes, int from, int n) {
        if (from + 8 <= bytes.length) {
            long w = (long) LONGS.get(bytes, from);
            return n == 8 ? w : w & ((1L << (n << 3)) - 1);
        }
        long w = 0;
        for (int k = 0; k < n; k++) {
            w |= (bytes[from + k] & 0xFFL) << (k << 3);
        }
        return w;
    }

    /** A name's slot in {@link #NAMES}, from its length and its first and last words. */
    private static int hash(long first, long last, int n) {
        long h = (first * 0x9E3779B97F4A7C15L + last) * 0xC2B2AE3D27D4EB4FL + n;
        return (int) (h >>> 40) & (NAMES.length - 1);
    }

    /**
     * The bytes of a word that end a plain string, as the high bit of each such byte: a quote, a backslash, a
     * control character, DEL or a byte past ASCII. Each test flags its bytes exactly up to its first one, and may
     * flag bytes after it (a borrow or carry runs on from it), so the lowest bit set is the first such byte.
     */
    static long stops(long w) {
        long quote = w ^ 0x2222222222222222L;
        long backslash = w ^ 0x5C5C5C5C5C5C5C5CL;
        return ((quote - ONES) & ~quote | (backslash - ONES) & ~backslash
                | (w - 0x2020202020202020L) & ~w | w | w + ONES) & HIGHS;
    }

    private void literal(String word) throws GiveUp {
        if (end - i < word.length()) {
            throw GiveUp.INSTANCE;
        }
        for (int k = 0; k < word.length(); k++) {
            if (b[i + k] != word.charAt(k)) {
                throw GiveUp.INSTANCE;
            }
        }
        i += word.length();
        delimited();
    }

    /** A value must be followed by the end, whitespace, or a structural character; else Jackson says what is wrong. */
    private void delimited() throws GiveUp {
        if (i < end) {
            byte c = b[i];
            if (c != ',' && c != '}' && c != ']' && c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                throw GiveUp.INSTANCE;
            }
        }
    }

    /**
     * A JSON number: {@code -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?}, an integer as a Long, anything
     * with a point or exponent as a Double.
     */
    private Object number() throws GiveUp {
        int start = i;
        boolean negative = false;
        if (at() == '-') {
            negative = true;
            i++;
        }
        int intStart = i;
        long mantissa = 0;
        while (i < end && b[i] >= '0' && b[i] <= '9') {
            mantissa = mantissa * 10 + (b[i] - '0');
            i++;
        }
        int intDigits = i - intStart;
        if (intDigits == 0 || intDigits > LONG_DIGITS || (intDigits > 1 && b[intStart] == '0')) {
            throw GiveUp.INSTANCE; // no digit, too long for a long, or a leading zero
        }
        if (i >= end || (b[i] != '.' && b[i] != 'e' && b[i] != 'E')) {
            delimited();
            return negative ? -mantissa : mantissa;
        }
        int fracDigits = 0;
        if (b[i] == '.') {
            i++;
            int fracStart = i;
            while (i < end && b[i] >= '0' && b[i] <= '9') {
                if (intDigits + fracDigits < LONG_DIGITS) {
                    mantissa = mantissa * 10 + (b[i] - '0');
                }
                fracDigits++;
                i++;
            }
            if (i == fracStart) {
                throw GiveUp.INSTANCE;
            }
        }
        boolean exponent = false;
        if (i < end && (b[i] == 'e' || b[i] == 'E')) {
            exponent = true;
            i++;
            if (i < end && (b[i] == '+' || b[i] == '-')) {
                i++;
            }
            int expStart = i;
            while (i < end && b[i] >= '0' && b[i] <= '9') {
                i++;
            }
            if (i == expStart) {
                throw GiveUp.INSTANCE;
            }
        }
        if (i - start > MAX_NUMBER) {
            throw GiveUp.INSTANCE; // Jackson's to read, or to refuse past its length limit
        }
        delimited();
        double d;
        if (!exponent && intDigits + fracDigits <= LONG_DIGITS && mantissa < (1L << 53)
                && fracDigits < POWERS_OF_TEN.length) {
            if (mantissa == 0 && !negative) {
                return ZERO;
            }
            d = mantissa / POWERS_OF_TEN[fracDigits];
            if (negative) {
                d = -d;
            }
        } else {
            d = Double.parseDouble(new String(b, start, i - start, StandardCharsets.ISO_8859_1));
            if (Double.isInfinite(d)) {
                throw GiveUp.INSTANCE;
            }
        }
        return d;
    }
}
