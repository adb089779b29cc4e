package dev.custody.engine.files;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A JSON or YAML value with where it stands in its file: 1-based line and column of its first character
 * (for a string, the opening quote or block indicator). Immutable and thread-safe.
 */
public sealed interface SourceNode permits SourceNode.ObjectNode, SourceNode.ArrayNode, SourceNode.ScalarNode {

    /** 1-based line of the value's first character. */
    int line();

    /** 1-based column of the value's first character. */
    int column();

    /** A short name of the JSON type for messages: "an object", "a string", … */
    String typeName();

    /**
     * An object; keys in file order.
     *
     * @param fields values by key
     * @param keys each key's own node (a string scalar), for positions of unknown properties
     */
    record ObjectNode(Map<String, SourceNode> fields, Map<String, ScalarNode> keys, int line, int column)
            implements SourceNode {
        public ObjectNode {
            fields = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(fields));
            keys = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(keys));
        }

        @Override
        public String typeName() {
            return "an object";
        }
    }

    /** An array. */
    record ArrayNode(List<SourceNode> items, int line, int column) implements SourceNode {
        public ArrayNode {
            items = List.copyOf(items);
        }

        @Override
        public String typeName() {
            return "an array";
        }
    }

    /**
     * A string, number, boolean or null.
     *
     * @param value a {@code String}, {@code Long}, {@code java.math.BigInteger}, {@code Double},
     *     {@code java.math.BigDecimal}, {@code Boolean}, or null
     * @param style how the scalar is written, which decides how its characters map back to the file
     * @param start character offset in the file text where the scalar's source begins
     * @param end character offset just past the scalar's source
     */
    record ScalarNode(Object value, Style style, int start, int end, int line, int column) implements SourceNode {
        public ScalarNode {
            Objects.requireNonNull(style, "style");
        }

        @Override
        public String typeName() {
            if (value == null) {
                return "null";
            }
            if (value instanceof String) {
                return "a string";
            }
            if (value instanceof Boolean) {
                return "a boolean";
            }
            return "a number";
        }
    }

    /** How a scalar is written. */
    enum Style {
        /** JSON string, or YAML double-quoted: backslash escapes. */
        DOUBLE_QUOTED,
        /** YAML single-quoted: {@code ''} is a quote. */
        SINGLE_QUOTED,
        /** YAML plain (unquoted). */
        PLAIN,
        /** YAML literal block ({@code |}). */
        LITERAL,
        /** YAML folded block ({@code >}). */
        FOLDED,
        /** A JSON number, boolean or null. */
        JSON_LITERAL
    }
}
