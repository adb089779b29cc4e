package dev.custody.client;

/** Line helpers for the one-line messages and debug lines the client emits. Stateless. */
final class Text {
    private Text() {
    }

    /** {@code s} on one line: every line break, with the blanks around it, becomes one space. */
    static String oneLine(String s) {
        return s == null ? "" : s.replaceAll("\\s*[\\r\\n]+\\s*", " ");
    }

    /** The first line of {@code s} ({@code ""} for {@code null}). */
    static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
