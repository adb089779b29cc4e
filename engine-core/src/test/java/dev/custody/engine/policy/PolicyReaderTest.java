package dev.custody.engine.policy;

import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.files.Finding;
import dev.custody.engine.files.PolicyReader;
import dev.custody.engine.validate.RuleUpdate;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.Fixtures;
import dev.custody.engine.diagnostic.DiagnosticCode;
import java.util.List;
import org.junit.jupiter.api.Test;

class PolicyReaderTest {
    private static final String GROUP = Fixtures.GROUP;

    private static List<Finding> lint(String text, String file) {
        return PolicyReader.parse(text, file).validate(Fixtures.VALIDATOR);
    }

    @Test
    void conditionErrorInAJsonStringLandsOnTheTokenThroughEscapes() {
        String json = "{\n"
                + "  \"name\": \"limits\",\n"
                + "  \"approval_group_id\": \"" + GROUP + "\",\n"
                + "  \"rules\": [\n"
                + "    {\"trigger_action\": \"withdrawal.create\", \"effect\": \"DENY\",\n"
                + "     \"condition\": \"withdrawal.asset_symbol == \\\"ETH\\\" && withdrawal.amout > 1\"}\n"
                + "  ]\n"
                + "}\n";
        List<Finding> f = lint(json, "limits.json");
        assertEquals(1, f.size(), f.toString());
        Finding x = f.get(0);
        assertEquals("/rules/0/condition", x.pointer());
        assertEquals(DiagnosticCode.UNKNOWN_FIELD, x.diagnostic().code());
        // condition column 48 (`amout`); in the file the two \" escapes add two characters
        assertEquals(1, x.diagnostic().line());
        assertEquals(48, x.diagnostic().column());
        assertEquals(6, x.line());
        int col = json.lines().toList().get(5).indexOf("amout") + 1;
        assertEquals(col, x.column());
        assertEquals("limits.json:6:" + col + ": error[unknown_field] unknown field `withdrawal.amout`", x.oneLine());
    }

    @Test
    void conditionErrorInAYamlLiteralBlockLandsOnTheToken() {
        String yaml = """
                name: night freeze
                approval_group_id: %s
                rules:
                  - trigger_action: withdrawal.create
                    effect: DENY
                    condition: |
                      context.hour < 6 &&
                        withdrawal.value_usd > 1000 &&
                        withdrawl.is_whitelisted == false
                """.formatted(GROUP);
        List<Finding> f = lint(yaml, "night.yaml");
        assertEquals(1, f.size(), f.toString());
        assertEquals(9, f.get(0).line());
        assertEquals(yaml.lines().toList().get(8).indexOf("withdrawl") + 1, f.get(0).column());
    }

    @Test
    void conditionErrorInAYamlFoldedPlainAndQuotedScalars() {
        String yaml = """
                - name: plain
                  approval_group_id: %1$s
                  rules:
                    - {trigger_action: withdrawal.create, effect: DENY, condition: withdrawal.value_usd > 1 && principal.rol == 'admin'}
                - name: single
                  approval_group_id: %1$s
                  rules:
                    - trigger_action: withdrawal.create
                      effect: DENY
                      condition: 'principal.role == ''admin'' && withdrawal.amout > 1'
                - name: folded
                  approval_group_id: %1$s
                  rules:
                    - trigger_action: withdrawal.create
                      effect: DENY
                      condition: >
                        withdrawal.value_usd > 1
                        && wallet.outflow_25h > 3
                """.formatted(GROUP);
        List<Finding> f = lint(yaml, "many.yaml");
        List<String> lines = yaml.lines().toList();
        assertEquals(3, f.size(), f.toString());
        assertEquals("/0/rules/0/condition", f.get(0).pointer());
        assertEquals(4, f.get(0).line());
        assertEquals(lines.get(3).indexOf("rol ==") + 1, f.get(0).column());
        assertEquals(10, f.get(1).line());
        assertEquals(lines.get(9).indexOf("amout") + 1, f.get(1).column());
        assertEquals(18, f.get(2).line());
        assertEquals(lines.get(17).indexOf("outflow_25h") + 1, f.get(2).column());
    }

    @Test
    void malformedFilesAreOneFindingWithAPosition() {
        List<Finding> json = lint("{\"name\": \"x\",\n \"rules\": [}\n", "bad.json");
        assertEquals(1, json.size());
        assertEquals(DiagnosticCode.PARSE_ERROR, json.get(0).diagnostic().code());
        assertEquals(2, json.get(0).line());
        assertTrue(json.get(0).diagnostic().message().startsWith("malformed JSON: unexpected close marker `}`"),
                json.get(0).diagnostic().message());
        List<Finding> yaml = lint("name: x\nrules:\n  - effect: DENY\n   condition: true\n", "bad.yaml");
        assertEquals(1, yaml.size());
        assertEquals(DiagnosticCode.PARSE_ERROR, yaml.get(0).diagnostic().code());
        assertEquals(4, yaml.get(0).line());
        List<Finding> dup = lint("{\"name\": \"x\", \"name\": \"y\"}", "dup.json");
        assertTrue(dup.get(0).diagnostic().message().contains("duplicate field `name`"), dup.toString());
        List<Finding> dupYaml = lint("name: x\nname: y\n", "dup.yaml");
        assertEquals("malformed YAML: duplicate key `name`", dupYaml.get(0).diagnostic().message());
        assertEquals(2, dupYaml.get(0).line());
    }

