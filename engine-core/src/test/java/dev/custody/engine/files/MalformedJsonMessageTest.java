package dev.custody.engine.files;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.custody.engine.check.ActionReader;
import org.junit.jupiter.api.Test;

/** A truncated JSON value is one plain line, without Jackson's "(start marker at [Source: …])" tail. */
class MalformedJsonMessageTest {

    @Test
    void aTruncatedPolicyFileDoesNotQuoteTheFile() {
        DocumentException e = org.junit.jupiter.api.Assertions.assertThrows(DocumentException.class,
                () -> DocumentParser.parseJson("{\"name\": \"x\",\n \"rules\": [\n"));
        assertEquals("malformed JSON: unexpected end-of-input: expected close marker for Array", e.getMessage());
        assertEquals(3, e.line());
    }

    @Test
    void aTruncatedActionLineIsOnePlainLine() {
        ActionReader.Result r = ActionReader.read("{\"id\": \"a-2\", \"action\": \"withdrawal.create\"");
        assertEquals(new ActionReader.Malformed("malformed JSON at column 44: unexpected end-of-input: expected close marker "
                + "for Object", "a-2", 44), r);
    }
}
