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
        if (s == null || s.length() != 36) {
            return false;
        }
        for (int i = 0; i < 36; i++) {
            char c = s.charAt(i);
            boolean ok = i == 8 || i == 13 || i == 18 || i == 23
                    ? c == '-'
                    : (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
            if (!ok) {
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
