package dev.custody.engine.check;

import dev.custody.engine.payload.Action;

import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An action checked against the field schema, in the form CEL reads, in two views of the same values:
 * <ul>
 *   <li>{@link #sections()}: each section an unmodifiable map whose values are {@code String}, {@code Double}
 *       (numbers), {@code Long} (integers), {@code Boolean}, or for {@code resource.decoded_args} a map of such
 *       values (and lists): what cel-java's interpreter reads;
 *   <li>{@linkplain #slot(int) slots}: every field of the schema has a fixed index ({@link #slotOf}), and a payload
 *       holds its values in an array by that index (null where the field is absent), so that a compiled condition
 *       reads a field with one array load instead of two hash lookups (docs/design.md §10.5).
 * </ul>
 * Every section of the action is present (empty when the caller left it out); fields the caller left out are
 * absent, so a rule that reads one fails (and the evaluator denies) unless it guards the read with {@code has()}.
 *
 * <p>{@link PayloadValidator} makes these, once per action ({@link Action} remembers the result, docs/design.md
 * §10.5); the public constructor, which checks nothing, is for tests and tools that build a payload by hand.
 * Immutable and thread-safe.
 */
public final class Payload {
    /** Marks, in a slot, a field a hand-made payload maps to null (present, but no CEL value). */
    static final Object NULL_VALUE = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };
    private static final Map<Section, Map<String, Integer>> SLOTS = new EnumMap<>(Section.class);
    private static final int SLOT_COUNT;
    /** The slots of {@code context.hour} and {@code context.day_of_week}. */
    static final int HOUR_SLOT;
    static final int DAY_SLOT;

    static {
        int next = 0;
        for (Section s : Section.values()) {
            Map<String, Integer> bySlot = new HashMap<>();
            for (FieldSpec f : FieldSchema.fields(s)) {
                bySlot.put(f.name(), next++);
            }
            SLOTS.put(s, Map.copyOf(bySlot));
        }
        SLOT_COUNT = next;
        HOUR_SLOT = slotOf(Section.CONTEXT, "hour");
        DAY_SLOT = slotOf(Section.CONTEXT, "day_of_week");
    }

    private final TriggerAction action;
    private final String walletId;
    private final Instant instant;
    private final Map<String, Map<String, Object>> sections;
    private final Object[] slots;
    /** Bit {@code ordinal} set for every section present in {@link #sections}. */
    private final int sectionMask;

    /**
     * A payload from sections as given, checked against nothing: values are kept as they are, even where the
     * schema expects another type (a compiled condition then leaves the reading to cel-java). For tests and tools;
     * an engine decides only on what {@link PayloadValidator} made.
     *
     * @param action the trigger action
     * @param walletId the wallet id, lowercase
     * @param instant the evaluation instant behind {@code context.*}
     * @param sections section name to fields
     */
    public Payload(TriggerAction action, String walletId, Instant instant, Map<String, Map<String, Object>> sections) {
        this.action = Objects.requireNonNull(action, "action");
        this.walletId = walletId;
        this.instant = instant;
        this.sections = Objects.requireNonNull(sections, "sections");
        this.slots = new Object[SLOT_COUNT];
        int mask = 0;
        for (Map.Entry<String, Map<String, Object>> e : sections.entrySet()) {
            Section section = e.getKey() == null ? null : Section.fromWireName(e.getKey()).orElse(null);
            if (section == null || e.getValue() == null) {
                continue;
            }
            mask |= 1 << section.ordinal();
            Map<String, Integer> bySlot = SLOTS.get(section);
            for (Map.Entry<String, Object> f : e.getValue().entrySet()) {
                Integer slot = f.getKey() == null ? null : bySlot.get(f.getKey());
                if (slot != null) {
                    slots[slot] = f.getValue() == null ? NULL_VALUE : f.getValue();
                }
            }
        }
        this.sectionMask = mask;
    }

    /** What {@link PayloadValidator} builds: slots and sections filled from the same checked values. */
    Payload(TriggerAction action, String walletId, Instant instant, Map<String, Map<String, Object>> sections,
            Object[] slots, int sectionMask) {
        this.action = action;
        this.walletId = walletId;
        this.instant = instant;
        this.sections = sections;
        this.slots = slots;
        this.sectionMask = sectionMask;
    }

    /** The trigger action. */
    public TriggerAction action() {
        return action;
    }

    /** The wallet id, lowercase. */
    public String walletId() {
        return walletId;
    }

    /** The evaluation instant behind {@code context.*}. */
    public Instant instant() {
        return instant;
    }

    /** Section name to fields, as CEL reads them. */
    public Map<String, Map<String, Object>> sections() {
        return sections;
    }

    /** The section's fields, as CEL reads them; empty when the payload has no such section. */
    public Optional<Object> section(String name) {
        return Optional.ofNullable(sections.get(name));
    }

    /**
     * The value of the field in slot {@code index} ({@link #slotOf}), or null when the field is absent. A
     * payload built by hand may hold there a value of another type than the schema's, or a marker for a field
     * it maps to null (neither absent nor a CEL value); a payload {@link PayloadValidator} made never does.
     */
    public Object slot(int index) {
        return slots[index];
    }

    /** Whether the payload has the section (every section of its action, for a checked payload). */
    public boolean hasSection(Section section) {
        return (sectionMask & (1 << section.ordinal())) != 0;
    }

    /** The slot of a field of the schema, or -1 when the section has no such field. */
    public static int slotOf(Section section, String field) {
        Integer slot = SLOTS.get(section).get(field);
        return slot == null ? -1 : slot;
    }

    /** The number of slots: the number of fields of the schema, every section together. */
    static int slotCount() {
        return SLOT_COUNT;
    }

    /** A slot and section mask for {@link PayloadValidator}'s use, set as {@code section} holds its field. */
    static int slotOrThrow(Section section, String field) {
        return SLOTS.get(section).get(field);
    }

    /**
     * This payload at another evaluation instant: the same values, {@code context} computed for {@code at}
     * (a checked payload of an action without its own instant, decided again at another time).
     */
    Payload at(Instant at, Map<String, Object> context) {
        if (at.equals(instant)) {
            return this;
        }
        Object[] copy = Arrays.copyOf(slots, slots.length);
        copy[HOUR_SLOT] = context.get("hour");
        copy[DAY_SLOT] = context.get("day_of_week");
        Map<String, Map<String, Object>> withContext = new HashMap<>(sections);
        withContext.put(Section.CONTEXT.wireName(), context);
        return new Payload(action, walletId, at, Collections.unmodifiableMap(withContext), copy, sectionMask);
    }

    /** This payload at another instant with the same {@code context}: every value shared. */
    Payload sameValuesAt(Instant at) {
        return at.equals(instant) ? this : new Payload(action, walletId, at, sections, slots, sectionMask);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Payload p && action == p.action && Objects.equals(walletId, p.walletId)
                && Objects.equals(instant, p.instant) && sections.equals(p.sections);
    }

    @Override
    public int hashCode() {
        return Objects.hash(action, walletId, instant, sections);
    }

    @Override
    public String toString() {
        return "Payload[action=" + action + ", walletId=" + walletId + ", instant=" + instant + ", sections="
                + sections + "]";
    }
}
