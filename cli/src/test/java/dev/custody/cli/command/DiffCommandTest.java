package dev.custody.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.custody.cli.Cli;
import dev.custody.cli.ExitCode;
import dev.custody.cli.Fixtures;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiffCommandTest {
    @TempDir
    Path dir;

    String base;
    String head;
    String actions;

    @BeforeEach
    void files() {
        base = Cli.write(dir, "base/limits.yaml", Fixtures.LIMITS_YAML);
        // the head lowers the limit to $1,000 and adds a rule that catches the destination 0xabc
        head = Cli.write(dir, "head/limits.yaml", Fixtures.LIMITS_YAML.replace("> 10000", "> 1000") + """
                  - rule_id: blocked-destination
                    trigger_action: withdrawal.create
                    effect: DENY
                    description: a sanctioned address
                    condition: withdrawal.destination_address == "0xabc" && withdrawal.value_usd < 100
                """);
        actions = Cli.write(dir, "a.jsonl", String.join("\n",
                Fixtures.withdrawal("same", 20000, false),
                Fixtures.withdrawal("limit-1", 5000, false),
                Fixtures.withdrawal("limit-2", 3000, true),
                Fixtures.withdrawal("blocked", 50, true),
                Fixtures.withdrawal("also-same", 500, false),
                ReplayCommandTest.SETTLED) + "\n");
    }

    static Cli.Result diff(String... args) {
        String[] all = new String[args.length + 3];
        all[0] = "diff";
        System.arraycopy(args, 0, all, 1, args.length);
        all[args.length + 1] = "--time-budget";
        all[args.length + 2] = "1m";
        return Cli.run(all);
    }

    @Test
    void textListsTheChangedActionsThenTheTransitions() {
        Cli.Result r = diff("--base", base, "--head", head, "--actions", actions);
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        assertEquals(List.of(
                "limit-1      NO_MATCH → DENY                   - → big",
                "limit-2      ALLOW → DENY                      listed → big",
                "blocked      ALLOW → DENY                      listed → blocked-destination",
                "",
                "5 actions, 3 changed",
                "  ALLOW → DENY     2",
                "  NO_MATCH → DENY  1"), r.outLines());
        assertEquals("", r.err());
    }

    @Test
    void failOnChangeExitsOneWhenAnythingChanged() {
        assertEquals(ExitCode.INPUT, diff("--base", base, "--head", head, "--actions", actions, "--fail-on-change").exit());
        Cli.Result same = diff("--base", base, "--head", base, "--actions", actions, "--fail-on-change");
        assertEquals(ExitCode.OK, same.exit());
        assertEquals("5 actions, 0 changed\n", same.out());
    }

    @Test
    void anAttributionChangeIsAChangeEvenWithTheSameDecision() {
        String reordered = Cli.write(dir, "reordered/limits.yaml", Fixtures.LIMITS_YAML.replace("rule_id: big",
                "rule_id: big-renamed"));
        Cli.Result r = diff("--base", base, "--head", reordered, "--actions", actions);
        assertEquals(List.of("same         DENY → DENY                       big → big-renamed", "",
                "5 actions, 1 changed", "  DENY → DENY (attribution)  1"), r.outLines());
    }

    @Test
    void jsonlHasOneRecordPerChangeAndTheTableOnStandardError() {
        Cli.Result r = diff("--base", base, "--head", head, "--actions", actions, "--format", "jsonl");
        assertEquals("{\"id\":\"limit-1\",\"line\":2,\"action\":\"withdrawal.create\","
                + "\"base\":{\"decision\":\"NO_MATCH\",\"policy_id\":null,\"rule_id\":null,\"reason\":null,"
                + "\"fail_closed\":false,\"failure\":null,\"error\":null},"
                + "\"head\":{\"decision\":\"DENY\",\"policy_id\":\"limits\",\"rule_id\":\"big\","
                + "\"reason\":\"above $10,000\",\"fail_closed\":false,\"failure\":null,\"error\":null}}", r.outLines().get(0));
        assertEquals(3, r.outLines().size());
        assertEquals(List.of("5 actions, 3 changed", "  ALLOW → DENY     2", "  NO_MATCH → DENY  1"), r.errLines());
    }

    @Test
    void jsonIsOneDocumentWithTheChangesAndTheTransitions() throws Exception {
        Cli.Result r = diff("--base", base, "--head", head, "--actions", actions, "--format", "json");
        JsonNode doc = new ObjectMapper().readTree(r.out());
        assertEquals(3, doc.get("changes").size());
        assertEquals(5, doc.get("actions").asInt());
        assertEquals(3, doc.get("changed").asInt());
        assertEquals(0, doc.get("malformed_lines").asInt());
        assertEquals("[{\"from\":\"ALLOW\",\"to\":\"DENY\",\"count\":2},{\"from\":\"NO_MATCH\",\"to\":\"DENY\",\"count\":1}]",
                doc.get("transitions").toString());
    }

    @Test
    void headPoliciesThatDoNotCompileDenyEverythingAndFailTheDiff() {
        String broken = Cli.write(dir, "broken/limits.yaml", Fixtures.LIMITS_YAML.replace("withdrawal.is_whitelisted",
                "withdrawal.is_whitelist"));
        Cli.Result r = diff("--base", base, "--head", broken, "--actions", actions);
        assertEquals(ExitCode.INPUT, r.exit());
        assertTrue(r.out().contains("  ALLOW → DENY (fail-closed)"), r.out());
        assertTrue(r.errLines().get(0).startsWith("error: the head policies of workspace"), r.err());
    }

    @Test
    void malformedLinesAreReportedAndFailTheDiff() {
        String bad = Cli.write(dir, "bad.jsonl", Fixtures.withdrawal("a", 1, true) + "\n{nope\n");
        Cli.Result r = diff("--base", base, "--head", base, "--actions", bad);
        assertEquals(ExitCode.INPUT, r.exit());
        assertEquals("error: line 2: malformed action line: malformed JSON at column 2: unexpected character (`n` "
                + "(code 110)): was expecting double-quote to start field name\n", r.err());
        assertEquals("2 actions, 0 changed, 1 malformed (denied on both sides)\n", r.out());
    }
}
