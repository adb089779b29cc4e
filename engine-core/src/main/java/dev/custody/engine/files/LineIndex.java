package dev.custody.engine.files;

import java.util.ArrayList;
import java.util.List;

/** Line starts of a text, to turn (line, column) into character offsets and back. Immutable. */
final class LineIndex {
    private final int[] starts;
    private final int length;

    LineIndex(String text) {
        List<Integer> s = new ArrayList<>();
        s.add(0);
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                s.add(i + 1);
            }
        }
        starts = s.stream().mapToInt(Integer::intValue).toArray();
        length = text.length();
    }

    /** Offset of a 0-based line and column. */
    int offset(int line0, int column0) {
        if (line0 >= starts.length) {
            return length;
        }
        return Math.min(starts[line0] + column0, length);
    }

    /** {line, column}, 1-based, of an offset. */
    int[] position(int offset) {
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
        return new int[] {lo + 1, offset - starts[lo] + 1};
    }
}
