package dev.custody.cli.repl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.custody.engine.text.Suggestions;
import dev.custody.engine.schema.FieldSpec;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Map;

/**
 * Reads the VALUE of {@code :set FIELD VALUE} as the field's schema type: numbers, integers, booleans,
 * strings (quotes optional) and, for {@code resource.decoded_args}, a JSON object.
 *
 * <p>A value that does not fit is an error naming the field, its type and the value as typed, e.g.
 * {@code `withdrawal.value_usd` is a number; `abc` is not}. Stateless and thread-safe.
 */
final class FieldValues {
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private FieldValues() {}

    /**
     * The typed value of {@code text} for {@code field}.
     *
     * @throws CommandError when the text is not a value of the field's type
     */
    static Object parse(FieldSpec field, String text) {
        String path = field.path();
        return switch (field.type()) {
            case NUMBER -> number(field, text);
            case INTEGER -> integer(field, text);
            case BOOLEAN -> switch (text) {
                case "true" -> Boolean.TRUE;
                case "false" -> Boolean.FALSE;
                default -> throw new CommandError("`" + path + "` is a boolean (true or false); `" + text + "` is not");
            };
            case STRING -> enumChecked(field, string(path, text));
            case MAP -> object(path, text);
        };
    }

    /** A string value: the text as typed, or the inside of {@code "…"} (JSON escapes) or {@code '…'}. */
    static String string(String path, String text) {
        if (text.length() >= 2 && text.startsWith("\"") && text.endsWith("\"")) {
            try {
                return JSON.readValue(text, String.class);
            } catch (JsonProcessingException e) {
                throw new CommandError("`" + path + "` is a string; `" + text + "` is not a valid quoted string");
            }
        }
        if (text.length() >= 2 && text.startsWith("'") && text.endsWith("'")) {
            return text.substring(1, text.length() - 1);
        }
        return text;
    }

    private static String enumChecked(FieldSpec field, String value) {
        if (field.enumValues().isEmpty() || field.enumValues().contains(value)) {
            return value;
        }
        String hint = Suggestions.closest(value, field.enumValues()).map(s -> " (did you mean `" + s + "`?)").orElse("");
        throw new CommandError("`" + field.path() + "` is one of " + String.join(", ", field.enumValues()) + "; `"
                + value + "` is not" + hint);
    }

    private static double number(FieldSpec field, String text) {
        BigDecimal d;
        try {
            d = new BigDecimal(text);
        } catch (NumberFormatException e) {
            throw new CommandError("`" + field.path() + "` is a number; `" + text + "` is not");
        }
        double value = d.doubleValue();
        if (!Double.isFinite(value)) {
            throw new CommandError("`" + field.path() + "` is a number; `" + text + "` is out of range");
        }
        nonNegative(field, d.signum(), text);
        return value;
    }

    private static long integer(FieldSpec field, String text) {
        BigInteger i;
        try {
            i = new BigInteger(text);
        } catch (NumberFormatException e) {
            throw new CommandError("`" + field.path() + "` is an integer; `" + text + "` is not");
        }
        if (i.bitLength() > 63) {
            throw new CommandError("`" + field.path() + "` is an integer; `" + text + "` is out of range");
        }
        nonNegative(field, i.signum(), text);
        return i.longValue();
    }

    private static void nonNegative(FieldSpec field, int signum, String text) {
        if (field.nonNegative() && signum < 0) {
            throw new CommandError("`" + field.path() + "` cannot be negative; `" + text + "` is");
        }
    }

    private static Map<?, ?> object(String path, String text) {
        Object tree;
        try {
            tree = JSON.readValue(text, Object.class);
        } catch (JsonProcessingException e) {
            throw new CommandError("`" + path + "` is a JSON object such as {\"to\": \"0x…\"}; `" + clip(text)
                    + "` is not valid JSON");
        }
        if (!(tree instanceof Map<?, ?> map)) {
            throw new CommandError("`" + path + "` is a JSON object such as {\"to\": \"0x…\"}; `" + clip(text) + "` is not");
        }
        return map;
    }

    private static String clip(String s) {
        String one = s.replace('\n', ' ');
        return one.length() <= 60 ? one : one.substring(0, 57) + "...";
    }
}
