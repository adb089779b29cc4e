package dev.custody.cli;

import dev.custody.engine.text.Suggestions;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.TriggerAction;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Option value converters shared by the commands; their messages follow the error style. */
public final class Converters {
    private Converters() {}

    /** {@code --action withdrawal.create|web3.contract_call}, with a "did you mean". */
    public static final class ActionConverter implements ITypeConverter<TriggerAction> {
        @Override
        public TriggerAction convert(String value) {
            return TriggerAction.fromWireName(value).orElseThrow(() -> new TypeConversionException(
                    "unknown action `" + value + "`" + didYouMean(value, actionNames()) + "; actions: "
                            + String.join(", ", actionNames())));
        }
    }

    /** {@code --effect ALLOW|DENY}. */
    public static final class EffectConverter implements ITypeConverter<Effect> {
        @Override
        public Effect convert(String value) {
            return Effect.fromWireName(value).orElseThrow(() -> new TypeConversionException(
                    "unknown effect `" + value + "`" + didYouMean(value, List.of("ALLOW", "DENY")) + "; effects: ALLOW, DENY"));
        }
    }

    /** Completion candidates and help text for {@code --action}. */
    public static final class ActionNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return actionNames().iterator();
        }
    }

    /** Completion candidates for {@code --effect}. */
    public static final class EffectNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return List.of("ALLOW", "DENY").iterator();
        }
    }

    /** {@code 500ms}, {@code 2s}, {@code 1.5s}, {@code 1m}, or ISO-8601 ({@code PT2S}); must be positive. */
    public static final class DurationConverter implements ITypeConverter<Duration> {
        private static final Pattern SIMPLE = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");

        @Override
        public Duration convert(String value) {
            Duration d;
            Matcher m = SIMPLE.matcher(value.trim());
            if (m.matches()) {
                double n = Double.parseDouble(m.group(1));
                long unitNanos = switch (m.group(2)) {
                    case "ms" -> 1_000_000L;
                    case "s" -> 1_000_000_000L;
                    case "h" -> 3_600_000_000_000L;
                    default -> 60_000_000_000L;
                };
                d = Duration.ofNanos(Math.round(n * unitNanos));
            } else {
                try {
                    d = Duration.parse(value.trim());
                } catch (DateTimeParseException e) {
                    throw new TypeConversionException("`" + value + "` is not a duration such as `500ms`, `2s` or `1m`");
                }
            }
            if (d.isZero() || d.isNegative()) {
                throw new TypeConversionException("duration `" + value + "` must be positive");
            }
            return d;
        }
    }

    /** A positive whole number of cost units, such as {@code 1000000} or {@code 1_000_000}. */
    public static final class CostLimitConverter implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            long n;
            try {
                n = Long.parseLong(value.trim().replace("_", ""));
            } catch (NumberFormatException e) {
                throw new TypeConversionException("`" + value + "` is not a whole number of cost units such as `1000000`");
            }
            if (n < 1) {
                throw new TypeConversionException("cost limit `" + value + "` must be positive");
            }
            return n;
        }
    }

    /** An ISO-8601 instant such as {@code 2026-11-02T14:05:00Z}. */
    public static final class InstantConverter implements ITypeConverter<Instant> {
        @Override
        public Instant convert(String value) {
            try {
                return Instant.parse(value);
            } catch (DateTimeParseException e) {
                throw new TypeConversionException("`" + value + "` is not an ISO-8601 instant such as `2026-11-02T14:05:00Z`");
            }
        }
    }

    static List<String> actionNames() {
        List<String> names = new ArrayList<>();
        for (TriggerAction a : TriggerAction.values()) {
            names.add(a.wireName());
        }
        return names;
    }

    private static String didYouMean(String value, List<String> candidates) {
        return Suggestions.closest(value, candidates).map(s -> " (did you mean `" + s + "`?)").orElse("");
    }
}
