package dev.custody.cli.repl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** When an entry is complete, and how command arguments split. */
class LineSyntaxTest {

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', nullValues = "NONE", value = {
        "withdrawal.value_usd > 1                        | NONE",
        "has(principal.user_email                        | )",
        "[1, 2].exists(x, x > (1                         | ))",
        "{'a': [1                                        | ]}",
        "principal.role == \"adm                          | \"",
        "principal.role == 'adm                          | '",
        "principal.role == 'it''s'                       | NONE",
        "principal.role == \"a\\\"b\"                      | NONE",
        "principal.role == \"a\\\"b                        | \"",
        "r'\\' == '\\\\'                                   | NONE",
        "'''multi                                         | '''",
        "size(\"\"\"a \"quoted\" word\"\"\") > 1                | NONE",
        "(true // a comment with an open ( and a quote '  | )",
        "true) && (                                      | NONE",
        "(]                                              | NONE",
        ":load it's.json                                 | NONE",
        ":policies (                                     | NONE",
        ":set resource.decoded_args {\"to\": [1           | ]}",
        ":set resource.decoded_args {\"a\": \"}\"}          | NONE",
        ":set principal.user_email \"ops@                 | \"",
        ":set principal.user_email 'ops@                 | '",
        ":set principal.user_email '                     | '",
        ":set principal.user_email o'brien@example.com   | NONE",
        ":set withdrawal.value_usd (                     | NONE",
    })
    void missingClosers(String entry, String missing) {
        assertEquals(Optional.ofNullable(missing), LineSyntax.missing(entry.strip()));
    }

    @Test
    void anEntryCompletedOnALaterLineIsComplete() {
        assertEquals(Optional.of(")"), LineSyntax.missing("(withdrawal.value_usd > 1 &&"));
        assertEquals(Optional.empty(), LineSyntax.missing("(withdrawal.value_usd > 1 &&\n  withdrawal.amount > 2)"));
        assertEquals(Optional.of(")"), LineSyntax.missing("(true // )\n"));
    }

    @Test
    void wordsSplitOnWhitespaceAndKeepQuotedSpaces() {
        List<LineSyntax.Word> words = LineSyntax.words(":policies  a.yaml \"my dir/b.yaml\" 'c d'");
        assertEquals(List.of(":policies", "a.yaml", "my dir/b.yaml", "c d"),
                words.stream().map(LineSyntax.Word::text).toList());
        assertEquals(11, words.get(1).start());
        assertEquals(17, words.get(1).end());
        assertEquals(List.of("x\"y"), LineSyntax.words("\"x\\\"y\"").stream().map(LineSyntax.Word::text).toList());
    }
}
