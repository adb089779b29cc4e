package dev.custody.engine.schema;

/**
 * The type of a condition field, as named by {@code GET /policy/schema} ({@code string}, {@code number},
 * {@code integer}, {@code boolean}, {@code map}). Immutable and thread-safe.
 */
public enum FieldType {
    /** A UTF-8 string; in CEL, {@code string}. */
    STRING("string"),
    /** A finite floating-point number; in CEL, {@code double}. */
    NUMBER("number"),
    /** A whole number in the signed 64-bit range; in CEL, {@code int}. */
    INTEGER("integer"),
    /** {@code true} or {@code false}; in CEL, {@code bool}. */
    BOOLEAN("boolean"),
    /** A string-keyed map of dynamic values; in CEL, {@code map(string, dyn)}. */
    MAP("map");

    private final String wireName;

    FieldType(String wireName) {
        this.wireName = wireName;
    }

    /** The name used in the JSON schema and in messages, e.g. {@code "number"}. */
    public String wireName() {
        return wireName;
    }
}
