package dev.custody.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The word diff of conditions in a review: words, whitespace ignored, removals before additions. */
class WordDiffTest {
    private static List<String> diff(String a, String b) {
        return WordDiff.diff(a, b).stream().map(r -> switch (r.op()) {
            case SAME -> r.text();
            case REMOVED -> "-[" + r.text() + "]";
            case ADDED -> "+[" + r.text() + "]";
        }).toList();
    }

    @Test
    void wordsAreNamesNumbersStringsAndSymbolRuns() {
        assertEquals(List.of("!(", "withdrawal.asset_symbol", "in", "[", "\"US DC\"", ",", "'x'", "])", "&&",
                "wallet.outflow_24h", ">=", "1e6"),
                WordDiff.words("!(withdrawal.asset_symbol in [\"US DC\", 'x'])\n  &&wallet.outflow_24h>=1e6"));
    }

    @Test
    void aChangedNumberIsOneRemovalAndOneAddition() {
        assertEquals(List.of("withdrawal.value_usd >", "-[250000]", "+[100000]"),
                diff("withdrawal.value_usd > 250000", "withdrawal.value_usd   >\n100000"));
    }

    @Test
    void anAddedConjunctIsOneAddition() {
        assertEquals(List.of("principal.role == \"signer\"", "+[&& withdrawal.value_usd > 5]"),
                diff("principal.role == \"signer\"", "principal.role == \"signer\" && withdrawal.value_usd > 5"));
    }

    @Test
    void anAddedOrRemovedRuleIsAllAddedOrAllRemoved() {
        assertEquals(List.of("+[a && b]"), diff(null, "a && b"));
        assertEquals(List.of("-[a && b]"), diff("a && b", null));
    }

    @Test
    void whitespaceAloneIsNoChange() {
        assertTrue(WordDiff.sameWords("a&&b > 1", " a &&\n b>1 "));
        assertFalse(WordDiff.sameWords("a && b > 1", "a && b > 2"));
        assertEquals(List.of("a && b > 1"), diff("a&&b > 1", " a &&\n b>1 "));
    }
}
