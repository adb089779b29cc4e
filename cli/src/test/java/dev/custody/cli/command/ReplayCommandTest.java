package dev.custody.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.custody.cli.Cli;
import dev.custody.cli.ExitCode;
import dev.custody.cli.Fixtures;
import dev.custody.engine.replay.ActionStream;
import dev.custody.engine.velocity.SettlementStatus;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplayCommandTest {
    static final String SETTLED = "{\"event\": \"withdrawal.settled\", \"wallet_id\": \"" + Fixtures.WALLET
            + "\", \"workspace_id\": \"" + Fixtures.WORKSPACE + "\", \"network_code\": \"ETHEREUM_MAINNET\", "
            + "\"value_usd\": 5, \"status\": \"executed\", \"at\": \"2026-11-03T14:06:00Z\"}";

    @TempDir
    Path dir;

    String policies;
    String actions;

    @BeforeEach
    void files() {
        policies = Cli.write(dir, "policies/limits.yaml", Fixtures.LIMITS_YAML);
        actions = Cli.write(dir, "actions.jsonl", String.join("\n",
                Fixtures.withdrawal("a-1", 20000, true),
                "{\"id\": \"a-2\", \"action\": \"withdrawal.create\"",
                "",
                SETTLED,
                Fixtures.withdrawal("a-3", 500, true),
                Fixtures.withdrawal("a-4", 500, false),
                "{\"id\": \"a-5\", \"action\": \"withdrawal.create\", \"wallet_id\": \"" + Fixtures.WALLET
                        + "\", \"bogus\": 1}") + "\n");
    }

    /**
     * Replay with a patient time budget: these tests pin semantics, and a loaded test machine can stall a
     * thread past the default 100 ms, which would (rightly) fail the action closed.
     */
    static Cli.Result replay(String... args) {
        String[] all = new String[args.length + 3];
        all[0] = "replay";
        System.arraycopy(args, 0, all, 1, args.length);
        all[args.length + 1] = "--time-budget";
        all[args.length + 2] = "1m";
        return Cli.run(all);
    }

    @Test
    void jsonlHasOneDecisionRecordPerActionAndAnErrorRecordPerMalformedLine() {
        Cli.Result r = replay("--policies", policies, "--actions", actions, "--format", "jsonl");
        assertEquals(ExitCode.INPUT, r.exit(), "a malformed line fails the replay at the end: " + r);
        assertEquals(List.of(
                "{\"id\":\"a-1\",\"action\":\"withdrawal.create\",\"decision\":\"DENY\",\"policy_id\":\"limits\","
                        + "\"rule_id\":\"big\",\"reason\":\"above $10,000\",\"fail_closed\":false,\"failure\":null,"
                        + "\"error\":null,\"bundle_revision\":\"e44fe297c984784c\",\"elapsed_us\":0}",
                // the id read before the line broke off is kept; the column is where it broke off
                "{\"id\":\"a-2\",\"action\":null,\"decision\":\"DENY\",\"policy_id\":null,\"rule_id\":null,\"reason\":null,"
                        + "\"fail_closed\":true,\"failure\":\"malformed_action\",\"error\":\"malformed action line: "
                        + "malformed JSON at column 44: unexpected end-of-input: expected close marker for Object\","
                        + "\"bundle_revision\":null,\"elapsed_us\":0,\"line\":2,\"column\":44}",
                "{\"id\":\"a-3\",\"action\":\"withdrawal.create\",\"decision\":\"ALLOW\",\"policy_id\":\"limits\","
                        + "\"rule_id\":\"listed\",\"reason\":\"whitelisted destination\",\"fail_closed\":false,"
                        + "\"failure\":null,\"error\":null,\"bundle_revision\":\"e44fe297c984784c\",\"elapsed_us\":0}",
                "{\"id\":\"a-4\",\"action\":\"withdrawal.create\",\"decision\":\"NO_MATCH\",\"policy_id\":null,"
                        + "\"rule_id\":null,\"reason\":null,\"fail_closed\":false,\"failure\":null,\"error\":null,"
                        + "\"bundle_revision\":\"e44fe297c984784c\",\"elapsed_us\":0}",
                // the column of the unknown property
                "{\"id\":\"a-5\",\"action\":null,\"decision\":\"DENY\",\"policy_id\":null,\"rule_id\":null,"
                        + "\"reason\":null,\"fail_closed\":true,\"failure\":\"malformed_action\",\"error\":\"malformed "
                        + "action line: unknown property `bogus`\",\"bundle_revision\":null,\"elapsed_us\":0,\"line\":7,\"column\":99}"),
                r.outWithoutTimings().lines().toList());
    }

    @Test
    void theSummaryGoesToStandardError() {
        Cli.Result r = replay("--policies", policies, "--actions", actions, "--format", "jsonl");
        List<String> err = r.errLines();
        assertTrue(err.get(0).matches("5 actions from `.*actions.jsonl` in \\d+\\.\\d\\d s \\(\\d+ actions/s\\)"),
                err.get(0));
        assertEquals(List.of(
                "  ALLOW            1",
                "  DENY             3  (2 fail-closed)",
                "  NO_MATCH         1",
                "  malformed        2  (denied, fail-closed)",
                "  applied 1 `withdrawal.settled` event to the velocity ledger",
                "by rule:",
                "  listed  ALLOW        1",
                "  big     DENY         1"), err.subList(1, err.size()));
    }

    @Test
    void textHasOneLinePerAction() {
        Cli.Result r = replay("--policies", policies, "--actions", actions);
        assertEquals(List.of(
                "a-1          DENY      big                        above $10,000",
                "a-2          DENY      -                          fail-closed: malformed action line 2: malformed JSON "
                        + "at column 44: unexpected end-of-input: expected close marker for Object",
                "a-3          ALLOW     listed                     whitelisted destination",
                "a-4          NO_MATCH  -",
                "a-5          DENY      -                          fail-closed: malformed action line 7: unknown "
                        + "property `bogus`"), r.outLines());
    }

    @Test
    void jsonIsOneDocumentWithTheDecisionsAndTheSummary() throws Exception {
        Cli.Result r = replay("--policies", policies, "--actions", actions, "--format", "json");
        JsonNode doc = new ObjectMapper().readTree(r.out());
        assertEquals(5, doc.get("decisions").size());
        assertEquals("ALLOW", doc.get("decisions").get(2).get("decision").asText());
        JsonNode s = doc.get("summary");
        assertEquals(5, s.get("actions").asInt());
        assertEquals("{\"ALLOW\":1,\"DENY\":3,\"NO_MATCH\":1}", s.get("decisions").toString());
        assertEquals(2, s.get("fail_closed").asInt());
        assertEquals(2, s.get("malformed_lines").asInt());
        assertEquals("{\"withdrawal.settled\":1}", s.get("events").toString());
        assertEquals("{\"policy_id\":\"limits\",\"rule_id\":\"listed\",\"decision\":\"ALLOW\",\"fail_closed\":false,"
                + "\"count\":1}", s.get("rules").get(0).toString());
    }

    @Test
    void explainAddsTheTraceOfEveryEvaluatedRule() {
        String one = Cli.write(dir, "one.jsonl", Fixtures.withdrawal("a-3", 500, true) + "\n");
        Cli.Result r = replay("--policies", policies, "--actions", one, "--format", "jsonl", "--explain");
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        assertTrue(r.outWithoutTimings().endsWith(",\"trace\":["
                + "{\"policy_id\":\"limits\",\"rule_id\":\"big\",\"effect\":\"DENY\",\"result\":false,\"error\":null,"
                + "\"elapsed_us\":0},"
                + "{\"policy_id\":\"limits\",\"rule_id\":\"listed\",\"effect\":\"ALLOW\",\"result\":true,\"error\":null,"
                + "\"elapsed_us\":0}]}\n"), r.out());
        Cli.Result text = replay("--policies", policies, "--actions", one, "--explain");
        assertEquals(List.of("a-3          ALLOW     listed                     whitelisted destination",
                "    big (DENY): false", "    listed (ALLOW): true"), text.outLines());
    }

    @Test
    void policiesThatDoNotCompileDenyEveryActionWithTheErrorsOnStandardError() {
        String bad = Cli.write(dir, "bad/limits.yaml",
                Fixtures.LIMITS_YAML.replace("withdrawal.value_usd > 10000", "withdrawal.value_usdd > 10000"));
        String one = Cli.write(dir, "one.jsonl", Fixtures.withdrawal("a-3", 500, true) + "\n");
        Cli.Result r = replay("--policies", bad, "--actions", one, "--format", "jsonl");
        assertEquals(ExitCode.INPUT, r.exit());
        assertEquals("{\"id\":\"a-3\",\"action\":\"withdrawal.create\",\"decision\":\"DENY\",\"policy_id\":null,"
                + "\"rule_id\":null,\"reason\":null,\"fail_closed\":true,\"failure\":\"compile\",\"error\":\"policies do not compile: policy "
                + "`limits` /rules/0/condition 1:12: error[unknown_field] unknown field `withdrawal.value_usdd` "
                + "(hint: did you mean `withdrawal.value_usd`?)\",\"bundle_revision\":\"f9f672ecd9efe92b\",\"elapsed_us\":0}\n", r.outWithoutTimings());
        assertEquals(List.of(
                "error: the policies of workspace `" + Fixtures.WORKSPACE + "` do not compile; its actions are denied "
                        + "(fail_closed):",
                "  " + bad + ":9:27: error[unknown_field] unknown field `withdrawal.value_usdd` (hint: did you mean "
                        + "`withdrawal.value_usd`?)"), r.errLines().subList(0, 2));
    }

    @Test
    void aPolicyFileThatDoesNotReadDeniesEveryAction() {
        String broken = Cli.write(dir, "broken/p.yaml", "name: [\n");
        String one = Cli.write(dir, "one.jsonl", Fixtures.withdrawal("a-3", 500, true) + "\n");
        Cli.Result r = replay("--policies", broken, "--actions", one, "--format", "jsonl");
        assertEquals(ExitCode.INPUT, r.exit());
        assertTrue(r.out().contains("\"decision\":\"DENY\""), r.out());
        assertTrue(r.out().contains("\"failure\":\"load\",\"error\":\"policies of workspace `" + Fixtures.WORKSPACE
                + "` could not be loaded: `" + broken + "` is not a valid policy "
                + "file: " + broken + ":2:1: error[parse_error] malformed YAML"), r.out());
        assertEquals("error: the policies could not be loaded; every action is denied (fail_closed):", r.errLines().get(0));
        assertTrue(r.errLines().get(1).startsWith("  " + broken + ":2:1: error[parse_error]"), r.err());
    }

    @Test
    void eachWorkspaceGetsItsOwnPoliciesAndThoseWithoutAWorkspace() {
        Cli.write(dir, "ws/global.yaml", Fixtures.LIMITS_YAML);
        Cli.write(dir, "ws/other.yaml", """
                id: other-only
                name: Other workspace only
                workspace_id: 2fde5aa1-e6c3-4cc3-9d89-438da3572c71
                approval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf
                rules:
                  - rule_id: tiny
                    trigger_action: withdrawal.create
                    effect: DENY
                    condition: withdrawal.value_usd > 100
                """);
        String stream = Cli.write(dir, "ws.jsonl", Fixtures.withdrawal("main", Fixtures.WORKSPACE, 500, false) + "\n"
                + Fixtures.withdrawal("other", Fixtures.OTHER_WORKSPACE.toUpperCase(), 500, false) + "\n");
        Cli.Result r = replay("--policies", dir.resolve("ws").toString(), "--actions", stream);
        assertEquals(List.of("main         NO_MATCH  -", "other        DENY      tiny"), r.outLines(), r.toString());
    }

    @Test
    void theOrderAndTheDecisionsDoNotDependOnTheNumberOfThreads() {
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 1500; i++) {
            many.append(i % 97 == 0 ? "{broken" : Fixtures.withdrawal("a-" + i, (i * 37) % 20000, i % 3 == 0))
                    .append('\n');
            if (i % 50 == 0) {
                many.append(SETTLED).append('\n');
            }
        }
        String stream = Cli.write(dir, "many.jsonl", many.toString());
        Cli.Result one = replay("--policies", policies, "--actions", stream, "--format", "jsonl",
                "--threads", "1");
        Cli.Result four = replay("--policies", policies, "--actions", stream, "--format", "jsonl",
                "--threads", "4");
        assertEquals(1500, one.outLines().size());
        assertEquals(one.outWithoutTimings(), four.outWithoutTimings());
        assertEquals(one.errLines().subList(1, one.errLines().size()), four.errLines().subList(1, four.errLines().size()));
    }

    @Test
    void aDashReadsTheActionsFromStandardInput() {
        Cli.Result r = Cli.runWithInput(Fixtures.withdrawal("a-1", 20000, true) + "\n", "replay", "--policies",
                policies, "--actions", "-", "--time-budget", "1m");
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        assertEquals("a-1          DENY      big                        above $10,000\n", r.out());
        assertTrue(r.errLines().get(0).startsWith("1 action from standard input in "), r.err());
    }

    @Test
    void missingFilesAreIoErrors() {
        Cli.Result noActions = replay("--policies", policies, "--actions", dir.resolve("no.jsonl").toString());
        assertEquals(ExitCode.IO, noActions.exit());
        assertEquals("error: `" + dir.resolve("no.jsonl") + "` does not exist\n", noActions.err());
        Cli.Result noPolicies = replay("--policies", dir.resolve("nope").toString(), "--actions", actions);
        assertEquals(ExitCode.IO, noPolicies.exit());
        assertEquals("error: `" + dir.resolve("nope") + "` does not exist\n", noPolicies.err());
    }

    @Test
    void eventRecordsAreNotActions() {
        ActionStream.SettlementLine settled = assertInstanceOf(ActionStream.SettlementLine.class,
                ActionStream.parse(1, SETTLED));
        assertEquals(SettlementStatus.EXECUTED, settled.settlement().status());
        ActionStream.MalformedLine duplicate = assertInstanceOf(ActionStream.MalformedLine.class,
                ActionStream.parse(1, "{\"event\": 1, \"event\": 2}"), "a duplicate key is malformed whatever the record");
        assertEquals("malformed JSON at column 21: duplicate field `event`", duplicate.message());
        assertTrue(ActionStream.parse(1, Fixtures.withdrawal("a-1", 1, true).replace("0xabc", "\\\"event\\\""))
                instanceof ActionStream.ActionLine, "\"event\" inside a value does not make a record an event");
    }

    @Test
    void noLineIsLostByteOrderMarkBothKeysOrLength() {
        String both = "{\"id\": \"both\", \"action\": \"withdrawal.create\", \"event\": \"withdrawal.settled\"}";
        String tooLong = Fixtures.withdrawal("long", 1, false).replace("0xabc", "0x" + "a".repeat(900));
        String stream = Cli.write(dir, "bom.jsonl", "\uFEFF" + Fixtures.withdrawal("first", 500, true) + "\n"
                + both + "\n\n" + tooLong + "\n" + Fixtures.withdrawal("last", 20000, false) + "\n");
        for (String velocity : new String[] {"derive", "given"}) {
            Cli.Result r = replay("--policies", policies, "--actions", stream, "--format", "jsonl",
                    "--velocity", velocity, "--max-line-length", "600");
            assertEquals(ExitCode.INPUT, r.exit(), r.toString());
            List<String> out = r.outWithoutTimings().lines().toList();
            assertEquals(4, out.size(), velocity + ": one record per non-blank line: " + out);
            assertTrue(out.get(0).startsWith("{\"id\":\"first\",\"action\":\"withdrawal.create\",\"decision\":\"ALLOW\""),
                    out.get(0));
            assertEquals("{\"id\":\"both\",\"action\":null,\"decision\":\"DENY\",\"policy_id\":null,\"rule_id\":null,"
                    + "\"reason\":null,\"fail_closed\":true,\"failure\":\"malformed_action\",\"error\":\"malformed action "
                    + "line: a record has both `action` and `event`: an action has no `event`, a settlement no "
                    + "`action`\",\"bundle_revision\":null,\"elapsed_us\":0,\"line\":2,\"column\":16}", out.get(1));
            assertEquals("{\"id\":null,\"action\":null,\"decision\":\"DENY\",\"policy_id\":null,\"rule_id\":null,"
                    + "\"reason\":null,\"fail_closed\":true,\"failure\":\"malformed_action\",\"error\":\"malformed action "
                    + "line: line is " + tooLong.length() + " characters long, more than the 600 read (it was "
                    + "skipped)\",\"bundle_revision\":null,\"elapsed_us\":0,\"line\":4}", out.get(2));
            assertTrue(out.get(3).startsWith("{\"id\":\"last\",\"action\":\"withdrawal.create\",\"decision\":\"DENY\""),
                    out.get(3));
        }
    }
}
