package dev.custody.engine.schema;

import java.util.List;
import java.util.Objects;

/**
 * One condition field: {@code <section>.<name>}, its type, and what a payload may carry in it.
 * Immutable and thread-safe.
 *
 * @param section the section the field belongs to
 * @param name the field name inside its section, e.g. {@code value_usd}
 * @param type the field type
 * @param optional whether a payload may leave the field out (a read of an absent optional field is a
 *     runtime error, so conditions should guard it with {@code has()})
 * @param nonNegative for numeric fields: whether a negative value is a malformed payload (amounts,
 *     USD values, outflows, counts and ages cannot be negative; a negative one would slip under every
 *     {@code >} limit, so the engine refuses it)
 * @param enumValues the allowed values of a string field, or empty when any string is allowed
 * @param description what the field means, from the service spec
 */
public record FieldSpec(
        Section section,
        String name,
        FieldType type,
        boolean optional,
        boolean nonNegative,
        List<String> enumValues,
        String description) {

    public FieldSpec {
        Objects.requireNonNull(section, "section");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        enumValues = List.copyOf(enumValues);
        Objects.requireNonNull(description, "description");
    }

    /** The dotted path used in conditions, e.g. {@code withdrawal.value_usd}. */
    public String path() {
        return section.wireName() + "." + name;
    }
}
