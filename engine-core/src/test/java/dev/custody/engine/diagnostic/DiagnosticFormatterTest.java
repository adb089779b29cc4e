package dev.custody.engine.diagnostic;

import dev.custody.engine.format.DiagnosticFormatter;
import dev.custody.engine.text.Printable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class DiagnosticFormatterTest {

    @Test
    void printableEscapesWhatWouldBreakOrHideALine() {
        assertEquals("a\\nb\\r\\tc\\u0000\\u007f\\u0085\\u2028\\u2029d", Printable.of(
                "a\nb\r\tc\u0000\u007f\u0085\u2028\u2029d"));
        String plain = "unknown status `héllo 😀`";
        assertSame(plain, Printable.of(plain), "text without controls is returned as it is");
    }

    /** Found by PolicyDocumentFuzz's kind of input: a YAML value with a line break quoted in a diagnostic. */
    @Test
    void aDiagnosticMessageAndHintAreOneLine() {
        Diagnostic d = Diagnostic.at("/status", DiagnosticCode.INVALID_STATUS, "unknown status `act\nive`", "not\rthis");
        assertEquals("unknown status `act\\nive`", d.message());
        assertEquals("not\\rthis", d.hint());
        assertEquals("/status error[invalid_status] unknown status `act\\nive` (hint: not\\rthis)",
                DiagnosticFormatter.oneLine(d));
    }
}
