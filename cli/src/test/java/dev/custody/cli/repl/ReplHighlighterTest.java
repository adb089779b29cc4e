package dev.custody.cli.repl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.custody.engine.schema.TriggerAction;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStyle;
import org.junit.jupiter.api.Test;

/** Highlighting of fields and literals, checked character by character. */
class ReplHighlighterTest {
    private TriggerAction action = TriggerAction.WITHDRAWAL_CREATE;
    private final ReplHighlighter highlighter = new ReplHighlighter(() -> action);

    /**
     * The style of every character as a letter: F field, X unknown field, S string, N number, L literal,
     * C command, . default.
     */
    private String styles(String line) {
        AttributedString a = highlighter.highlight(null, line);
        assertEquals(line, a.toString(), "highlighting never changes the text");
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < a.length(); i++) {
            AttributedStyle s = a.styleAt(i);
            out.append(s.equals(ReplHighlighter.FIELD) ? 'F'
                    : s.equals(ReplHighlighter.UNKNOWN_FIELD) ? 'X'
                    : s.equals(ReplHighlighter.STRING) ? 'S'
                    : s.equals(ReplHighlighter.NUMBER) ? 'N'
                    : s.equals(ReplHighlighter.LITERAL) ? 'L'
                    : s.equals(ReplHighlighter.COMMAND) ? 'C'
                    : s.equals(AttributedStyle.DEFAULT) ? '.' : '?');
        }
        return out.toString();
    }

    @Test
    void fieldsAndLiteralsOfACondition() {
        assertEquals("FFFFFFFFFFFFFFFFFFFF...NNNNN....FFFFFFFFFFFFFF....SSSSSSS....LLLLL",
                styles("withdrawal.value_usd > 10000 && principal.role == \"admin\" || false"));
        assertEquals("FFFFFFFFFFFFFFFFFFFFFFFFF....LLLL", styles("withdrawal.is_whitelisted == true"));
        assertEquals("FFFFFFFFFFFFFF............SSS.", styles("principal.role.startsWith('a')"));
        assertEquals("....NNNNNN...NNNN...NNN...NNN", styles("x > 1.5e-3 + 0x1F - 12u + .25"));
    }

    @Test
    void unknownFieldsStandOut() {
        assertEquals("XXXXXXXXXXXXXXXX...N", styles("withdrawal.amout > 1"));
        assertEquals("XXXXXXXXXXXXXXXXXX...N", styles("resource.gas_limit > 1"), "a field of the other action");
        action = TriggerAction.WEB3_CONTRACT_CALL;
        assertEquals("FFFFFFFFFFFFFFFFFF...N", styles("resource.gas_limit > 1"));
        assertEquals("FFFFFFFFFFFFFFFFFFFFF...", styles("resource.decoded_args.to"));
    }

    @Test
    void stringsWithEscapesRawStringsAndUnclosedStrings() {
        assertEquals("SSSSSS....FFFFFFFFFFFFFF", styles("\"a\\\"b\" == principal.role"));
        assertEquals("SSSS....SSSS", styles("r'\\' == '\\\\'"));
        assertEquals("SSSSSSSSSSSSSS", styles("'''it's \"x\"'''"));
        assertEquals("FFFFFFFFFFFFFF....SSSSSSSSS", styles("principal.role == \"admin &&"));
        assertEquals("....SSSSS", styles("x + b\"ab\""));
    }

    @Test
    void commands() {
        assertEquals("CCCC.FFFFFFFFFFFFFFFFFFFF.NNNNN", styles(":set withdrawal.value_usd 12000"));
        assertEquals("CCCC.FFFFFFFFFFFFFF.SSSSSSS", styles(":set principal.role \"admin\""));
        assertEquals("CCCCC................", styles(":load withdrawal.json"));
        assertEquals("..CCCCC", styles("  :show"));
    }

    @Test
    void aFailureShowsTheEntryUnstyled() {
        ReplHighlighter broken = new ReplHighlighter(() -> {
            throw new IllegalStateException("no session");
        });
        AttributedString a = broken.highlight(null, "withdrawal.value_usd > 1");
        assertEquals("withdrawal.value_usd > 1", a.toString());
        assertEquals(AttributedStyle.DEFAULT, a.styleAt(0));
    }

    @Property(tries = 300)
    void neverChangesTheTextNorFails(@ForAll String line) {
        assertEquals(line, highlighter.highlight(null, line).toString());
    }
}
