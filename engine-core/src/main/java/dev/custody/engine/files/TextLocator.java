package dev.custody.engine.files;

/**
 * Maps a position inside a string value back to the file: through JSON and YAML escapes, YAML quotes,
 * line folding and block scalars, so that a diagnostic at column 12 of a condition lands on the offending
 * token in the file. Immutable and thread-safe.
 *
 * <p>How: the decoded characters are matched, in order, with the scalar's source characters. Escapes are
 * decoded explicitly (a {@code \n} in a JSON string is one character of the condition); everything
 * else in the source that has no counterpart (quotes, block headers, indentation, folded line breaks) is
 * skipped.
 */
public final class TextLocator {
    private final String text;
    private final LineIndex index;

    /** A locator over a whole file's text. */
    public TextLocator(String text) {
        this.text = text;
        this.index = new LineIndex(text);
    }

    /** The file's text. */
    public String text() {
        return text;
    }

    /**
     * The 1-based file {line, column} of the character at {@code line}:{@code column} (1-based, counting
     * code points) inside the string value of {@code scalar}. Falls back to the scalar's own position when
     * the mapping cannot be followed.
     */
    public int[] locate(SourceNode.ScalarNode scalar, int line, int column) {
        if (!(scalar.value() instanceof String value) || line < 1 || column < 1) {
            return new int[] {scalar.line(), scalar.column()};
        }
        int target = charIndex(value, line, column);
        int raw = rawOffset(scalar, value, target);
        if (raw < 0) {
            return new int[] {scalar.line(), scalar.column()};
        }
        return index.position(raw);
    }

    private static int charIndex(String value, int line, int column) {
        int l = 1;
        int i = 0;
        while (l < line && i < value.length()) {
            if (value.charAt(i++) == '\n') {
                l++;
            }
        }
        int cps = 1;
        while (cps < column && i < value.length()) {
            i += Character.charCount(value.codePointAt(i));
            cps++;
        }
        return i;
    }

    private int rawOffset(SourceNode.ScalarNode scalar, String value, int target) {
        int j = scalar.start();
        int end = Math.min(Math.max(scalar.end(), scalar.start()), text.length());
        switch (scalar.style()) {
            case DOUBLE_QUOTED, SINGLE_QUOTED -> {
                if (j < end && (text.charAt(j) == '"' || text.charAt(j) == '\'')) {
                    j++;
                }
            }
            case LITERAL, FOLDED -> {
                while (j < end && text.charAt(j) != '\n') {
                    j++;
                }
            }
            default -> {
            }
        }
        boolean doubleQuoted = scalar.style() == SourceNode.Style.DOUBLE_QUOTED;
        boolean singleQuoted = scalar.style() == SourceNode.Style.SINGLE_QUOTED;
        for (int i = 0; i < value.length() && j < end; i++) {
            char d = value.charAt(i);
            if (doubleQuoted && text.charAt(j) == '\\') {
                int len = escapeLength(j, end);
                if (len < 0) {
                    // an escaped line break: nothing decoded; skip it and the next line's indentation
                    j = skipLineContinuation(j, end);
                    i--;
                    continue;
                }
                if (i == target) {
                    return j;
                }
                j += len;
                continue;
            }
            if (singleQuoted && d == '\'' && j + 1 < end && text.charAt(j) == '\'' && text.charAt(j + 1) == '\'') {
                if (i == target) {
                    return j;
                }
                j += 2;
                continue;
            }
            int k = j;
            while (k < end && text.charAt(k) != d && !(d == ' ' && text.charAt(k) == '\n')) {
                k++;
            }
            if (k >= end) {
                return -1;
            }
            if (i == target) {
                return k;
            }
            j = k + 1;
        }
        return j <= end ? Math.min(j, text.length()) : -1;
    }

    /** Source length of the escape at {@code j}, or -1 for an escaped line break. */
    private int escapeLength(int j, int end) {
        if (j + 1 >= end) {
            return 1;
        }
        char c = text.charAt(j + 1);
        return switch (c) {
            case 'u' -> 6;
            case 'x' -> 4;
            case 'U' -> 10;
            case '\n', '\r' -> -1;
            default -> 2;
        };
    }

    private int skipLineContinuation(int j, int end) {
        int k = j + 1;
        while (k < end && (text.charAt(k) == '\n' || text.charAt(k) == '\r')) {
            k++;
        }
        while (k < end && (text.charAt(k) == ' ' || text.charAt(k) == '\t')) {
            k++;
        }
        return k;
    }
}
