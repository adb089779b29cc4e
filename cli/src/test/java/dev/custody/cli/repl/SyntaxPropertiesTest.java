package dev.custody.cli.repl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** Input of any shape never breaks the parsing helpers that run on every key press. */
class SyntaxPropertiesTest {

    @Property(tries = 500)
    void completenessCheckNeverFails(@ForAll String entry) {
        LineSyntax.missing(entry);
        LineSyntax.missing(":set f " + entry);
    }

    @Property(tries = 500)
    void anyLineSplitsAroundAnyCursor(@ForAll String line, @ForAll @IntRange(min = 0, max = 200) int cursor) {
        ReplLine parsed = ReplLine.of(line, cursor);
        int at = Math.min(cursor, line.length());
        assertEquals(at, parsed.cursor());
        assertTrue(parsed.wordCursor() <= parsed.word().length());
        assertTrue(parsed.words().contains(parsed.word()));
    }

    @Property(tries = 200)
    void closingWhatIsMissingCompletesAConditionWithoutStrings(@ForAll("brackets") String entry) {
        String missing = LineSyntax.missing(entry).orElse("");
        assertEquals("", LineSyntax.missing(entry + missing).orElse(""));
    }

    @net.jqwik.api.Provide
    net.jqwik.api.Arbitrary<String> brackets() {
        return net.jqwik.api.Arbitraries.strings().withChars("([{x 1".toCharArray()).ofMaxLength(30);
    }
}
