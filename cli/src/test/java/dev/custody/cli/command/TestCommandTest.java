package dev.custody.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.custody.cli.Cli;
import dev.custody.cli.ExitCode;
import dev.custody.cli.Fixtures;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class TestCommandTest {
    static final String ACTION = "{action: withdrawal.create, wallet_id: " + Fixtures.WALLET + ", "
            + "withdrawal: {value_usd: %s, is_whitelisted: %s}}";

    @TempDir
    Path dir;

    String tests;

    @BeforeEach
    void files() {
        Cli.write(dir, "policies/limits.yaml", Fixtures.LIMITS_YAML);
        tests = Cli.write(dir, "policies/tests/limits.test.yaml", """
                policies: [../limits.yaml]
                now: 2026-11-03T14:00:00Z
                cases:
                  - name: a big withdrawal is denied
                    action: %s
                    expect: {decision: DENY, rule_id: big}
                  - name: a listed destination is allowed
                    action: %s
                    expect: {decision: ALLOW, rule_id: listed, policy_id: limits}
                  - name: this expectation is wrong
                    action: %s
                    expect: {decision: NO_MATCH}
                """.formatted(ACTION.formatted(20000, false), ACTION.formatted(50, true), ACTION.formatted(50, true)));
    }

    static Cli.Result test(String... args) {
        String[] all = new String[args.length + 3];
        all[0] = "test";
        all[1] = "--time-budget";
        all[2] = "1m";
        System.arraycopy(args, 0, all, 3, args.length);
        return Cli.run(all);
    }

    @Test
    void textReportsEachCaseAndFailsOnAWrongExpectation() {
        Cli.Result r = test(tests);
        assertEquals(ExitCode.INPUT, r.exit(), r.toString());
        assertEquals(List.of(
                tests,
                "  PASS  a big withdrawal is denied",
                "  PASS  a listed destination is allowed",
                "  FAIL  this expectation is wrong  (" + tests + ":10)",
                "        expected NO_MATCH, got ALLOW by rule `listed`",
                "1 file, 3 cases: 2 passed, 1 failed",
                "coverage: 2 of 2 rules matched"), r.outLines());
    }

    @Test
    void directoriesAreSearchedForTestFiles() {
        Cli.Result r = test(dir.toString());
        assertEquals("1 file, 3 cases: 2 passed, 1 failed", r.outLines().get(5));
    }

    @Test
    void junitXmlHasASuitePerFileAndAFailurePerFailedCase() throws Exception {
        Cli.Result r = test("--format", "junit", tests);
        assertEquals(ExitCode.INPUT, r.exit());
        assertTrue(r.out().startsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "), r.out());
        Document xml = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(r.out().getBytes(StandardCharsets.UTF_8)));
        Element root = xml.getDocumentElement();
        assertEquals("testsuites", root.getTagName());
        assertEquals("3", root.getAttribute("tests"));
        assertEquals("1", root.getAttribute("failures"));
        assertEquals("0", root.getAttribute("errors"));
        NodeList suites = root.getElementsByTagName("testsuite");
        assertEquals(1, suites.getLength());
        Element suite = (Element) suites.item(0);
        assertEquals(tests, suite.getAttribute("name"));
        assertEquals("3", suite.getAttribute("tests"));
        assertEquals("1", suite.getAttribute("failures"));
        NodeList cases = suite.getElementsByTagName("testcase");
        assertEquals(3, cases.getLength());
        Element wrong = (Element) cases.item(2);
        assertEquals("this expectation is wrong", wrong.getAttribute("name"));
        assertEquals(tests, wrong.getAttribute("classname"));
        assertEquals("10", wrong.getAttribute("line"));
        Element failure = (Element) wrong.getElementsByTagName("failure").item(0);
        assertEquals("expected NO_MATCH, got ALLOW by rule `listed`", failure.getAttribute("message"));
        assertEquals(tests + ":10: expected NO_MATCH, got ALLOW by rule `listed`", failure.getTextContent());
        assertEquals(0, ((Element) cases.item(0)).getElementsByTagName("failure").getLength());
    }

    @Test
    void jsonHasEveryResultAndTheCoverage() throws Exception {
        Cli.Result r = test("--format", "json", tests);
        JsonNode doc = new ObjectMapper().readTree(r.out());
        assertEquals(1, doc.get("files").asInt());
        assertEquals(3, doc.get("cases").asInt());
        assertEquals(2, doc.get("passed").asInt());
        assertEquals(1, doc.get("failed").asInt());
        JsonNode wrong = doc.get("results").get(2);
        assertEquals("{\"decision\":\"NO_MATCH\",\"rule_id\":null,\"policy_id\":null,\"fail_closed\":null}",
                wrong.get("expected").toString());
        assertEquals("{\"decision\":\"ALLOW\",\"rule_id\":\"listed\",\"policy_id\":\"limits\",\"fail_closed\":false,"
                + "\"error\":null}", wrong.get("actual").toString());
        assertEquals("{\"rules\":2,\"matched\":2,\"never_matched\":[]}", doc.get("coverage").toString());
    }

    @Test
    void theCoverageLineNamesTheRulesThatNeverMatched() {
        String passing = Cli.write(dir, "policies/tests/one.test.yaml", """
                policies: [../limits.yaml]
                cases:
                  - name: big
                    action: %s
                    expect: {decision: DENY}
                """.formatted(ACTION.formatted(20000, false)));
        Cli.Result r = test(passing);
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        assertEquals("coverage: 1 of 2 rules matched; never matched: listed", r.outLines().get(3));
    }

    @Test
    void inlinePoliciesWork() {
        String inline = Cli.write(dir, "inline.test.yaml", """
                policies:
                  - name: Inline
                    approval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf
                    rules:
                      - {trigger_action: withdrawal.create, effect: DENY, condition: "withdrawal.value_usd > 1"}
                cases:
                  - name: denied by the inline rule
                    action: %s
                    expect: {decision: DENY, rule_id: "inline-0#0", policy_id: inline-0}
                """.formatted(ACTION.formatted(5, false)));
        Cli.Result r = test(inline);
        assertEquals(ExitCode.OK, r.exit(), r.toString());
    }

    @Test
    void problemsOfTheTestFileAreReportedAtTheirLineAndFailTheRun() {
        String bad = Cli.write(dir, "bad.test.yaml", """
                policies: [missing.yaml]
                cases:
                  - name: typo
                    action: %s
                    expect: {decison: DENY}
                  - name: wrong decision
                    action: %s
                    expect: {decision: BLOCK}
                  - name: unreadable action
                    actoin: {}
                """.formatted(ACTION.formatted(5, false), ACTION.formatted(5, false)));
        Cli.Result r = test(bad);
        assertEquals(ExitCode.INPUT, r.exit());
        assertEquals(List.of(
                bad,
                "  ERROR " + bad + ":1:12: error: policy path `missing.yaml` does not exist (relative to the test file)",
                "  ERROR " + bad + ":5:14: error: unknown expect property `decison` (did you mean `decision`?)",
                "  ERROR " + bad + ":5:13: error: `expect` of case `typo` has no `decision`",
                "  ERROR " + bad + ":8:24: error: unknown decision `BLOCK`; decisions: ALLOW, DENY, NO_MATCH",
                "  ERROR " + bad + ":10:5: error: unknown case property `actoin` (did you mean `action`?)",
                "  ERROR " + bad + ":9:5: error: case `unreadable action` has no `action`",
                "1 file, 0 cases: 0 passed, 0 failed, 6 file problems",
                "coverage: 0 of 0 rules matched"), r.outLines());
    }

    @Test
    void aMalformedTestFileIsAProblemAtItsLine() {
        String bad = Cli.write(dir, "broken.test.yaml", "policies: [\ncases: 1\n");
        Cli.Result r = test(bad);
        assertEquals(ExitCode.INPUT, r.exit());
        assertTrue(r.outLines().get(1).startsWith("  ERROR " + bad + ":3:1: error: malformed YAML: expected `,` or `]`"), r.out());
    }

    @Test
    void policiesThatDoNotCompileAreAProblemAndTheCasesFailClosed() {
        Cli.write(dir, "policies/limits.yaml", Fixtures.LIMITS_YAML.replace("value_usd > 10000", "value_usdd > 10000"));
        Cli.Result r = test(tests);
        assertEquals(ExitCode.INPUT, r.exit());
        assertTrue(r.out().contains("        expected ALLOW by rule `listed` of policy `limits`, got DENY (fail-closed: "
                + "policies do not compile: policy `limits` /rules/0/condition 1:12: error[unknown_field] unknown field "
                + "`withdrawal.value_usdd` (hint: did you mean `withdrawal.value_usd`?))"), r.out());
        assertTrue(r.out().contains("error: policies do not compile: "), r.out());
    }

    @Test
    void theCoverageCountsTheRulesTheEngineEvaluatesUnderItsIds() {
        // the rules the engine evaluates in some workspace: a rule without an id counts under `<policy>#<i>`; an
        // inactive policy, a disabled rule and every rule of a workspace whose bundle does not compile (the engine
        // denies its actions whole) are never evaluated, so they are not counted; a rule of a workspace no case
        // decides in is listed with zero counts
        Cli.write(dir, "idless/idless.yaml", """
                - id: idless
                  name: rules without ids
                  approval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf
                  rules:
                    - trigger_action: withdrawal.create
                      effect: DENY
                      condition: withdrawal.value_usd > 100
                    - rule_id: off
                      trigger_action: withdrawal.create
                      effect: DENY
                      condition: 'true'
                      is_enabled: false
                - id: dormant
                  name: an inactive policy
                  status: inactive
                  approval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf
                  rules:
                    - rule_id: never
                      trigger_action: withdrawal.create
                      effect: DENY
                      condition: 'true'
                - id: elsewhere
                  name: a workspace no case decides in
                  workspace_id: 2fde5aa1-e6c3-4cc3-9d89-438da3572c71
                  approval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf
                  rules:
                    - trigger_action: withdrawal.create
                      effect: ALLOW
                      condition: withdrawal.is_whitelisted
                - id: broken
                  name: a policy that does not compile
                  workspace_id: 33333333-e6c3-4cc3-9d89-438da3572c71
                  approval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf
                  rules:
                    - rule_id: compiles
                      trigger_action: withdrawal.create
                      effect: DENY
                      condition: 'true'
                    - rule_id: typo
                      trigger_action: withdrawal.create
                      effect: DENY
                      condition: withdrawal.value_usdd > 1
                - id: bystander
                  name: a valid policy of the workspace the broken one denies
                  workspace_id: 33333333-e6c3-4cc3-9d89-438da3572c71
                  approval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf
                  rules:
                    - rule_id: fine
                      trigger_action: withdrawal.create
                      effect: DENY
                      condition: 'true'
                """);
        String file = Cli.write(dir, "idless/tests/idless.test.yaml", """
                policies: [../idless.yaml]
                now: 2026-11-03T14:00:00Z
                cases:
                  - name: a withdrawal over $100 is denied by the rule without an id
                    action: %s
                    expect: {decision: DENY, rule_id: 'idless#0', policy_id: idless}
                """.formatted(ACTION.formatted(200, false)));
        Path json = dir.resolve("coverage.json");
        Cli.Result r = test(file, "--coverage", json.toString());
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        assertEquals("coverage: 1 of 2 rules matched; never matched: elsewhere#0",
                r.outLines().get(r.outLines().size() - 1));
        JsonNode rules = readJson(json).get("rules");
        assertEquals(2, rules.size(), rules.toString());
        assertEquals("idless#0", rules.get(0).get("rule_id").asText());
        assertEquals(1, rules.get(0).get("evaluated").asInt());
        assertEquals("elsewhere#0", rules.get(1).get("rule_id").asText());
        assertEquals(0, rules.get(1).get("evaluated").asInt());
    }

    static JsonNode readJson(Path file) {
        try {
            return new ObjectMapper().readTree(file.toFile());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void noTestFilesIsAnInputErrorAndAMissingPathAnIoError() {
        Cli.Result none = test(dir.resolve("empty").toString());
        assertEquals(ExitCode.IO, none.exit());
        assertEquals("error: `" + dir.resolve("empty") + "` does not exist\n", none.err());
        Cli.write(dir, "empty/readme.txt", "nothing here");
        Cli.Result empty = test(dir.resolve("empty").toString());
        assertEquals(ExitCode.INPUT, empty.exit());
        assertEquals("error: no policy test files (*.test.yaml, *.test.yml, *.test.json) under the given paths\n",
                empty.err());
    }
}
