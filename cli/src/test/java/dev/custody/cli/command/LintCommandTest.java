package dev.custody.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.custody.cli.Cli;
import dev.custody.cli.ExitCode;
import dev.custody.cli.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LintCommandTest {
    /** Conditions behind JSON escapes: \" and \n and \u00e9 all shift the file column away from the condition's. */
    static final String ESCAPES_JSON = """
            {
              "id": "esc",
              "name": "Escapes",
              "approval_group_id": "985976e8-9faf-4e44-a2ed-b01af2ca04cf",
              "rules": [
                {"trigger_action": "withdrawal.create", "effect": "DENY",
                 "condition": "withdrawal.asset_symbol == \\"ETH\\" && withdrawal.amout > 1"},
                {"trigger_action": "withdrawal.create", "effect": "DENY",
                 "condition": "withdrawal.value_usd > 1\\n  && withdrawal.amout > 1"},
                {"trigger_action": "withdrawal.create", "effect": "DENY",
                 "condition": "withdrawal.asset_symbol == \\"\\u00e9\\\\t\\" && withdrawal.amout > 1"}
              ]
            }
            """;

    /** Conditions in YAML literal, folded, double- and single-quoted scalars. */
    static final String BLOCKS_YAML = """
            id: block
            name: Block scalars
            approval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf
            rules:
              - trigger_action: withdrawal.create
                effect: DENY
                condition: |
                  withdrawal.value_usd > 10
                    && withdrawal.amout > 1
              - trigger_action: withdrawal.create
                effect: DENY
                condition: >-
                  withdrawal.value_usd > 10
                  && withdrawal.amout > 1
              - trigger_action: withdrawal.create
                effect: DENY
                condition: "withdrawal.asset_symbol == \\"ETH\\" && withdrawal.amout > 1"
              - trigger_action: withdrawal.create
                effect: DENY
                condition: 'withdrawal.asset_symbol == ''ETH'' && withdrawal.amout > 1'
              - trigger_action: web3.contract_call
                effect: DENY
                condition: |-
                  resource.value_wei != "0"

                    && resource.decoded_args.to == "0x1"
              - trigger_action: withdrawal.create
                effect: ALLOW
                condition: principal.user_email.endsWith("@example.com")
            """;

    @TempDir
    Path dir;

    @Test
    void findingsInsideJsonEscapesLandOnTheOffendingToken() {
        String file = Cli.write(dir, "esc.json", ESCAPES_JSON);
        Cli.Result r = Cli.run("lint", "--format", "github", file);
        assertEquals(ExitCode.INPUT, r.exit(), r.toString());
        String hint = " (hint: did you mean `withdrawal.amount`?) [unknown_field]";
        assertEquals(List.of(
                "::error file=" + file + ",line=7,col=69::unknown field `withdrawal.amout`" + hint,
                "::error file=" + file + ",line=9,col=62::unknown field `withdrawal.amout`" + hint,
                "::error file=" + file + ",line=11,col=75::unknown field `withdrawal.amout`" + hint), r.outLines());
        assertTokenAt(file, 7, 69, "amout");
        assertTokenAt(file, 9, 62, "amout");
        assertTokenAt(file, 11, 75, "amout");
    }

    @Test
    void findingsInsideYamlBlockAndQuotedScalarsLandOnTheOffendingToken() {
        String file = Cli.write(dir, "block.yaml", BLOCKS_YAML);
        Cli.Result r = Cli.run("lint", "--format", "json", file);
        assertEquals(ExitCode.INPUT, r.exit(), r.toString());
        List<String> positions = new ArrayList<>();
        for (JsonNode d : json(r.out()).get("diagnostics")) {
            positions.add(d.get("pointer").asText() + " " + d.get("line") + ":" + d.get("column") + " "
                    + d.get("code").asText() + " " + d.get("condition_line") + ":" + d.get("condition_column"));
        }
        assertEquals(List.of(
                "/rules/0/condition 9:23 unknown_field 2:17",
                "/rules/1/condition 14:21 unknown_field 1:41",
                "/rules/2/condition 17:66 unknown_field 1:48",
                "/rules/3/condition 20:66 unknown_field 1:48",
                "/rules/4/condition 26:34 unguarded_dynamic_read 3:28",
                "/rules/5/condition 29:26 unguarded_optional_read 1:11"), positions);
        assertTokenAt(file, 9, 23, "amout");
        assertTokenAt(file, 14, 21, "amout");
        assertTokenAt(file, 17, 66, "amout");
        assertTokenAt(file, 20, 66, "amout");
        assertTokenAt(file, 26, 34, "to ==");
        assertTokenAt(file, 29, 26, "user_email");
    }

    @Test
    void textShowsEachFindingWithItsFileLineAndACaret() {
        String file = Cli.write(dir, "block.yaml", BLOCKS_YAML);
        Cli.Result r = Cli.run("lint", file);
        assertEquals(ExitCode.INPUT, r.exit());
        List<String> lines = r.outLines();
        assertEquals(List.of(
                file + ":9:23: error[unknown_field] unknown field `withdrawal.amout`",
                " 9 |         && withdrawal.amout > 1",
                "   |                       ^",
                " = hint: did you mean `withdrawal.amount`?"), lines.subList(0, 4));
        assertEquals("1 file, 1 policy, 6 rules: 5 errors, 1 warning", lines.get(lines.size() - 1));
    }

    @Test
    void jsonReportsCountsAndEveryDiagnosticField() {
        String file = Cli.write(dir, "esc.json", ESCAPES_JSON);
        Cli.Result r = Cli.run("lint", "--format", "json", file);
        String first = "{\"file\":\"" + file + "\",\"pointer\":\"/rules/0/condition\",\"line\":7,\"column\":69,"
                + "\"severity\":\"error\",\"code\":\"unknown_field\",\"message\":\"unknown field `withdrawal.amout`\","
                + "\"hint\":\"did you mean `withdrawal.amount`?\",\"condition_line\":1,\"condition_column\":48}";
        assertTrue(r.out().startsWith("{\"files\":1,\"policies\":1,\"rules\":3,\"errors\":3,\"warnings\":0,"
                + "\"diagnostics\":[" + first + ","), r.out());
    }

    @Test
    void jsonLeavesOutTheConditionPositionOfAFindingThatIsNotAboutAConditionToken() {
        String file = Cli.write(dir, "group.yaml", """
                id: group
                name: Group
                approval_group_id: not-a-uuid
                rules:
                  - trigger_action: withdrawal.create
                    effect: DENY
                    condition: withdrawal.amout > 1
                """);
        Cli.Result r = Cli.run("lint", "--format", "json", file);
        assertEquals(ExitCode.INPUT, r.exit(), r.toString());
        List<String> found = new ArrayList<>();
        for (JsonNode d : json(r.out()).get("diagnostics")) {
            found.add(d.get("pointer").asText() + " " + d.get("line") + ":" + d.get("column") + " "
                    + d.get("code").asText() + " " + d.has("condition_line") + " " + d.has("condition_column")
                    + " " + d.path("condition_line").asInt() + ":" + d.path("condition_column").asInt());
        }
        assertEquals(List.of(
                "/approval_group_id 3:20 invalid_uuid false false 0:0",
                "/rules/0/condition 7:27 unknown_field true true 1:12"), found);
    }

    @Test
    void sarifHasTheDriverRulesAndOneResultPerFinding() throws Exception {
        String file = Cli.write(dir, "block.yaml", BLOCKS_YAML);
        Cli.Result r = Cli.run("lint", "--format", "sarif", file);
        assertEquals(ExitCode.INPUT, r.exit());
        JsonNode log = json(r.out());
        assertEquals("2.1.0", log.get("version").asText());
        assertEquals("https://json.schemastore.org/sarif-2.1.0.json", log.get("$schema").asText());
        JsonNode run = log.get("runs").get(0);
        JsonNode driver = run.get("tool").get("driver");
        assertEquals("custody", driver.get("name").asText());
        List<String> ruleIds = new ArrayList<>();
        driver.get("rules").forEach(x -> ruleIds.add(x.get("id").asText()));
        assertEquals(List.of("unguarded_dynamic_read", "unguarded_optional_read", "unknown_field"), ruleIds);
        driver.get("rules").forEach(x -> assertTrue(!x.get("shortDescription").get("text").asText().isEmpty()));
        JsonNode results = run.get("results");
        assertEquals(6, results.size());
        JsonNode first = results.get(0);
        assertEquals("unknown_field", first.get("ruleId").asText());
        assertEquals(2, first.get("ruleIndex").asInt());
        assertEquals("error", first.get("level").asText());
        assertEquals("unknown field `withdrawal.amout` (hint: did you mean `withdrawal.amount`?)",
                first.get("message").get("text").asText());
        JsonNode location = first.get("locations").get(0).get("physicalLocation");
        assertEquals(Sarif.uri(file), location.get("artifactLocation").get("uri").asText());
        assertEquals(9, location.get("region").get("startLine").asInt());
        assertEquals(23, location.get("region").get("startColumn").asInt());
        assertEquals("warning", results.get(5).get("level").asText());
        assertEquals(1, results.get(5).get("ruleIndex").asInt());
    }

    @Test
    void sarifUrisAreRelativeWithForwardSlashesOrFileUris() {
        assertEquals("policies/my%20limits.yaml", Sarif.uri("policies/my limits.yaml"));
        assertTrue(Sarif.uri("/tmp/x.yaml").startsWith("file:///tmp/x.yaml"));
    }

    @Test
    void githubAnnotationsEscapeTheirPropertiesAndData() {
        String file = Cli.write(dir, "a,b:c.yaml", BLOCKS_YAML.replace("withdrawal.value_usd > 10\n    ", "100% > 1\n    "));
        Cli.Result r = Cli.run("lint", "--format", "github", file);
        assertTrue(r.outLines().get(0).startsWith("::error file=" + file.replace(",", "%2C").replace(":", "%3A")
                + ",line="), r.out());
        assertTrue(r.outLines().stream().anyMatch(l -> l.startsWith("::warning ")), r.out());
        assertEquals("1 file, 1 policy, 6 rules: 5 errors, 1 warning\n", r.err());
    }

    @Test
    void warningsFailOnlyWithStrict() {
        String file = Cli.write(dir, "warn.yaml", """
                name: Warn only
                approval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf
                rules:
                  - trigger_action: withdrawal.create
                    effect: DENY
                    condition: principal.user_email == "x@example.com"
                """);
        assertEquals(ExitCode.OK, Cli.run("lint", file).exit());
        assertEquals(ExitCode.INPUT, Cli.run("lint", "--strict", file).exit());
    }

    @Test
    void aMalformedYamlFileIsAnInputErrorAtItsLine() {
        String file = Cli.write(dir, "broken.yaml", "name: x\nrules:\n  - effect: DENY\n   condition: 1\n");
        Cli.Result r = Cli.run("lint", file);
        assertEquals(ExitCode.INPUT, r.exit(), r.toString());
        assertTrue(r.outLines().get(0).startsWith(file + ":4:"), r.out());
        assertTrue(r.outLines().get(0).contains("error[parse_error] malformed YAML"), r.out());
    }

    @Test
    void aMalformedJsonFileIsAnInputErrorAtItsLine() {
        String file = Cli.write(dir, "broken.json", "{\n  \"name\": \"x\",\n  \"rules\": [,]\n}\n");
        Cli.Result r = Cli.run("lint", file);
        assertEquals(ExitCode.INPUT, r.exit(), r.toString());
        assertTrue(r.outLines().get(0).startsWith(file + ":3:13: error[parse_error] malformed JSON: unexpected "
                + "character (`,` (code 44))"), r.out());
    }

    @Test
    void aFileThatIsNotUtf8IsAnInputError() throws Exception {
        Path file = dir.resolve("latin1.yaml");
        Files.write(file, new byte[] {'n', 'a', 'm', 'e', ':', ' ', (byte) 0xe9, '\n'});
        Cli.Result r = Cli.run("lint", file.toString());
        assertEquals(ExitCode.INPUT, r.exit());
        assertEquals(file + ": error[parse_error] file is not UTF-8 text", r.outLines().get(0));
    }

    @Test
    void directoriesAreSearchedRecursivelyAndTestFilesSkipped() {
        Cli.write(dir, "a/limits.yaml", Fixtures.LIMITS_YAML);
        Cli.write(dir, "a/b/more.yaml", Fixtures.LIMITS_YAML.replace("id: limits", "id: more"));
        Cli.write(dir, "a/b/limits.test.yaml", "not: a policy");
        Cli.Result r = Cli.run("lint", dir.resolve("a").toString());
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        assertEquals("2 files, 2 policies, 4 rules: 0 errors, 0 warnings\n", r.out());
    }

    @Test
    void aPolicyIdUsedTwiceInAWorkspaceIsAnError() {
        String a = Cli.write(dir, "x/limits.yaml", Fixtures.LIMITS_YAML.replace("id: limits\n", ""));
        String b = Cli.write(dir, "y/limits.yaml", Fixtures.LIMITS_YAML.replace("id: limits\n", ""));
        Cli.Result r = Cli.run("lint", a, b);
        assertEquals(ExitCode.INPUT, r.exit());
        assertEquals(b + ":1:1: error[duplicate_id] policy id `limits` (derived from the file name) is also used by `"
                + a + "`", r.outLines().get(0));
        assertEquals(" = hint: give the policies explicit `id`s", r.outLines().get(3));
    }

    @Test
    void policiesOfDifferentWorkspacesMayShareAnId() {
        String a = Cli.write(dir, "a.yaml", Fixtures.LIMITS_YAML + "workspace_id: " + Fixtures.WORKSPACE + "\n");
        String b = Cli.write(dir, "b.yaml", Fixtures.LIMITS_YAML + "workspace_id: " + Fixtures.OTHER_WORKSPACE + "\n");
        assertEquals(ExitCode.OK, Cli.run("lint", a, b).exit());
    }

    @Test
    void aMissingPathIsAnIoError() {
        Cli.Result r = Cli.run("lint", dir.resolve("nope").toString());
        assertEquals(ExitCode.IO, r.exit());
        assertEquals("error: `" + dir.resolve("nope") + "` does not exist\n", r.err());
    }

    @Test
    void aDirectoryWithoutPolicyFilesIsAnInputError() {
        Cli.Result r = Cli.run("lint", dir.toString());
        assertEquals(ExitCode.INPUT, r.exit());
        assertEquals("error: no policy files (.json, .yaml, .yml) under `" + dir + "`\n", r.err());
    }

    private static void assertTokenAt(String file, int line, int column, String token) {
        try {
            String text = Files.readAllLines(Path.of(file)).get(line - 1);
            assertTrue(text.startsWith(token, column - 1), "line " + line + " column " + column + " is not `" + token
                    + "`: " + text);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static JsonNode json(String text) {
        try {
            return new ObjectMapper().readTree(text);
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + text, e);
        }
    }
}
