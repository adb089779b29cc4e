package dev.custody.engine.check;

import dev.custody.engine.payload.Action;
import dev.custody.engine.internal.payload.ActionSections;
import dev.custody.engine.text.Suggestions;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.Limits;
import dev.custody.engine.schema.Uuids;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks an {@link Action} against the field schema and converts it to the {@link Payload} CEL reads.
 *
 * <p>What it refuses (each with a one-line message naming the field), because a rule could otherwise
 * see a value that makes a limit silently not apply:
 * <ul>
 *   <li>a missing or non-UUID {@code wallet_id};
 *   <li>a section the action does not have (e.g. {@code resource} on a withdrawal), and a {@code context}
 *       section (it is computed from the instant, never taken from the caller);
 *   <li>an unknown field, with a "did you mean" when one is close, and a null section or field name;
 *   <li>a value of the wrong type: a string where a number belongs, a fraction where an integer
 *       belongs, a number outside the 64-bit range;
 *   <li>an instant so far in the past or future that it has no calendar date ({@link Instant#MAX});
 *   <li>NaN or infinite numbers, and negative amounts, USD values, outflows, counts and ages;
 *   <li>a {@code principal.role} outside the role enum;
 *   <li>a {@code resource.decoded_args} that is not a string-keyed map, nests deeper than
 *       {@value #MAX_DEPTH} levels, or holds more than {@value #MAX_ENTRIES} values;
 *   <li>sizes past the payload limits of {@link Limits}: a string field longer than
 *       {@value Limits#PAYLOAD_STRING_MAX} characters; inside {@code decoded_args}, a string longer than
 *       {@value Limits#DECODED_ARG_STRING_MAX}, a key longer than {@value Limits#DECODED_ARG_KEY_MAX}, or more
 *       than {@value Limits#DECODED_ARGS_CHARS_MAX} characters of strings and keys in all. So the work any rule
 *       can do on a payload is bounded before it runs (a regex over a field, a concatenation, a comprehension
 *       over the arguments), and the time budget is about the rules, not about what a caller chose to send.
 * </ul>
 * A {@code null} value counts as absent. Absent fields stay absent: reading one in a rule is a runtime
 * error, which the evaluator turns into a fail-closed DENY. The one exception is
 * {@code resource.decoded_args}: left out, the call was not recognized, so it is the empty map (docs/design.md §3).
 *
 * <p>{@code context.hour} (0–23) and {@code context.day_of_week} ({@code "Monday"}…) are computed from the
 * evaluation instant in UTC.
 *
 * <p>Stateless and thread-safe.
 */
public final class PayloadValidator {
    /** An action's check cache, reached from this package. */
    /** The deepest nesting of maps and lists accepted inside {@code resource.decoded_args}. */
    public static final int MAX_DEPTH = 8;
    /** The most values accepted inside {@code resource.decoded_args}, all levels counted. */
    public static final int MAX_ENTRIES = 1000;

    /** The first and last instants with a UTC date (those of {@link java.time.LocalDateTime#MIN} and MAX). */
    private static final Instant FIRST_DATED = LocalDateTime.MIN.toInstant(ZoneOffset.UTC);
    private static final Instant LAST_DATED = LocalDateTime.MAX.toInstant(ZoneOffset.UTC);
    private static final long SECONDS_PER_DAY = 86_400;
    /** The 168 {@code context} sections, by {@code day * 24 + hour} (Monday = day 0): made once, shared. */
    private static final List<Map<String, Object>> CONTEXTS;
    /** Each section's fields by name, with their slots ({@link Payload#slotOf}). */
    private static final Map<Section, Map<String, Slotted>> SPECS = new EnumMap<>(Section.class);

    static {
        List<Map<String, Object>> contexts = new ArrayList<>(7 * 24);
        for (String day : FieldSchema.DAYS_OF_WEEK) {
            for (long hour = 0; hour < 24; hour++) {
                contexts.add(Map.of("hour", hour, "day_of_week", day));
            }
        }
        CONTEXTS = List.copyOf(contexts);
        for (Section s : Section.values()) {
            Map<String, Slotted> byName = new HashMap<>();
            FieldSchema.fields(s).forEach(f -> byName.put(f.name(), new Slotted(f, Payload.slotOf(s, f.name()))));
            SPECS.put(s, byName);
        }
    }

    /** A field's spec and its slot. */
    private record Slotted(FieldSpec spec, int slot) {}

    private PayloadValidator() {}

    /** {@code context.hour} and {@code context.day_of_week} of an instant, in UTC. */
    static Map<String, Object> context(Instant at) {
        long seconds = at.getEpochSecond();
        long days = Math.floorDiv(seconds, SECONDS_PER_DAY);
        int hour = (int) (Math.floorMod(seconds, SECONDS_PER_DAY) / 3600);
        int day = (int) Math.floorMod(days + 3, 7); // 1970-01-01 was a Thursday, day 3 from Monday
        return CONTEXTS.get(day * 24 + hour);
    }

    /**
     * Checks {@code action}, with {@code instant} as the evaluation instant (used only when the action
     * carries no {@code at}). Never throws for malformed content; {@code action} and {@code instant} must
     * not be null.
     *
     * <p>An action is checked once: the {@link Action} remembers the result (the checked values, or why it is
     * malformed), so deciding it again, against another bundle (replay and diff) or in a loop (benchmarks),
     * neither checks nor copies anything. It remembers the whole payload for the last instant it was checked at:
     * its own {@code at} or, for an action without one, the last evaluation instant. Another instant in the same
     * UTC hour shares every value with it (a new {@code Payload} with another {@link Payload#instant()}); another
     * hour costs a copy of the slot array and of the section map, with {@code context} set for it. Copies made by
     * {@link Action#withAt} share what is remembered. Nested values (inside {@code decoded_args}) are read at that
     * first check.
     */
    public static PayloadResult validate(Action action, Instant instant) {
        Object remembered = sections(action).checkCache();
        Checked checked = remembered instanceof Checked c && c.trigger == action.action()
                && java.util.Objects.equals(c.walletId, action.walletId()) ? c : null;
        Instant at = action.at() != null ? action.at() : instant;
        if (checked == null) {
            checked = new Checked(action.action(), action.walletId(), checkValues(action, null), null, null);
        } else if (checked.full != null && checked.fullAt.equals(at)) {
            return checked.full;
        }
        if (checked.body instanceof PayloadResult.Invalid) {
            sections(action).checkCache(checked);
            return checked.body;
        }
        if (at.isBefore(FIRST_DATED) || at.isAfter(LAST_DATED)) {
            // Instant's range is wider than a date's: the far ends have no hour or weekday
            sections(action).checkCache(checked);
            return new PayloadResult.Invalid("`at` `" + at + "` is out of the supported date range");
        }
        Map<String, Object> context = context(at);
        Payload last = checked.full == null ? null : ((PayloadResult.Valid) checked.full).payload();
        // the same hour and weekday as the payload remembered: the same values, only the instant differs
        Payload payload = last != null && last.sections().get(Section.CONTEXT.wireName()) == context
                ? last.sameValuesAt(at) : ((PayloadResult.Valid) checked.body).payload().at(at, context);
        PayloadResult full = new PayloadResult.Valid(payload);
        sections(action).checkCache(new Checked(checked.trigger, checked.walletId, checked.body, at, full));
        return full;
    }

    /**
     * Checks everything of {@code action} but its instant, now, and has the action remember the result, so that its
     * first evaluation only adds {@code context}. {@link ActionReader} calls it as it reads an action, while the
     * action's maps are still in the reading thread's cache (checking them later, on a deciding thread, cost a
     * replay more than the check itself). Calling it again, or never, changes no result.
     */
    static void precheck(Action action) {
        if (sections(action).checkCache() != null) {
            return;
        }
        Instant at = action.at();
        if (at == null || at.isBefore(FIRST_DATED) || at.isAfter(LAST_DATED)) {
            sections(action).checkCache(new Checked(action.action(), action.walletId(), checkValues(action, null), null, null));
            return;
        }
        // the action's own instant is known: the whole payload at once, context included (one section map, not two)
        PayloadResult r = checkValues(action, at);
        boolean valid = r instanceof PayloadResult.Valid;
        sections(action).checkCache(new Checked(action.action(), action.walletId(), r, valid ? at : null, valid ? r : null));
    }

    /**
     * Has {@code action} remember {@code payload} as what checking it at its own {@code at} gives, for a reader that
     * checked it as it read it ({@link JsonLine#action}, which gives up wherever this class would refuse a value).
     */
    static void remember(Action action, Payload payload) {
        PayloadResult valid = new PayloadResult.Valid(payload);
        sections(action).checkCache(new Checked(action.action(), action.walletId(), valid, action.at(), valid));
    }

    /** The action's sections, which carry what the check remembered of them (an action's are always its own). */
    private static ActionSections sections(Action action) {
        return (ActionSections) action.sections();
    }

    /** Whether an instant has a UTC date (hour and weekday), as {@code context} needs. */
    static boolean dated(Instant at) {
        return !at.isBefore(FIRST_DATED) && !at.isAfter(LAST_DATED);
    }

    /** Marks a value {@link #convertOrInvalid} refuses. */
    static final Object INVALID = new Object();

    /** A field's value in the form CEL reads, as this class converts it, or {@link #INVALID} where it refuses it. */
    static Object convertOrInvalid(FieldSpec spec, Object raw) {
        try {
            return convert(spec, raw);
        } catch (Malformed m) {
            return INVALID;
        }
    }

    /**
     * What an {@link Action} remembers of its check: for its trigger and wallet id, the checked values
     * ({@code body}: without {@code context}, or, when checked on read, the whole payload at the action's
     * {@code at}) and the whole payload for the instant last asked ({@code full} at {@code fullAt}).
     */
    private record Checked(TriggerAction trigger, String walletId, PayloadResult body, Instant fullAt,
            PayloadResult full) {}

    /**
     * The schema check of everything but the instant: a payload without {@code context}, or why it is malformed.
     * With {@code at} (within the dated range), the payload is the whole one at that instant, {@code context}
     * included, as {@link Payload#at} would make it from the payload without.
     */
    private static PayloadResult checkValues(Action action, Instant at) {
        TriggerAction trigger = action.action();
        if (action.walletId() == null || action.walletId().isEmpty()) {
            return new PayloadResult.Invalid("`wallet_id` is missing");
        }
        if (!Uuids.isUuid(action.walletId())) {
            return new PayloadResult.Invalid("`wallet_id` `" + clip(action.walletId()) + "` is not a UUID");
        }
        Object[] slots = new Object[Payload.slotCount()];
        int mask = 1 << Section.CONTEXT.ordinal();
        Map<String, Map<String, Object>> out = new HashMap<>();
        for (Map.Entry<String, Map<String, Object>> e : action.sections().entrySet()) {
            String name = e.getKey();
            if (name == null) {
                return new PayloadResult.Invalid("a section has no name (null)");
            }
            if ("context".equals(name)) {
                return new PayloadResult.Invalid(
                        "`context` is computed from the evaluation instant; set the action's `at` instead");
            }
            Section section = Section.fromWireName(name).orElse(null);
            if (section == null || !FieldSchema.hasSection(trigger, section)) {
                List<String> names = new ArrayList<>();
                FieldSchema.sections(trigger).forEach(s -> names.add(s.wireName()));
                String hint = Suggestions.closest(name, names).map(s -> " (did you mean `" + s + "`?)").orElse("");
                return new PayloadResult.Invalid("section `" + clip(name) + "` is not part of a `"
                        + trigger.wireName() + "` payload" + hint);
            }
            Map<String, Object> fields = e.getValue();
            if (fields == null) {
                continue;
            }
            // The action's section maps are its own unmodifiable copies: while every value is already in the form
            // CEL reads, the payload shares the map; from the first value that is not, converted values are kept
            // and the section is copied.
            Map<String, Slotted> specs = SPECS.get(section);
            Object[] changed = null;
            int firstChange = -1;
            int i = 0;
            for (Map.Entry<String, Object> f : fields.entrySet()) {
                String fieldName = f.getKey();
                if (fieldName == null) {
                    return new PayloadResult.Invalid("a field of section `" + name + "` has no name (null)");
                }
                Slotted slotted = specs.get(fieldName);
                if (slotted == null) {
                    List<String> names = FieldSchema.fields(section).stream().map(FieldSpec::name).toList();
                    String hint = Suggestions.closest(fieldName, names)
                            .map(s -> " (did you mean `" + name + "." + s + "`?)").orElse("");
                    return new PayloadResult.Invalid("unknown field `" + name + "." + clip(fieldName) + "`" + hint);
                }
                FieldSpec spec = slotted.spec;
                Object value = null;
                if (f.getValue() != null) {
                    try {
                        value = convert(spec, f.getValue());
                    } catch (Malformed m) {
                        return new PayloadResult.Invalid("field `" + spec.path() + "` " + m.getMessage());
                    }
                }
                slots[slotted.slot] = value;
                if (changed == null && (value == null || value != f.getValue())) {
                    changed = new Object[fields.size()];
                    firstChange = i;
                }
                if (changed != null) {
                    changed[i] = value;
                }
                i++;
            }
            mask |= 1 << section.ordinal();
            if (changed == null) {
                out.put(name, fields);
                continue;
            }
            Map<String, Object> converted = new HashMap<>();
            i = 0;
            for (Map.Entry<String, Object> f : fields.entrySet()) {
                Object value = i < firstChange ? f.getValue() : changed[i];
                if (value != null) {
                    converted.put(f.getKey(), value);
                }
                i++;
            }
            out.put(name, Collections.unmodifiableMap(converted));
        }
        // A section the caller left out has no fields, but it exists: has() on one of its fields must be false
        // (not unknown, which fails the rule), and a read must fail as an absent field.
        for (Section s : FieldSchema.sections(trigger)) {
            if (s != Section.CONTEXT) {
                out.putIfAbsent(s.wireName(), Map.of());
                mask |= 1 << s.ordinal();
            }
        }
        // A call given without decoded arguments is an unrecognized one: its decoded_args is an empty map, so
        // has(resource.decoded_args.<key>) is false there rather than a failed read (docs/design.md §3).
        Map<String, Object> resource = out.get(Section.RESOURCE.wireName());
        if (resource != null && !resource.containsKey("decoded_args")) {
            Map<String, Object> withArgs = new HashMap<>(resource);
            withArgs.put("decoded_args", Map.of());
            out.put(Section.RESOURCE.wireName(), Collections.unmodifiableMap(withArgs));
            slots[Payload.slotOrThrow(Section.RESOURCE, "decoded_args")] = Map.of();
        }
        if (at != null) {
            Map<String, Object> context = context(at);
            out.put(Section.CONTEXT.wireName(), context);
            slots[Payload.HOUR_SLOT] = context.get("hour");
            slots[Payload.DAY_SLOT] = context.get("day_of_week");
        }
        return new PayloadResult.Valid(new Payload(trigger, Uuids.lowerCase(action.walletId()),
                at, Collections.unmodifiableMap(out), slots, mask));
    }

    private static Object convert(FieldSpec spec, Object raw) throws Malformed {
        switch (spec.type()) {
            case STRING -> {
                if (!(raw instanceof String s)) {
                    throw new Malformed("must be a string, not " + describe(raw));
                }
                if (s.length() > Limits.PAYLOAD_STRING_MAX) {
                    throw new Malformed("is " + s.length() + " characters long, more than " + Limits.PAYLOAD_STRING_MAX);
                }
                if (!spec.enumValues().isEmpty() && !spec.enumValues().contains(s)) {
                    throw new Malformed("`" + clip(s) + "` is not one of " + String.join(", ", spec.enumValues()));
                }
                return s;
            }
            case BOOLEAN -> {
                if (!(raw instanceof Boolean b)) {
                    throw new Malformed("must be a boolean, not " + describe(raw));
                }
                return b;
            }
            case NUMBER -> {
                if (raw instanceof Double given && Double.isFinite(given) && (given >= 0 || !spec.nonNegative())) {
                    // the common case, as CEL reads it; -0.0 (which passes `>= 0`) is read as 0.0, see positiveZero
                    return Double.doubleToRawLongBits(given) == NEGATIVE_ZERO_BITS ? POSITIVE_ZERO : raw;
                }
                if (!(raw instanceof Number n) ) {
                    throw new Malformed("must be a number, not " + describe(raw));
                }
                double d = n.doubleValue();
                if (!Double.isFinite(d)) {
                    throw new Malformed("must be a finite number");
                }
                if (spec.nonNegative() && d < 0) {
                    throw new Malformed("must not be negative, got " + n);
                }
                return raw instanceof Double && d != 0 ? raw : (Object) positiveZero(d);
            }
            case INTEGER -> {
                long l = toLong(raw);
                if (spec.nonNegative() && l < 0) {
                    throw new Malformed("must not be negative, got " + l);
                }
                return raw instanceof Long ? raw : (Object) l;
            }
            case MAP -> {
                int[] budget = {MAX_ENTRIES, Limits.DECODED_ARGS_CHARS_MAX};
                return dynamic(raw, 0, budget, true);
            }
            default -> throw new AssertionError(spec.type());
        }
    }

    private static final long NEGATIVE_ZERO_BITS = Double.doubleToRawLongBits(-0.0);
    private static final Double POSITIVE_ZERO = 0.0;

    /**
     * A double as a payload holds it: {@code -0.0} read as {@code 0.0}. cel-java orders {@code -0.0} below int
     * {@code 0} and finds them unequal (the CEL specification has them equal), so a payload's {@code -0.0} would
     * make {@code wallet.outflow_1h < 0} true for a valid, non-negative amount; no payload holds it, so no decision
     * depends on it (docs/design.md §3.9).
     */
    static double positiveZero(double d) {
        return d == 0 ? 0.0 : d;
    }

    private static long toLong(Object raw) throws Malformed {
        if (raw instanceof Long || raw instanceof Integer || raw instanceof Short || raw instanceof Byte) {
            return ((Number) raw).longValue();
        }
        if (raw instanceof BigInteger b) {
            if (b.bitLength() > 63) {
                throw new Malformed("is out of the integer range");
            }
            return b.longValue();
        }
        if (raw instanceof Double || raw instanceof Float || raw instanceof BigDecimal) {
            BigDecimal d;
            if (raw instanceof BigDecimal bd) {
                d = bd;
            } else {
                double x = ((Number) raw).doubleValue();
                if (!Double.isFinite(x)) {
                    throw new Malformed("must be a whole number, not " + raw);
                }
                // the double's exact value (4611686018427387904.0 is 2^62), not its shortest decimal form
                // (Double.toString would make it 4611686018427387900)
                d = new BigDecimal(x);
            }
            try {
                return d.longValueExact();
            } catch (ArithmeticException e) {
                throw new Malformed("must be a whole number in the integer range, not " + raw);
            }
        }
        throw new Malformed("must be an integer, not " + describe(raw));
    }

    private static Object dynamic(Object raw, int depth, int[] budget, boolean top) throws Malformed {
        if (--budget[0] < 0) {
            throw new Malformed("holds more than " + MAX_ENTRIES + " values");
        }
        if (depth > MAX_DEPTH) {
            throw new Malformed("nests deeper than " + MAX_DEPTH + " levels");
        }
        if (raw instanceof Map<?, ?> m) {
            Map<String, Object> out = new HashMap<>();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!(e.getKey() instanceof String k)) {
                    throw new Malformed("must have string keys");
                }
                if (k.length() > Limits.DECODED_ARG_KEY_MAX) {
                    throw new Malformed("has a key " + k.length() + " characters long, more than "
                            + Limits.DECODED_ARG_KEY_MAX);
                }
                chars(k, budget);
                if (e.getValue() != null) {
                    out.put(k, dynamic(e.getValue(), depth + 1, budget, false));
                }
            }
            return Collections.unmodifiableMap(out);
        }
        if (top) {
            throw new Malformed("must be a map, not " + describe(raw));
        }
        if (raw instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            for (Object o : l) {
                if (o == null) {
                    throw new Malformed("holds a null in a list");
                }
                out.add(dynamic(o, depth + 1, budget, false));
            }
            return Collections.unmodifiableList(out);
        }
        if (raw instanceof String str) {
            if (str.length() > Limits.DECODED_ARG_STRING_MAX) {
                throw new Malformed("holds a string " + str.length() + " characters long, more than "
                        + Limits.DECODED_ARG_STRING_MAX);
            }
            chars(str, budget);
            return raw;
        }
        if (raw instanceof Boolean) {
            return raw;
        }
        if (raw instanceof Long || raw instanceof Integer || raw instanceof Short || raw instanceof Byte
                || raw instanceof BigInteger) {
            return toLong(raw);
        }
        if (raw instanceof Double || raw instanceof Float || raw instanceof BigDecimal) {
            double d = ((Number) raw).doubleValue();
            if (!Double.isFinite(d)) {
                throw new Malformed("holds a number that is not finite");
            }
            return positiveZero(d);
        }
        throw new Malformed("holds a value of unsupported type " + describe(raw));
    }

    /** Counts a string against the characters {@code decoded_args} may hold in all. */
    private static void chars(String s, int[] budget) throws Malformed {
        budget[1] -= s.length();
        if (budget[1] < 0) {
            throw new Malformed("holds more than " + Limits.DECODED_ARGS_CHARS_MAX + " characters of strings and keys");
        }
    }

    private static String describe(Object raw) {
        if (raw instanceof String) {
            return "a string";
        }
        if (raw instanceof Boolean) {
            return "a boolean";
        }
        if (raw instanceof Number) {
            return "a number";
        }
        if (raw instanceof Map) {
            return "an object";
        }
        if (raw instanceof List) {
            return "an array";
        }
        return "a " + raw.getClass().getSimpleName();
    }

    private static String clip(String s) {
        return s.length() <= 64 ? s : s.substring(0, 61) + "...";
    }

    private static final class Malformed extends Exception {
        Malformed(String message) {
            super(message, null, false, false);
        }
    }
}
