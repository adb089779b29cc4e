package dev.custody.engine.text;

import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A JSON text refused for one of Jackson's read limits ({@code StreamReadConstraints}), said in terms of the text:
 * Jackson's own message names its configuration API, which means nothing to whoever wrote the text. Stateless and
 * thread-safe.
 */
public final class JsonLimits {
    /** Jackson's wording: "{what} ({found}) exceeds the maximum allowed ({limit}, from `...`)". */
    private static final Pattern EXCEEDS = Pattern.compile("(.*?) \\(\\d+\\) exceeds the maximum allowed \\((\\d+)\\b.*",
            Pattern.DOTALL);

    private JsonLimits() {}

    /**
     * What is wrong with the text, as a lowercase phrase without position (Jackson gives none for these):
     * "nested deeper than 64 levels", "a number longer than 1000 digits", "a member name longer than 50000
     * characters", "a string longer than 20000000 characters"; for a limit not named here, Jackson's message
     * without its reference to the configuration API.
     */
    public static String describe(StreamConstraintsException e) {
        String m = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        Matcher x = EXCEEDS.matcher(m);
        if (x.matches()) {
            String what = x.group(1).toLowerCase(Locale.ROOT);
            String limit = x.group(2);
            if (what.contains("nesting depth")) {
                return "nested deeper than " + limit + " levels";
            } else if (what.startsWith("number")) {
                return "a number longer than " + limit + " digits";
            } else if (what.startsWith("name")) {
                return "a member name longer than " + limit + " characters";
            } else if (what.startsWith("string")) {
                return "a string longer than " + limit + " characters";
            }
        }
        m = m.lines().findFirst().orElse("").replaceAll(",\\s*from `[^`]*`", "").strip();
        return m.isEmpty() ? "over one of the JSON reader's limits" : Character.toLowerCase(m.charAt(0)) + m.substring(1);
    }
}
