package dev.custody.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.custody.analysis.SemanticDiff;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Markdown of a review where the solver decided nothing: the verdict, and a long list folded. */
class ReviewOutputTest {
    @Test
    void undecidedQuestionsAreListedFiveThenFolded() {
        List<String> undecided = List.of("q1", "q2", "q3", "q4", "q5", "rule `p/a|b` <x>", "q7");
        PolicyReview.Report r = new PolicyReview.Report(new PolicyReview.Counts(0, 0, 1, 0, 0),
                new PolicyReview.Counts(0, 0, 1, 0, 0), List.of(), new SemanticDiff.Result(false, List.of(), undecided),
                List.of(), List.of(), List.of(), new int[] {3, 4}, null);
        assertEquals("behaviour change not decided (7 questions undecided)", r.verdict());
        assertEquals("undecided", r.verdictCode());
        assertEquals(String.join("\n",
                "**custody review:** policies: 0 added, 0 removed, 1 changed; rules: 0 added, 0 removed, 1 changed"
                        + " — behaviour change not decided (7 questions undecided)",
                "",
                "### Every valid action",
                "",
                "Not proved either way.",
                "",
                "- undecided: q1",
                "- undecided: q2",
                "- undecided: q3",
                "- undecided: q4",
                "- undecided: q5",
                "",
                "<details><summary>2 more undecided</summary>",
                "",
                "- rule `p/a\\|b` &lt;x>",
                "- q7",
                "",
                "</details>",
                "",
                "Analysis: 3 rules the change touches on the base side, 4 on the head side.",
                "", ""), ReviewOutput.markdown(r));
    }
}
