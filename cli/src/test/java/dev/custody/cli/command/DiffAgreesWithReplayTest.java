package dev.custody.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.custody.cli.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code diff}'s base decisions are {@code replay}'s, line for line, on the examples stream: both derive velocity
 * from the stream with the same ledger. The head is an empty policy set (everything NO_MATCH), so diff lists every
 * action whose base decision is not NO_MATCH, with that decision.
 */
class DiffAgreesWithReplayTest {
    static final Path POLICIES = Path.of("..", "examples", "policies");
    static final Path STREAM = Path.of("..", "examples", "actions", "stream.jsonl");
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path empty;

    @Test
    void diffsBaseSideIsReplayOnTheExamplesStream() throws Exception {
        assertTrue(Files.exists(STREAM), "the examples stream must exist under verify: " + STREAM.toAbsolutePath());
        for (String velocity : new String[] {"derive", "given"}) {
            Cli.Result replay = Cli.run("replay", "--policies", POLICIES.toString(), "--actions", STREAM.toString(),
                    "--format", "jsonl", "--time-budget", "1m", "--velocity", velocity);
            Cli.Result diff = Cli.run("diff", "--base", POLICIES.toString(), "--head", empty.toString(),
                    "--actions", STREAM.toString(), "--format", "jsonl", "--time-budget", "1m", "--velocity", velocity);
            assertEquals(0, replay.exit(), replay.err());
            assertEquals(0, diff.exit(), diff.err());
            Map<String, JsonNode> changed = new HashMap<>();
            for (String line : diff.out().lines().toList()) {
                JsonNode c = JSON.readTree(line);
                changed.put(c.get("id").asText(), c.get("base"));
            }
            int decided = 0;
            int notNoMatch = 0;
            for (String line : replay.out().lines().toList()) {
                JsonNode r = JSON.readTree(line);
                decided++;
                JsonNode base = changed.get(r.get("id").asText());
                if (r.get("decision").asText().equals("NO_MATCH")) {
                    assertEquals(null, base, "replay says NO_MATCH, diff's base does not: " + line);
                    continue;
                }
                notNoMatch++;
                assertTrue(base != null, "diff's base says NO_MATCH, replay does not: " + line);
                for (String field : new String[] {"decision", "policy_id", "rule_id", "fail_closed", "failure"}) {
                    assertEquals(r.get(field), base.get(field), velocity + ": " + field + " of " + line);
                }
            }
            assertEquals(changed.size(), notNoMatch, velocity);
            assertTrue(decided > 1000 && notNoMatch > 100, velocity + ": " + decided + " decided, " + notNoMatch + " not NO_MATCH");
        }
    }
}
