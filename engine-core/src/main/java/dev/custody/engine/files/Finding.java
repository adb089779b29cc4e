package dev.custody.engine.files;

import dev.custody.engine.diagnostic.Diagnostic;
import java.util.Objects;

/**
 * A diagnostic placed in a file: what lint reports. Immutable and thread-safe.
 *
 * @param file the file path as given
 * @param pointer JSON pointer from the file's root ({@code /rules/3/condition}, {@code /0/rules/3/condition} in an
 *     array file), or {@code ""} for the whole file
 * @param line 1-based line in the file (the offending token for a condition), or 0 when unknown
 * @param column 1-based column in the file, or 0 when unknown
 * @param diagnostic the diagnostic itself (its own line/column are inside the condition, if any)
 */
public record Finding(String file, String pointer, int line, int column, Diagnostic diagnostic) {
    public Finding {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(pointer, "pointer");
        Objects.requireNonNull(diagnostic, "diagnostic");
    }

    /** {@code file:line:column: severity[code] message}, the classic compiler form. */
    public String oneLine() {
        StringBuilder s = new StringBuilder(file);
        if (line > 0) {
            s.append(':').append(line).append(':').append(column);
        }
        s.append(": ").append(diagnostic.severity().wireName()).append('[').append(diagnostic.code().id())
                .append("] ").append(diagnostic.message());
        return s.toString();
    }
}
