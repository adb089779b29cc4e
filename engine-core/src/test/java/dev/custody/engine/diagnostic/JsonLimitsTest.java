package dev.custody.engine.diagnostic;

import dev.custody.engine.text.JsonLimits;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import org.junit.jupiter.api.Test;

/** Each of Jackson's read limits, hit by a real text, said in the text's terms. */
class JsonLimitsTest {
    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).maxStringLength(100).build())
            .build();

    private static String refused(String text) {
        StreamConstraintsException e = assertThrows(StreamConstraintsException.class, () -> {
            try (JsonParser p = JSON.createParser(text)) {
                while (p.nextToken() != null) {
                    if (p.currentToken().isNumeric()) {
                        p.getNumberValue();
                    } else if (p.currentToken().isScalarValue()) {
                        p.getText();
                    }
                }
            }
        });
        return JsonLimits.describe(e);
    }

    @Test
    void eachLimitIsSaidInTheTextsTerms() {
        assertEquals("nested deeper than 64 levels", refused("[".repeat(70) + "]".repeat(70)));
        assertEquals("a number longer than 1000 digits", refused("[1." + "0".repeat(1200) + "]"));
        assertEquals("a number longer than 1000 digits", refused("[1" + "0".repeat(1200) + "]"));
        assertEquals("a member name longer than 50000 characters", refused("{\"" + "k".repeat(60_000) + "\": 1}"));
        assertEquals("a string longer than 100 characters", refused("[\"" + "s".repeat(5_000) + "\"]"));
    }

    @Test
    void aLimitNotNamedHereKeepsJacksonsWordsWithoutItsApi() {
        assertEquals("token count (12) exceeds the maximum allowed (10)", JsonLimits.describe(new StreamConstraintsException(
                "Token count (12) exceeds the maximum allowed (10, from `StreamReadConstraints.getMaxTokenCount()`)")));
        assertEquals("something else", JsonLimits.describe(new StreamConstraintsException("Something else")));
        assertEquals("over one of the JSON reader's limits", JsonLimits.describe(new StreamConstraintsException(null)));
    }
}
