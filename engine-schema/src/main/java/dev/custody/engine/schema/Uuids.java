package dev.custody.engine.schema;

/**
 * The one definition of a UUID in the schema: 36 characters, hex digits in groups of 8-4-4-4-12 separated by
 * hyphens, either case (the spec's ids are UUIDs; wallet, workspace and approval-group ids alike). Written by hand
 * rather than with a regex because every evaluation checks a wallet id. Stateless and thread-safe.
 */
public final class Uuids {
    private Uuids() {}

    /** Whether {@code s} is a UUID in its canonical textual form (either case); false for null. */
    public static boolean isUuid(String s) {
        return s != null && s.length() == 36 && s.charAt(8) == '-' && s.charAt(13) == '-' && s.charAt(18) == '-'
                && s.charAt(23) == '-' && hex(s, 0, 8) && hex(s, 9, 13) && hex(s, 14, 18) && hex(s, 19, 23)
                && hex(s, 24, 36);
    }

    /** Whether an ASCII character is a hexadecimal digit, either case. */
    private static final boolean[] HEX = new boolean[128];

    static {
        for (char c = '0'; c <= '9'; c++) {
            HEX[c] = true;
        }
        for (char c = 'a'; c <= 'f'; c++) {
            HEX[c] = true;
            HEX[Character.toUpperCase(c)] = true;
        }
    }

    /** Whether every character of {@code s} in {@code [from, to)} is a hexadecimal digit: one lookup each. */
    private static boolean hex(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c >= 128 || !HEX[c]) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code s.toLowerCase(Locale.ROOT)}, but {@code s} itself, neither copied nor looked up in case tables, when
     * it is lowercase ASCII already (as ids almost always are): cache and ledger keys are taken from every action.
     */
    public static String lowerCase(String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x80 || (c >= 'A' && c <= 'Z')) {
                return s.toLowerCase(java.util.Locale.ROOT);
            }
        }
        return s;
    }
}
