package dev.custody.engine.text;

/**
 * User input made safe to quote in a one-line message: what {@code Diagnostic} does to every message and hint,
 * and what the action reader does to the text it quotes. Stateless and thread-safe.
 */
public final class Printable {
    private Printable() {}

    /**
     * The text with every character that would break a line or hide itself (C0 and C1 controls, DEL, U+2028,
     * U+2029) written as an escape ({@code \n}, {@code \r}, {@code \t}, else {@code \}{@code uXXXX}): for user input
     * quoted in a message, which must stay one line. Text without such characters is returned as it is.
     */
    public static String of(String text) {
        int i = 0;
        while (i < text.length() && !hidden(text.charAt(i))) {
            i++;
        }
        if (i == text.length()) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length() + 8).append(text, 0, i);
        for (; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!hidden(c)) {
                out.append(c);
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c == '\r') {
                out.append("\\r");
            } else if (c == '\t') {
                out.append("\\t");
            } else {
                out.append(String.format("\\u%04x", (int) c));
            }
        }
        return out.toString();
    }

    private static boolean hidden(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029';
    }
}
