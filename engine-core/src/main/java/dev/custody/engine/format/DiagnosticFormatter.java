package dev.custody.engine.format;

import dev.custody.engine.diagnostic.Diagnostic;
import java.util.List;

/**
 * Renders diagnostics for people: the message, then the source line with a caret under the column,
 * then the hint. Stateless and thread-safe.
 *
 * <pre>
 * error[unknown_field] 1:12: unknown field `withdrawal.amout`
 *  | withdrawal.amout &gt; 1
 *  | ...........^
 *  = hint: did you mean `withdrawal.amount`?
 * </pre>
 */
public final class DiagnosticFormatter {
    private DiagnosticFormatter() {}

    /** One diagnostic against the condition text it refers to (the caret is left out when it has no position). */
    public static String render(Diagnostic d, String source) {
        StringBuilder out = new StringBuilder();
        out.append(d.severity().wireName()).append('[').append(d.code().id()).append(']');
        if (d.line() > 0) {
            out.append(' ').append(d.line()).append(':').append(d.column());
        }
        out.append(": ").append(d.message()).append('\n');
        if (d.line() > 0 && source != null) {
            List<String> lines = source.lines().toList();
            if (d.line() <= lines.size()) {
                String text = lines.get(d.line() - 1);
                out.append(" | ").append(text).append('\n');
                out.append(" | ");
                int col = Math.max(1, Math.min(d.column(), text.length() + 1));
                for (int i = 1; i < col; i++) {
                    out.append(text.charAt(i - 1) == '\t' ? '\t' : '.');
                }
                out.append("^\n");
            }
        }
        if (d.hint() != null) {
            out.append(" = hint: ").append(d.hint()).append('\n');
        }
        return out.toString();
    }

    /** The plain one-line form: {@code 1:12: error[unknown_field] unknown field `withdrawal.amout`}. */
    public static String oneLine(Diagnostic d) {
        StringBuilder out = new StringBuilder();
        if (!d.pointer().isEmpty()) {
            out.append(d.pointer()).append(' ');
        }
        if (d.line() > 0) {
            out.append(d.line()).append(':').append(d.column()).append(": ");
        }
        out.append(d.severity().wireName()).append('[').append(d.code().id()).append("] ").append(d.message());
        if (d.hint() != null) {
            out.append(" (hint: ").append(d.hint()).append(')');
        }
        return out.toString();
    }
}
