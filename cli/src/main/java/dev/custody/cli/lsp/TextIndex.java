package dev.custody.cli.lsp;

import java.util.ArrayList;
import java.util.List;
import org.eclipse.lsp4j.Position;
import org.eclipse.lsp4j.Range;

/**
 * Line starts of a text, to turn character offsets into LSP positions and back. LSP positions are 0-based
 * lines and UTF-16 code units, which are Java {@code char}s, so a column is an offset inside the line.
 * Lines end at {@code \n} (a {@code \r} before it stays part of its line, as lint's columns count it).
 * Immutable and thread-safe.
 */
final class TextIndex {
    private final String text;
    private final int[] starts;

    TextIndex(String text) {
        this.text = text;
        List<Integer> s = new ArrayList<>();
        s.add(0);
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                s.add(i + 1);
            }
        }
        starts = s.stream().mapToInt(Integer::intValue).toArray();
    }

    String text() {
        return text;
    }

    /** The offset of an LSP position, clamped to the text (a column past a line's end is its end). */
    int offset(Position p) {
        int line = Math.max(0, p.getLine());
        if (line >= starts.length) {
            return text.length();
        }
        int end = lineEnd(line);
        return Math.min(starts[line] + Math.max(0, p.getCharacter()), end);
    }

    /** The offset of a 1-based line and column, as lint reports them. */
    int offset(int line1, int column1) {
        return offset(new Position(line1 - 1, column1 - 1));
    }

    /** The LSP position of an offset. */
    Position position(int offset) {
        int lo = 0;
        int hi = starts.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (starts[mid] <= offset) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return new Position(lo, offset - starts[lo]);
    }

    Range range(int start, int end) {
        return new Range(position(start), position(end));
    }

    /** The offset just past the last character of a 0-based line, before its {@code \n}. */
    int lineEnd(int line) {
        return line + 1 < starts.length ? starts[line + 1] - 1 : text.length();
    }

    /** The offset where a 0-based line starts. */
    int lineStart(int line) {
        return starts[Math.min(line, starts.length - 1)];
    }

    int lineCount() {
        return starts.length;
    }

    /** A 0-based line's text, without its {@code \n}. */
    String line(int line) {
        return text.substring(lineStart(line), lineEnd(line));
    }
}
