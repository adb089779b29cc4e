package dev.custody.velocity.jdbc;

/**
 * What text the ledger holds as an id, a key or a network: at most {@value #MAX} characters, no NUL (PostgreSQL's text
 * refuses it), no lone surrogate (it would be stored as {@code ?}, so two ids could become one). Checked before a
 * transaction, so one bad operation is refused alone instead of failing the whole batch it shares with others.
 */
final class LedgerText {
    /** The longest id the ledger holds. */
    static final int MAX = 512;

    private LedgerText() {}

    /** Why the text cannot be held, as one line; or null. */
    static String problem(String text) {
        if (text.length() > MAX) {
            return "an id of " + text.length() + " characters is longer than the ledger holds (" + MAX + ")";
        }
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (ch == 0) {
                return "an id holds a NUL character";
            }
            if (Character.isHighSurrogate(ch) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(ch)) {
                return "an id holds a lone UTF-16 surrogate";
            }
        }
        return null;
    }
}
