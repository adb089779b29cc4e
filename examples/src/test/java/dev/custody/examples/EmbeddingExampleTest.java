package dev.custody.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.cli.ExitCode;
import dev.custody.engine.Decision;
import dev.custody.engine.Outcome;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedding example's round trip: it decides with a revision, writes a decision log that {@code custody replay
 * --from-log} reads back with zero differences against the same policies, and counts its metrics.
 */
class EmbeddingExampleTest {
    @TempDir
    Path dir;

    @Test
    void decidesLogsAndCounts() throws Exception {
        Path log = dir.resolve("decisions.jsonl");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        List<Decision> decisions = EmbeddingExample.decide(ExamplesTest.POLICIES, log, registry);

        assertEquals(List.of("w-1001 DENY proposer-ceiling", "w-1002 ALLOW routine-payout", "w-1003 NO_MATCH null"),
                decisions.stream().map(d -> d.actionId() + " " + d.outcome() + " " + d.ruleId()).toList());
        assertEquals("proposers may initiate withdrawals up to $5,000", decisions.get(0).reason());
        String revision = decisions.get(0).bundleRevision();
        assertNotNull(revision);
        assertTrue(decisions.stream().allMatch(d -> revision.equals(d.bundleRevision())), decisions.toString());

        List<String> records = Files.readAllLines(log);
        assertEquals(3, records.size());
        assertTrue(records.get(0).contains("\"bundle_revision\":\"" + revision + "\""), records.get(0));

        assertEquals(List.of(
                "custody.bundle.cache.gets{result=hit} 2",
                "custody.bundle.cache.gets{result=miss} 1",
                "custody.bundle.loads{result=compiled} 1",
                "custody.decision.duration{} 3",
                "custody.decisions{action=withdrawal.create,failure=none,outcome=allow} 1",
                "custody.decisions{action=withdrawal.create,failure=none,outcome=deny} 1",
                "custody.decisions{action=withdrawal.create,failure=none,outcome=no_match} 1",
                "custody.rule.matches{outcome=allow,policy=address-book-hygiene,rule=routine-payout} 1",
                "custody.rule.matches{outcome=deny,policy=role-limits,rule=proposer-ceiling} 1"),
                EmbeddingExample.metrics(registry));
        assertEquals(0.0, registry.get("custody.decision.log.dropped").functionCounter().count());

        ExamplesTest.Run same = ExamplesTest.custody("replay", "--policies", ExamplesTest.POLICIES.toString(),
                "--from-log", log.toString());
        assertEquals(ExitCode.OK, same.exit(), same.err());
        assertEquals("", same.out());
        assertEquals("3 logged decisions re-decided, 0 differ\n", same.err());
    }

    @Test
    void theRoundTripSeesAChangedPolicySet() throws Exception {
        // the check above can fail: against the address-book policy alone, the proposer is no longer denied
        Path log = dir.resolve("decisions.jsonl");
        EmbeddingExample.decide(ExamplesTest.POLICIES, log, new SimpleMeterRegistry());
        ExamplesTest.Run other = ExamplesTest.custody("replay", "--policies",
                ExamplesTest.POLICIES.resolve("address-book-hygiene.json").toString(), "--from-log", log.toString());
        assertEquals(ExitCode.INPUT, other.exit(), other.err());
        assertTrue(other.out().startsWith("w-1001"), other.out());
        assertEquals("3 logged decisions re-decided, 1 differ\n", other.err());
    }
}
