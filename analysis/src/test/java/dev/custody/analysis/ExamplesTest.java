package dev.custody.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What `custody analyze` says about the example policies; every witness replayed. */
class ExamplesTest {
    @Test
    void thePolicyRepositoryHasNoFindings() {
        PolicySet set = Fixtures.read(Path.of("../examples/policies"));
        assertEquals(List.of(), set.problems());
        AnalysisReport r = Fixtures.analyze(set);
        assertEquals(20, r.rules());
        assertEquals(20, r.analyzed());
        assertEquals(List.of(), r.findings());
    }

    @Test
    void theReviewExampleShowsEachKind() {
        PolicySet set = Fixtures.read(Path.of("../examples/analysis/review.yaml"));
        AnalysisReport r = Fixtures.analyze(set);
        List<String> got = new ArrayList<>();
        for (AnalysisFinding f : r.findings()) {
            StringBuilder s = new StringBuilder(f.rule().line() + ":" + f.rule().column() + " " + f.kind().wireName()
                    + " " + f.rule().ruleId());
            f.related().forEach(x -> s.append(' ').append(x.ruleId()));
            got.add(s.toString());
            FindingKindsTest.checkWitness(set, f);
        }
        assertEquals(List.of(
                "13:7 shadowed large-btc large",
                "19:7 duplicate large-again large",
                "25:7 unsatisfiable after-midnight",
                "31:7 may_error company-accounts",
                "37:7 not_analyzed vanity-address",
                "43:7 overridden big-whitelisted-payout large",
                "49:7 always_true every-role"), got);
        assertEquals(8, r.rules());
        assertEquals(7, r.analyzed());
    }
}
