package dev.custody.engine.compile;

/**
 * Maps code-point offsets of a condition to 1-based line and column (columns count code points, as
 * cel-java does). Immutable and thread-safe.
 */
final class SourcePositions {
    private final int[] codePoints;

    SourcePositions(String source) {
        this.codePoints = source.codePoints().toArray();
    }

    int length() {
        return codePoints.length;
    }

    int codePointAt(int offset) {
        return offset >= 0 && offset < codePoints.length ? codePoints[offset] : -1;
    }

    /** {line, column}, both 1-based, of a code-point offset (clamped to the text). */
    int[] lineColumn(int offset) {
        int o = Math.max(0, Math.min(offset, codePoints.length));
        int line = 1;
        int lineStart = 0;
        for (int i = 0; i < o; i++) {
            if (codePoints[i] == '\n') {
                line++;
                lineStart = i + 1;
            }
        }
        return new int[] {line, o - lineStart + 1};
    }

    /** The code-point offset of a 1-based line and 0-based column, as cel-java reports them. */
    int offset(int line, int column0) {
        int l = 1;
        int i = 0;
        while (l < line && i < codePoints.length) {
            if (codePoints[i++] == '\n') {
                l++;
            }
        }
        return Math.min(i + Math.max(0, column0), codePoints.length);
    }

    /**
     * From a select's recorded offset (cel-java records the dot), the offset of the field name after it:
     * the offending token of an unknown field or an unguarded read.
     */
    int fieldNameAfterDot(int offset) {
        int i = offset;
        if (codePointAt(i) == '.') {
            i++;
            while (i < codePoints.length && Character.isWhitespace(codePoints[i])) {
                i++;
            }
        }
        return i;
    }
}
