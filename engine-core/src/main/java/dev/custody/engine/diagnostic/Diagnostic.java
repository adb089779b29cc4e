package dev.custody.engine.diagnostic;

import dev.custody.engine.text.Printable;
import java.util.Comparator;
import java.util.Objects;

/**
 * One finding about a condition, a policy or a policy file: a value, never an exception.
 *
 * <p>Positions are 1-based. For a condition, {@code line}/{@code column} are inside the condition text
 * and point at the offending token; for a policy, {@code pointer} is the JSON pointer of the offending
 * value (e.g. {@code /rules/3/condition}) and line/column are inside the condition when the pointer
 * names one. A position that does not apply is {@code 0}. Messages follow the project style: one line,
 * lowercase, no final period, user input in backticks; {@code hint} (nullable) says how to fix it.
 *
 * <p>Immutable and thread-safe.
 *
 * @param severity error or warning
 * @param code the stable code
 * @param message one-line message
 * @param hint how to fix it, or null
 * @param pointer JSON pointer of the offending value inside its policy, or {@code ""}
 * @param line 1-based line inside the condition, or 0
 * @param column 1-based column (in characters) inside the condition, or 0
 */
public record Diagnostic(
        Severity severity, DiagnosticCode code, String message, String hint, String pointer, int line, int column) {

    /** Orders diagnostics by pointer, then position, then errors before warnings. */
    public static final Comparator<Diagnostic> BY_LOCATION = Comparator.comparing(Diagnostic::pointer)
            .thenComparingInt(Diagnostic::line)
            .thenComparingInt(Diagnostic::column)
            .thenComparing(Diagnostic::severity);

    public Diagnostic {
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(pointer, "pointer");
        // a message quotes user input (a status, a field name, a YAML key): it stays one line whatever that holds
        message = Printable.of(message);
        hint = hint == null ? null : Printable.of(hint);
    }

    /** An error at a position inside a condition. */
    public static Diagnostic error(DiagnosticCode code, String message, String hint, int line, int column) {
        return new Diagnostic(Severity.ERROR, code, message, hint, "", line, column);
    }

    /** A warning at a position inside a condition. */
    public static Diagnostic warning(DiagnosticCode code, String message, String hint, int line, int column) {
        return new Diagnostic(Severity.WARNING, code, message, hint, "", line, column);
    }

    /** An error about the value at a JSON pointer, with no position inside it. */
    public static Diagnostic at(String pointer, DiagnosticCode code, String message, String hint) {
        return new Diagnostic(Severity.ERROR, code, message, hint, pointer, 0, 0);
    }

    /** This diagnostic with its pointer set (positions inside a condition are kept). */
    public Diagnostic withPointer(String newPointer) {
        return new Diagnostic(severity, code, message, hint, newPointer, line, column);
    }

    /** Whether this is an error. */
    public boolean isError() {
        return severity == Severity.ERROR;
    }
}
