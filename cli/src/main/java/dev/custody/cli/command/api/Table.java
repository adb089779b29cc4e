package dev.custody.cli.command.api;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A plain-text table: a header row and left-aligned columns separated by two spaces; {@code null}
 * cells print as {@code -}. Mutable, not thread-safe; build, print, discard.
 */
final class Table {
    private final List<String[]> rows = new ArrayList<>();
    private final int width;

    Table(String... header) {
        this.width = header.length;
        rows.add(header);
    }

    Table row(Object... cells) {
        if (cells.length != width) {
            throw new IllegalArgumentException("row has " + cells.length + " cells, table has " + width);
        }
        rows.add(Arrays.stream(cells).map(c -> c == null ? "-" : c.toString()).toArray(String[]::new));
        return this;
    }

    void print(PrintWriter out) {
        int[] widths = new int[width];
        for (String[] row : rows) {
            for (int i = 0; i < width; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < width; i++) {
                line.append(row[i]);
                if (i < width - 1) {
                    line.append(" ".repeat(widths[i] - row[i].length() + 2));
                }
            }
            out.println(line.toString().stripTrailing());
        }
    }
}
