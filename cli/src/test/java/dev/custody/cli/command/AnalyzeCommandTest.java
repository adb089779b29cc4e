package dev.custody.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.custody.cli.Cli;
import dev.custody.cli.ExitCode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code custody analyze} and {@code custody diff --semantic}: output forms, exit codes, witnesses replayed by the CLI. */
class AnalyzeCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String REVIEW = "../examples/analysis/review.yaml";

    @TempDir
    Path dir;

    @Test
    void thePolicyRepositoryIsClean() {
        Cli.Result r = Cli.run("analyze", "../examples/policies");
        assertEquals("20 rules, 20 analysed: 0 errors, 0 warnings, 0 notes\n", r.out());
        assertEquals("", r.err());
        assertEquals(ExitCode.OK, r.exit());
    }

    @Test
    void jsonHasTheDesignFieldsAndWitnessesReplayAsClaimed() throws Exception {
        Cli.Result r = Cli.run("analyze", "--format", "json", REVIEW);
        assertEquals(ExitCode.INPUT, r.exit(), r.err());
        JsonNode root = JSON.readTree(r.out());
        assertEquals(List.of("rules", "analyzed", "findings"), names(root));
        assertEquals(8, root.get("rules").asInt());
        assertEquals(7, root.get("analyzed").asInt());
        List<String> kinds = new ArrayList<>();
        for (JsonNode f : root.get("findings")) {
            assertEquals(List.of("kind", "severity", "policy_id", "rule_id", "action", "related", "message", "file",
                    "line", "column", "witness"), names(f));
            kinds.add(f.get("kind").asText() + "/" + f.get("severity").asText() + "/" + f.get("rule_id").asText() + "@"
                    + f.get("line").asInt() + ":" + f.get("column").asInt());
        }
        assertEquals(List.of("shadowed/warning/large-btc@13:7", "duplicate/warning/large-again@19:7",
                "unsatisfiable/error/after-midnight@25:7", "may_error/error/company-accounts@31:7",
                "not_analyzed/info/vanity-address@37:7", "overridden/warning/big-whitelisted-payout@43:7",
                "always_true/warning/every-role@49:7"), kinds);
        JsonNode shadowed = root.get("findings").get(0);
        assertEquals("review-demo", shadowed.get("related").get(0).get("policy_id").asText());
        assertEquals("large", shadowed.get("related").get(0).get("rule_id").asText());

        // each witness, replayed by `custody replay`, gives the decision the finding claims
        StringBuilder lines = new StringBuilder();
        List<String> expected = new ArrayList<>();
        for (JsonNode f : root.get("findings")) {
            if (!f.get("witness").isNull()) {
                lines.append(JSON.writeValueAsString(f.get("witness"))).append('\n');
                expected.add(switch (f.get("kind").asText()) {
                    case "shadowed", "overridden" -> "DENY large false";
                    case "may_error" -> "DENY company-accounts true";
                    default -> throw new AssertionError(f.toString());
                });
            }
        }
        Path witnesses = dir.resolve("witnesses.jsonl");
        Files.writeString(witnesses, lines);
        Cli.Result replay = Cli.run("replay", "--policies", REVIEW, "--actions", witnesses.toString(),
                "--format", "jsonl");
        List<String> got = new ArrayList<>();
        for (String line : replay.out().split("\n")) {
            JsonNode d = JSON.readTree(line);
            got.add(d.get("decision").asText() + " " + d.get("rule_id").asText() + " " + d.get("fail_closed").asBoolean());
        }
        assertEquals(expected, got);
    }

    @Test
    void textNamesEachFindingAtTheRule() {
        Cli.Result r = Cli.run("analyze", REVIEW);
        assertEquals(ExitCode.INPUT, r.exit());
        assertTrue(r.out().startsWith("../examples/analysis/review.yaml:13:7: warning[shadowed] review-demo/large-btc: "
                + "whenever this rule is true, an earlier DENY rule (`review-demo/large`) is true for the same wallet: "
                + "it never gets attribution\n  witness: {\"id\":\"witness-shadowed-large-btc\""), r.out());
        assertTrue(r.out().contains("\n../examples/analysis/review.yaml:25:7: error[unsatisfiable] "
                + "review-demo/after-midnight: no valid action makes this rule true: it never applies\n"), r.out());
        assertTrue(r.out().endsWith("8 rules, 7 analysed: 2 errors, 4 warnings, 1 note\n"), r.out());
    }

    @Test
    void sarifLikeLint() throws Exception {
        Cli.Result r = Cli.run("analyze", "--format", "sarif", REVIEW);
        JsonNode run = JSON.readTree(r.out()).get("runs").get(0);
        assertEquals(7, run.get("results").size());
        List<String> rules = new ArrayList<>();
        run.get("tool").get("driver").get("rules").forEach(x -> rules.add(x.get("id").asText()));
        assertEquals(List.of("always_true", "duplicate", "may_error", "not_analyzed", "overridden", "shadowed",
                "unsatisfiable"), rules);
        JsonNode first = run.get("results").get(0);
        assertEquals("shadowed", first.get("ruleId").asText());
        assertEquals(5, first.get("ruleIndex").asInt());
        assertEquals("warning", first.get("level").asText());
        JsonNode loc = first.get("locations").get(0).get("physicalLocation");
        assertEquals("../examples/analysis/review.yaml", loc.get("artifactLocation").get("uri").asText());
        assertEquals(13, loc.get("region").get("startLine").asInt());
        assertEquals(7, loc.get("region").get("startColumn").asInt());
        assertEquals("note", run.get("results").get(4).get("level").asText());
    }

    @Test
    void actionFilterAndBadInput() {
        assertEquals("0 rules, 0 analysed: 0 errors, 0 warnings, 0 notes\n",
                Cli.run("analyze", "--action", "web3.contract_call", REVIEW).out());
        Cli.Result bad = Cli.run("analyze", "--action", "withdrawal", REVIEW);
        assertEquals(ExitCode.USAGE, bad.exit());
        assertEquals("error: unknown trigger action `withdrawal`; trigger actions: withdrawal.create, "
                + "web3.contract_call\n", bad.err());
        assertEquals(ExitCode.USAGE, Cli.run("analyze", "--timeout-ms", "0", REVIEW).exit());
        Cli.Result broken = Cli.run("analyze", "../examples/broken");
        assertEquals(ExitCode.INPUT, broken.exit());
        assertEquals("error: some policies do not read or compile; the engine denies their workspace's actions, and "
                + "their rules are not analysed:\n  ../examples/broken/limits-draft.yaml:16:5: error[unknown_property] "
                + "unknown property `is_enable`\n", broken.err());
        Cli.Result missing = Cli.run("analyze", dir.resolve("nope.yaml").toString());
        assertEquals(ExitCode.IO, missing.exit(), missing.err());
        assertEquals(1, missing.err().lines().count(), missing.err());
    }

    @Test
    void semanticDiffOfTheExampleRevision() throws Exception {
        Cli.Result r = Cli.run("diff", "--semantic", "--base", "../examples/policies/role-limits.yaml", "--head",
                "../examples/revision/role-limits.yaml", "--format", "json");
        assertEquals(ExitCode.INPUT, r.exit(), r.err());
        JsonNode root = JSON.readTree(r.out());
        assertEquals(false, root.get("equivalent").asBoolean());
        assertEquals(1, root.get("differences").size());
        JsonNode d = root.get("differences").get(0);
        assertEquals("NO_MATCH", d.get("from").asText());
        assertEquals("DENY", d.get("to").asText());
        assertTrue(d.get("base_rule_id").isNull());
        assertEquals("signer-ceiling-2027", d.get("head_rule_id").asText());
        Path w = dir.resolve("w.jsonl");
        Files.writeString(w, JSON.writeValueAsString(d.get("witness")) + "\n");
        Cli.Result diff = Cli.run("diff", "--base", "../examples/policies/role-limits.yaml", "--head",
                "../examples/revision/role-limits.yaml", "--actions", w.toString(), "--format", "jsonl");
        assertTrue(diff.out().contains("\"signer-ceiling-2027\""), diff.out());
    }

    private Path policy(String name, String... rules) throws Exception {
        StringBuilder s = new StringBuilder("id: p\nname: policy p\napproval_group_id: "
                + "985976e8-9faf-4e44-a2ed-b01af2ca04cf\nrules:\n");
        for (int i = 0; i < rules.length; i += 3) {
            s.append("  - rule_id: ").append(rules[i]).append("\n    trigger_action: withdrawal.create\n    effect: ")
                    .append(rules[i + 1]).append("\n    condition: '").append(rules[i + 2]).append("'\n");
        }
        Path f = dir.resolve(name + ".yaml");
        Files.writeString(f, s);
        return f;
    }

    @Test
    void anIntAboveTwoTo53MeetsTheDoubleNearestItNotTheReal() throws Exception {
        // once claimed unsatisfiable (exit 1), yet amount 9007199254740992.0 is DENY by it
        Path f = policy("range", "r1", "DENY",
                "withdrawal.amount >= 9007199254740993 && withdrawal.amount <= 9007199254740992");
        Cli.Result r = Cli.run("analyze", "--format", "json", f.toString());
        assertEquals("{\"rules\":1,\"analyzed\":1,\"findings\":[]}", r.out().strip());
        assertEquals("", r.err());
        assertEquals(ExitCode.OK, r.exit());
        Path action = dir.resolve("a.jsonl");
        Files.writeString(action, "{\"id\":\"a\",\"action\":\"withdrawal.create\",\"wallet_id\":"
                + "\"aa0fe024-832e-4282-a4e2-c85e2b7ae138\",\"at\":\"2026-11-02T12:00:00Z\","
                + "\"principal\":{\"role\":\"owner\"},\"withdrawal\":{\"amount\":9007199254740992.0,\"value_usd\":1,"
                + "\"asset_symbol\":\"BTC\",\"asset_is_native\":true,\"destination_address\":\"0xabc\","
                + "\"network_code\":\"N\",\"is_whitelisted\":true,\"address_age_sec\":1},\"wallet\":{\"outflow_1h\":0,"
                + "\"outflow_6h\":0,\"outflow_24h\":0,\"withdrawal_count_1h\":0},\"workspace\":{\"outflow_1h\":0,"
                + "\"outflow_6h\":0,\"outflow_24h\":0,\"withdrawal_count_1h\":0,\"network_outflow_1h\":0,"
                + "\"network_outflow_6h\":0,\"network_outflow_24h\":0,\"network_withdrawal_count_1h\":0}}\n");
        Cli.Result replay = Cli.run("replay", "--policies", f.toString(), "--actions", action.toString(), "--format",
                "jsonl");
        JsonNode d = JSON.readTree(replay.out().lines().findFirst().orElseThrow());
        assertEquals("DENY r1", d.get("decision").asText() + " " + d.get("rule_id").asText());
    }

    @Test
    void intArithmeticBeyondTwoTo63IsAnErrorNotACrash() throws Exception {
        // once exit 3: `ArithmeticException: BigInteger out of long range` on the solver's unbounded ints
        Path f = policy("ints", "neg", "ALLOW", "-wallet.withdrawal_count_1h < 5",
                "plus", "DENY", "wallet.withdrawal_count_1h + 1 > 5");
        Cli.Result r = Cli.run("analyze", "--format", "json", f.toString());
        assertEquals(ExitCode.INPUT, r.exit(), r.err());
        assertEquals("", r.err());
        JsonNode root = JSON.readTree(r.out());
        List<String> kinds = new ArrayList<>();
        root.get("findings").forEach(x -> kinds.add(x.get("kind").asText() + " " + x.get("rule_id").asText()));
        assertEquals(List.of("always_true neg", "may_error plus"), kinds);
        JsonNode witness = root.get("findings").get(1).get("witness");
        assertEquals(Long.MAX_VALUE, witness.get("wallet").get("withdrawal_count_1h").asLong());
        assertTrue(witness.get("wallet").get("withdrawal_count_1h").isIntegralNumber());
        Path w = dir.resolve("w.jsonl");
        Files.writeString(w, JSON.writeValueAsString(witness) + "\n");
        Cli.Result replay = Cli.run("replay", "--policies", f.toString(), "--actions", w.toString(), "--format",
                "jsonl");
        JsonNode d = JSON.readTree(replay.out().lines().findFirst().orElseThrow());
        assertEquals("DENY plus true", d.get("decision").asText() + " " + d.get("rule_id").asText() + " "
                + d.get("fail_closed").asBoolean());
    }

    @Test
    void semanticDiffOfASetWithItselfIsEquivalent() {
        Cli.Result r = Cli.run("diff", "--semantic", "--base", "../examples/policies", "--head", "../examples/policies");
        assertEquals("equivalent: base and head decide every valid action alike\n", r.out());
        assertEquals(ExitCode.OK, r.exit());
        assertEquals("{\"equivalent\":true,\"differences\":[],\"undecided\":[]}\n", Cli.run("diff", "--semantic",
                "--base", "../examples/policies", "--head", "../examples/policies", "--format", "json").out());
    }

    @Test
    void diffNeedsActionsOrSemantic() {
        Cli.Result r = Cli.run("diff", "--base", REVIEW, "--head", REVIEW);
        assertEquals(ExitCode.USAGE, r.exit());
        assertEquals("error: missing `--actions FILE` (or use `--semantic` to compare every valid action)\n", r.err());
        assertEquals(ExitCode.USAGE, Cli.run("diff", "--semantic", "--base", REVIEW, "--head", REVIEW, "--actions",
                "x.jsonl").exit());
        assertEquals(ExitCode.USAGE, Cli.run("diff", "--semantic", "--base", REVIEW, "--head", REVIEW, "--format",
                "jsonl").exit());
    }

    private static List<String> names(JsonNode n) {
        List<String> out = new ArrayList<>();
        n.fieldNames().forEachRemaining(out::add);
        return out;
    }
}
