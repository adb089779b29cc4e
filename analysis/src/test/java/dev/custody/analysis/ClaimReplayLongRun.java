package dev.custody.analysis;

import java.io.IOException;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Arbitrary;

/**
 * {@link ClaimReplayProperties} for a long run, outside {@code verify} (its name matches neither {@code *Test} nor
 * {@code *Properties}): {@code ./mvnw -B -o -q -pl analysis -am test -Dtest=ClaimReplayLongRun
 * -Dsurefire.failIfNoSpecifiedTests=false}, 500 policy sets and 200 diffs (about 25 minutes on two loaded cores).
 */
class ClaimReplayLongRun {
    private final ClaimReplayProperties generators = new ClaimReplayProperties();

    @Provide
    Arbitrary<List<ClaimReplayProperties.GenRule>> rules() {
        return generators.rules();
    }

    @Provide
    Arbitrary<Integer> rewrite() {
        return generators.rewrite();
    }

    @Property(tries = 500)
    void noClaimIsRefutedByAReplayedAction(@ForAll("rules") List<ClaimReplayProperties.GenRule> rules,
            @ForAll long seed) throws IOException {
        ClaimReplayProperties.checkClaims(rules, seed);
    }

    @Property(tries = 200)
    void equivalentSetsDecideEveryReplayedActionAlike(@ForAll("rules") List<ClaimReplayProperties.GenRule> rules,
            @ForAll("rewrite") int rewrite, @ForAll long seed) throws IOException {
        ClaimReplayProperties.checkEquivalence(rules, rewrite, seed);
    }
}
