package dev.custody.engine.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UuidsTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', nullValues = "null", value = {
        "00cd4ae6-310e-4566-99ae-1270f1ed5570 | true",
        "00CD4AE6-310E-4566-99AE-1270F1ED5570 | true",
        "00cd4ae6-310e-4566-99ae-1270f1ed557  | false",
        "00cd4ae6-310e-4566-99ae-1270f1ed55700| false",
        "00cd4ae6x310e-4566-99ae-1270f1ed5570 | false",
        "00cd4ae6-310e-4566-99ae-1270f1ed557g | false",
        "{00cd4ae6-310e-4566-99ae-1270f1ed557}| false",
        "treasury-1                           | false",
        "null                                 | false",
    })
    void aUuidIsThirtySixHexDigitsAndHyphensInTheirPlaces(String text, boolean uuid) {
        assertEquals(uuid, Uuids.isUuid(text == null ? null : text.strip()));
    }

    @Test
    void everyCharacterInEveryPlaceIsCheckedAsTheFormSays() {
        String uuid = "00cd4ae6-310e-4566-99ae-1270f1ed5570";
        for (int place = 0; place < 36; place++) {
            boolean hyphen = place == 8 || place == 13 || place == 18 || place == 23;
            for (char c = 0; c < 0x180; c++) {
                String text = uuid.substring(0, place) + c + uuid.substring(place + 1);
                boolean expected = hyphen ? c == '-'
                        : (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
                assertEquals(expected, Uuids.isUuid(text), place + ": U+" + Integer.toHexString(c));
            }
        }
    }
}