    /**
     * `cdated_at` is two edits from both `created_at` and `updated_at`: the hint must not depend on the iteration
     * order of a hash set (which changes from one JVM to the next), so it is the alphabetically first of the tie.
     */
    @Test
    void aTiedDidYouMeanIsTheSameInEveryRun() {
        String yaml = """
                name: tie
                approval_group_id: %s
                rules:
                  - trigger_action: withdrawal.create
                    effect: DENY
                    condition: "true"
                    cdated_at: x
                """.formatted(GROUP);
        List<Finding> f = PolicyReader.parse(yaml, "tie.yaml").validate(Fixtures.VALIDATOR);
        assertEquals(1, f.size(), f.toString());
        assertEquals("unknown property `cdated_at`", f.get(0).diagnostic().message());
        assertEquals("did you mean `created_at`?", f.get(0).diagnostic().hint());
    }

    @Test
    void unknownPropertiesAndWrongTypesAreErrorsWithDidYouMean() {
        String yaml = """
                name: typo
                approval_group_id: %s
                rules:
                  - trigger_action: withdrawal.create
                    effect: ALLOW
                    condition: "true"
                    is_enable: false
                  - trigger_action: withdrawal.create
                    effect: DENY
                    condition: 42
                """.formatted(GROUP);
        PolicyDocument doc = PolicyReader.parse(yaml, "typo.yaml");
        assertFalse(doc.valid());
        List<Finding> f = doc.validate(Fixtures.VALIDATOR);
        assertEquals(2, f.size(), f.toString());
        assertEquals("/rules/0/is_enable", f.get(0).pointer());
        assertEquals(7, f.get(0).line());
        assertEquals(5, f.get(0).column());
        assertEquals("unknown property `is_enable`", f.get(0).diagnostic().message());
        assertEquals("did you mean `is_enabled`?", f.get(0).diagnostic().hint());
        assertEquals("/rules/1/condition", f.get(1).pointer());
        assertEquals("`condition` must be a string, not a number", f.get(1).diagnostic().message());
    }

    @Test
    void envelopesArraysAndDerivedIds() {
        String json = "{\"success\": true, \"code\": 0, \"message\": \"ok\", \"data\": ["
                + "{\"name\": \"one\", \"approval_group_id\": \"" + GROUP + "\", \"rules\": [{\"trigger_action\": "
                + "\"withdrawal.create\", \"condition\": \"true\", \"effect\": \"DENY\"}]},"
                + "{\"id\": \"p-2\", \"name\": \"two\", \"approval_group_id\": \"" + GROUP + "\", \"rules\": ["
                + "{\"rule_id\": \"r-x\", \"trigger_action\": \"withdrawal.create\", \"condition\": \"true\", \"effect\": \"DENY\"},"
                + "{\"trigger_action\": \"withdrawal.create\", \"condition\": \"true\", \"effect\": \"DENY\"}]}]}";
        PolicyDocument doc = PolicyReader.parse(json, "dir/export.json");
        assertTrue(doc.valid());
        assertEquals(2, doc.policies().size());
        assertEquals("/data/0", doc.policies().get(0).pointer());
        assertEquals("export/0", doc.policies().get(0).policy().id());
        assertEquals("export/0#0", doc.policies().get(0).policy().rules().get(0).ruleId());
        assertEquals("p-2", doc.policies().get(1).policy().id());
        assertEquals(List.of("r-x", "p-2#1"),
                doc.policies().get(1).policy().rules().stream().map(Rule::ruleId).toList());
        PolicyDocument single = PolicyReader.parse("{\"name\": \"one\", \"approval_group_id\": \"" + GROUP
                + "\", \"rules\": [{\"trigger_action\": \"withdrawal.create\", \"condition\": \"true\", \"effect\": \"DENY\"}]}",
                "limits.json");
        assertEquals("limits", single.policies().get(0).policy().id());
        assertEquals("limits#0", single.policies().get(0).policy().rules().get(0).ruleId());
    }

    @Test
    void limitsAreReportedWithPointers() {
        StringBuilder rules = new StringBuilder();
        for (int i = 0; i < 51; i++) {
            rules.append(i == 0 ? "" : ",").append("{\"trigger_action\": \"withdrawal.create\", \"condition\": \"true\", \"effect\": \"DENY\"}");
        }
        String json = "{\"name\": \"ab\", \"description\": \"" + "d".repeat(501) + "\", \"approval_group_id\": \"nope\","
                + " \"wallet_ids\": [\"" + Fixtures.WALLET + "\", \"w-2\"], \"rules\": [" + rules + "]}";
        List<Finding> f = lint(json, "big.json");
        assertEquals(List.of("/approval_group_id invalid_uuid", "/description too_long", "/name too_short",
                "/rules too_many", "/wallet_ids/1 invalid_uuid"),
                f.stream().map(x -> x.pointer() + " " + x.diagnostic().code().id()).sorted().toList());
    }

    @Test
    void triggerActionIsImmutableOnRuleUpdate() {
        Rule existing = new Rule("r", "withdrawal.create", "true", "DENY", null, null);
        var d = Fixtures.VALIDATOR.validateRuleUpdate(existing,
                new RuleUpdate("web3.contract_call", null, null, null, null));
        assertEquals(1, d.size());
        assertEquals(DiagnosticCode.IMMUTABLE_FIELD, d.get(0).code());
        assertEquals("`trigger_action` cannot change from `withdrawal.create` to `web3.contract_call`", d.get(0).message());
        assertTrue(Fixtures.VALIDATOR.validateRuleUpdate(existing,
                new RuleUpdate("withdrawal.create", "withdrawal.value_usd > 5", "ALLOW", null, false)).isEmpty());
        assertEquals("/condition", Fixtures.VALIDATOR.validateRuleUpdate(existing,
                new RuleUpdate(null, "withdrawal.amout > 5", null, null, null)).get(0).pointer());
    }
}
