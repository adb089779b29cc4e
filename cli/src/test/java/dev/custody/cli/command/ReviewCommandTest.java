package dev.custody.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.custody.cli.Cli;
import dev.custody.cli.ExitCode;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.check.ActionReader;
import dev.custody.engine.files.FilePolicySource;
import dev.custody.engine.log.DecisionLog;
import dev.custody.engine.log.JsonLinesDecisionSink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code custody review} on real changes to the example policies, against the example stream of 1,200 actions:
 * a tightened limit, a DENY rule that overrides an ALLOW rule, a disabled rule, a pure reformatting and an
 * equivalent rewrite. The summary line, the rule and transition tables, the example actions, the exit codes and
 * the JSON fields are pinned exactly; every witness is replayed through {@code custody replay} against both sides;
 * the traffic figures agree with {@code custody diff}.
 */
class ReviewCommandTest {
    static final Path EXAMPLES = Path.of("../examples/policies");
    static final String STREAM = "../examples/actions/stream.jsonl";
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    String base;
    String head;

    @BeforeEach
    void copyTheExamples() throws IOException {
        base = copy("base").toString();
        head = copy("head").toString();
    }

    private Path copy(String name) throws IOException {
        Path to = Files.createDirectories(dir.resolve(name));
        try (Stream<Path> files = Files.list(EXAMPLES)) {
            for (Path p : files.filter(Files::isRegularFile).toList()) {
                Files.copy(p, to.resolve(p.getFileName()));
            }
        }
        return to;
    }

    private void edit(String file, String from, String to) {
        try {
            Path p = Path.of(head, file);
            String s = Files.readString(p);
            assertTrue(s.contains(from), "the example " + file + " has `" + from + "`");
            Files.writeString(p, s.replace(from, to));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Cli.Result review(String... args) {
        List<String> all = new ArrayList<>(List.of("review"));
        all.addAll(List.of(args));
        all.addAll(List.of("--time-budget", "1m"));
        return Cli.run(all.toArray(new String[0]));
    }

    /** The output with the temporary directory written as {dir}. */
    private List<String> lines(Cli.Result r) {
        return r.out().replace(dir.toString(), "{dir}").lines().toList();
    }

    private void tighten() {
        edit("treasury-limits.yaml", "condition: withdrawal.value_usd > 250000", "condition: withdrawal.value_usd > 100000");
    }

    private void addStablecoinHold() {
        String routine = "    {\n      \"rule_id\": \"routine-payout\",";
        edit("address-book-hygiene.json", routine, """
                    {
                      "rule_id": "stablecoin-hold",
                      "trigger_action": "withdrawal.create",
                      "effect": "DENY",
                      "description": "stablecoin payouts below $5,000 wait while the issuer is reviewed",
                      "condition": "withdrawal.asset_symbol in [\\"USDC\\", \\"USDT\\"] && withdrawal.value_usd < 5000"
                    },
                """ + routine);
    }

    private void disableNightFreeze() {
        edit("night-weekend-freeze.yaml", """
                      description: withdrawals above $25,000 are frozen between 22:00 and 06:00 UTC
                """, """
                      description: withdrawals above $25,000 are frozen between 22:00 and 06:00 UTC
                      is_enabled: false
                """);
    }

    @Test
    void aTightenedLimitChangesOneRecordedDecision() throws IOException {
        tighten();
        Cli.Result r = review("--base", base, "--head", head, "--actions", STREAM);
        assertEquals(ExitCode.INPUT, r.exit(), r.toString());
        assertEquals("", r.err());
        List<String> out = lines(r);
        assertEquals("**custody review:** policies: 0 added, 0 removed, 1 changed; rules: 0 added, 0 removed, 1 changed"
                + " — changes 1 decision of 1,200 recorded", out.get(0));
        assertTrue(out.contains("| `treasury-limits/treasury-single-cap` | changed | withdrawal.create | DENY | "
                + "`{dir}/head/treasury-limits.yaml:12` |"), r.out());
        assertTrue(out.contains("| before | <code>withdrawal.value_usd &gt; 250000</code> |"), r.out());
        assertTrue(out.contains("| after | <code>withdrawal.value_usd &gt; 100000</code> |"), r.out());
        assertTrue(out.contains("| words | <code>withdrawal.value_usd &gt; <del>250000</del> <ins>100000</ins></code> |"),
                r.out());
        assertEquals(List.of("| transition | actions |", "|---|---:|", "| NO_MATCH → DENY | 1 |"),
                section(out, "| transition | actions |", 3));
        assertTrue(out.contains("<details><summary>NO_MATCH → DENY: all 1</summary>"), r.out());
        assertTrue(out.contains("| `a-000721` | `00cd4ae6…` | 124,779.93 | - | "
                + "`treasury-limits/treasury-single-cap` |"), r.out());
        // the rule's own verdict: a change to NO_MATCH → DENY through it, proved, with a witness that replays
        JsonNode json = json(review("--base", base, "--head", head, "--format", "json"));
        JsonNode rule = json.get("rule_changes").get(0);
        assertEquals("changed", rule.get("change").asText());
        assertFalse(rule.get("semantic").get("equivalent").asBoolean());
        assertTrue(kinds(rule.get("semantic")).contains("NO_MATCH → DENY"), rule.toString());
        for (JsonNode d : rule.get("semantic").get("differences")) {
            assertTrue(d.get("base").get("rule_id").asText().equals("treasury-single-cap")
                    || d.get("head").get("rule_id").asText().equals("treasury-single-cap"), d.toString());
        }
        assertWitnessesReplay(json);
    }

    @Test
    void withoutTrafficTheVerdictIsTheProofAlone() {
        tighten();
        Cli.Result r = review("--base", base, "--head", head);
        assertEquals(ExitCode.INPUT, r.exit(), r.toString());
        assertEquals("**custody review:** policies: 0 added, 0 removed, 1 changed; rules: 0 added, 0 removed, 1 changed"
                + " — changes behaviour (proved)", lines(r).get(0));
        assertFalse(r.out().contains("### Traffic"));
    }

    @Test
    void aProvedChangeTheTrafficDoesNotShowIsSaidSo() throws IOException {
        tighten();
        // the first 100 lines of the stream: a-000721, the one action the change decides differently, is not there
        Path some = dir.resolve("some.jsonl");
        Files.write(some, Files.readAllLines(Path.of(STREAM)).subList(0, 100));
        Cli.Result r = review("--base", base, "--head", head, "--actions", some.toString());
        assertEquals(ExitCode.INPUT, r.exit(), r.toString());
        List<String> out = lines(r);
        assertEquals("**custody review:** policies: 0 added, 0 removed, 1 changed; rules: 0 added, 0 removed, 1 changed"
                + " — changes behaviour (proved), not seen in the traffic given", out.get(0));
        assertTrue(out.contains("`{dir}/some.jsonl` (action stream): 72 actions, 0 decided differently."), r.out());
        assertEquals("changes_behaviour_not_in_traffic",
                json(review("--base", base, "--head", head, "--actions", some.toString(), "--format", "json"))
                        .get("verdict").asText());
    }

    @Test
    void aDenyRuleThatOverridesAnAllowRule() throws IOException {
        addStablecoinHold();
        Cli.Result r = review("--base", base, "--head", head, "--actions", STREAM);
        assertEquals(ExitCode.INPUT, r.exit(), r.toString());
        List<String> out = lines(r);
        assertEquals("**custody review:** policies: 0 added, 0 removed, 1 changed; rules: 1 added, 0 removed, 0 changed"
                + " — changes 284 decisions of 1,200 recorded", out.get(0));
        assertTrue(out.contains("| `address-book-hygiene/stablecoin-hold` | added | withdrawal.create | DENY | "
                + "`{dir}/head/address-book-hygiene.json:22` |"), r.out());
        assertTrue(out.contains("| after | <code>withdrawal.asset_symbol in [ \"USDC\" , \"USDT\" ] &amp;&amp; "
                + "withdrawal.value_usd &lt; 5000</code> |"), r.out());
        // analyze's finding, introduced by the change, at analyze's file:line:column
        assertTrue(out.contains("- warning **overridden** `address-book-hygiene/routine-payout` at "
                + "`{dir}/head/address-book-hygiene.json:29:5`: whenever this rule is true, a DENY rule "
                + "(`address-book-hygiene/stablecoin-hold`) is true for the same wallet: it never allows"), r.out());
        assertTrue(r.out().contains("withdrawal.create **ALLOW → DENY** (proved; base: ALLOW by "
                + "`address-book-hygiene/routine-payout`, head: DENY by `address-book-hygiene/stablecoin-hold`)"),
                r.out());
        assertEquals(List.of("| transition | actions |", "|---|---:|", "| ALLOW → DENY | 158 |",
                "| NO_MATCH → DENY | 105 |", "| DENY → DENY (attribution) | 21 |"),
                section(out, "| transition | actions |", 5));
        // newest first: the last lines of the stream that changed
        assertEquals(List.of("<details><summary>ALLOW → DENY: the 5 newest of 158</summary>", "",
                "| id | workspace | value (USD) | rule before | rule after |", "|---|---|---:|---|---|",
                "| `a-001194` | `00cd4ae6…` | 1,834.06 | `address-book-hygiene/routine-payout` | "
                        + "`address-book-hygiene/stablecoin-hold` |",
                "| `a-001182` | `00cd4ae6…` | 323.30 | `address-book-hygiene/routine-payout` | "
                        + "`address-book-hygiene/stablecoin-hold` |",
                "| `a-001180` | `2fde5aa1…` | 1,701.12 | `address-book-hygiene/routine-payout` | "
                        + "`address-book-hygiene/stablecoin-hold` |",
                "| `a-001167` | `00cd4ae6…` | 641.32 | `address-book-hygiene/routine-payout` | "
                        + "`address-book-hygiene/stablecoin-hold` |",
                "| `a-001166` | `2fde5aa1…` | 828.36 | `address-book-hygiene/routine-payout` | "
                        + "`address-book-hygiene/stablecoin-hold` |",
                "", "</details>"), section(out, "<details><summary>ALLOW → DENY", 11));
        // the traffic figures are diff's
        Cli.Result diff = Cli.run("diff", "--base", base, "--head", head, "--actions", STREAM, "--time-budget", "1m");
        assertEquals(List.of("1200 actions, 284 changed", "  ALLOW → DENY               158",
                "  NO_MATCH → DENY            105", "  DENY → DENY (attribution)  21"),
                diff.outLines().subList(diff.outLines().size() - 4, diff.outLines().size()));
    }

    @Test
    void theJsonFormHasTheSameContent() throws IOException {
        addStablecoinHold();
        Cli.Result r = review("--base", base, "--head", head, "--actions", STREAM, "--format", "json");
        assertEquals(ExitCode.INPUT, r.exit(), r.toString());
        JsonNode j = json(r);
        assertEquals("policies: 0 added, 0 removed, 1 changed; rules: 1 added, 0 removed, 0 changed — changes 284 "
                + "decisions of 1,200 recorded", j.get("summary").asText());
        assertEquals("changes_recorded_decisions", j.get("verdict").asText());
        assertTrue(j.get("changes_behaviour").asBoolean());
        assertEquals("{\"added\":0,\"removed\":0,\"changed\":1}", j.get("policies").toString());
        assertEquals("{\"added\":1,\"removed\":0,\"changed\":0,\"disabled\":0,\"enabled\":0}", j.get("rules").toString());
        JsonNode rule = j.get("rule_changes").get(0);
        assertEquals("address-book-hygiene", rule.get("policy_id").asText());
        assertEquals("stablecoin-hold", rule.get("rule_id").asText());
        assertEquals("added", rule.get("change").asText());
        assertTrue(rule.get("before").isNull());
        assertEquals("DENY", rule.get("after").get("effect").asText());
        assertEquals(22, rule.get("after").get("line").asInt());
        assertEquals("[{\"op\":\"added\",\"text\":\"withdrawal.asset_symbol in [ \\\"USDC\\\" , \\\"USDT\\\" ] && "
                + "withdrawal.value_usd < 5000\"}]", rule.get("condition_diff").toString());
        JsonNode finding = rule.get("findings_introduced").get(0);
        assertEquals("overridden", finding.get("kind").asText());
        assertEquals("routine-payout", finding.get("rule_id").asText());
        assertEquals("[{\"policy_id\":\"address-book-hygiene\",\"rule_id\":\"stablecoin-hold\"}]",
                finding.get("related").toString());
        assertEquals(29, finding.get("line").asInt());
        assertEquals(5, finding.get("column").asInt());
        assertEquals(0, rule.get("findings_resolved").size());
        JsonNode traffic = j.get("traffic");
        assertEquals("actions", traffic.get("source").asText());
        assertEquals(1200, traffic.get("actions").asLong());
        assertEquals(284, traffic.get("changed").asLong());
        JsonNode first = traffic.get("transitions").get(0);
        assertEquals("ALLOW", first.get("from").asText());
        assertEquals("DENY", first.get("to").asText());
        assertEquals(158, first.get("count").asLong());
        assertEquals(5, first.get("newest").size());
        JsonNode newest = first.get("newest").get(0);
        assertEquals("a-001194", newest.get("id").asText());
        assertEquals("00cd4ae6-310e-4566-99ae-1270f1ed5570", newest.get("workspace_id").asText());
        assertEquals(1834.06, newest.get("value_usd").asDouble());
        assertEquals("routine-payout", newest.get("before").get("rule_id").asText());
        assertEquals("stablecoin-hold", newest.get("after").get("rule_id").asText());
        assertWitnessesReplay(j);
    }

    @Test
    void aDisabledRule() {
        disableNightFreeze();
        Cli.Result r = review("--base", base, "--head", head, "--actions", STREAM);
        assertEquals(ExitCode.INPUT, r.exit(), r.toString());
        List<String> out = lines(r);
        assertEquals("**custody review:** policies: 0 added, 0 removed, 1 changed; rules: 0 added, 0 removed, 0 changed,"
                + " 1 disabled — changes 60 decisions of 1,200 recorded", out.get(0));
        assertTrue(out.contains("| `night-freeze/night-large-withdrawal` | disabled | withdrawal.create | DENY | "
                + "`{dir}/base/night-weekend-freeze.yaml:7` |"), r.out());
        assertTrue(out.contains("| before | <code>( context.hour &gt;= 22 &#124;&#124; context.hour &lt; 6 ) &amp;&amp; "
                + "withdrawal.value_usd &gt; 25000</code> |"), r.out());
        assertTrue(r.out().contains("withdrawal.create **DENY → NO_MATCH** (proved; base: DENY by "
                + "`night-freeze/night-large-withdrawal`, head: NO_MATCH)"), r.out());
        assertEquals(List.of("| transition | actions |", "|---|---:|", "| DENY → NO_MATCH | 32 |",
                "| DENY → DENY (attribution) | 28 |"), section(out, "| transition | actions |", 4));
        assertTrue(out.contains("| `a-001171` | `00cd4ae6…` | 44,159.59 | `night-freeze/night-large-withdrawal` "
                + "| - |"), r.out());
    }

    @Test
    void aPureReformattingIsProvedToChangeNothing() throws IOException {
        Files.writeString(Path.of(head, "treasury-limits.yaml"), """
                id: treasury-limits
                name: "Treasury limits"
                description: "Caps on single withdrawals and on the daily outflow of the treasury wallets."
                approval_group_id: "985976e8-9faf-4e44-a2ed-b01af2ca04cf"
                wallet_ids: [cea35e29-55d0-434c-9037-3c44148d4eca, f01e2e69-5683-4d4d-b304-197dc9ebcfcc]
                status: active
                version: 3
                rules:
                - {rule_id: treasury-single-cap, trigger_action: withdrawal.create, effect: DENY,
                   description: "a single treasury withdrawal may not exceed $250,000",
                   condition: "withdrawal.value_usd>250000"}
                - rule_id: treasury-daily-cap
                  effect: DENY
                  trigger_action: withdrawal.create
                  description: treasury wallets may not send more than $1,000,000 in 24 hours
                  condition: "has(wallet.outflow_24h) && wallet.outflow_24h + withdrawal.value_usd > 1000000"
                - rule_id: treasury-stablecoins-only
                  effect: DENY
                  trigger_action: withdrawal.create
                  description: above $50,000 the treasury only pays out in stablecoins
                  condition: |-
                    withdrawal.value_usd > 50000 &&
                    !(withdrawal.asset_symbol in ["USDC", "USDT"])
                """);
        Cli.Result r = review("--base", base, "--head", head, "--actions", STREAM);
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        assertEquals("", r.err());
        assertEquals(List.of(
                "**custody review:** policies: 0 added, 0 removed, 0 changed; rules: 0 added, 0 removed, 0 changed"
                        + " — no behaviour change (proved)",
                "",
                "### Every valid action",
                "",
                "Proved by the solver: base and head decide every valid action alike (decision and rule).",
                "",
                "Analysis: 0 rules the change touches on the base side, 0 on the head side.",
                "",
                "### Traffic",
                "",
                "`../examples/actions/stream.jsonl` (action stream): 1,200 actions, 0 decided differently.",
                ""), lines(r));
    }

    @Test
    void anEquivalentRewriteOfAConditionIsAChangeWithoutBehaviourChange() {
        edit("role-limits.yaml", "condition: principal.role == \"proposer\" && withdrawal.value_usd > 5000",
                "condition: withdrawal.value_usd > 5000 && principal.role == \"proposer\"");
        Cli.Result r = review("--base", base, "--head", head);
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        List<String> out = lines(r);
        assertEquals("**custody review:** policies: 0 added, 0 removed, 1 changed; rules: 0 added, 0 removed, 1 changed"
                + " — no behaviour change (proved)", out.get(0));
        // two alignments keep three words; a removal comes before an addition
        assertTrue(out.contains("| words | <code><del>principal.role == \"proposer\" &amp;&amp;</del> withdrawal.value_usd"
                + " &gt; 5000 <ins>&amp;&amp; principal.role == \"proposer\"</ins></code> |"), r.out());
        assertTrue(out.contains("**Behaviour:** proved: no valid action is decided differently through this rule."),
                r.out());
        assertTrue(out.contains("**Analysis:** no finding introduced or resolved."), r.out());
    }

    @Test
    void aDecisionLogIsDecidedOnBothSidesAsLogged() throws Exception {
        Path log = dir.resolve("decisions.jsonl");
        try (DecisionLog decisionLog = DecisionLog.of(JsonLinesDecisionSink.builder(log).build())) {
            PolicyEngine engine = PolicyEngine.builder(FilePolicySource.read(List.of(Path.of(base)))::policies)
                    .timeBudget(Duration.ofSeconds(30)).observer(decisionLog).build();
            for (String line : Files.readAllLines(Path.of(STREAM))) {
                if (ActionReader.read(line) instanceof ActionReader.Read a) {
                    engine.evaluate(a.action(), false);
                }
            }
        }
        addStablecoinHold();
        Cli.Result r = review("--base", base, "--head", head, "--from-log", log.toString());
        assertEquals(ExitCode.INPUT, r.exit(), r.toString());
        List<String> out = lines(r);
        assertEquals("**custody review:** policies: 0 added, 0 removed, 1 changed; rules: 1 added, 0 removed, 0 changed"
                + " — changes 284 decisions of 1,200 recorded", out.get(0));
        assertTrue(out.contains("`{dir}/decisions.jsonl` (decision log): 1,200 actions, 284 decided differently."),
                r.out());
        // each logged action as logged: what diff gives with the velocity sections as given
        Cli.Result diff = Cli.run("diff", "--base", base, "--head", head, "--actions", STREAM, "--velocity", "given",
                "--time-budget", "1m");
        List<String> table = diff.outLines().subList(diff.outLines().size() - 3, diff.outLines().size());
        assertEquals(List.of("  ALLOW → DENY               158", "  NO_MATCH → DENY            105",
                "  DENY → DENY (attribution)  21"), table);
        assertEquals(List.of("| transition | actions |", "|---|---:|", "| ALLOW → DENY | 158 |",
                "| NO_MATCH → DENY | 105 |", "| DENY → DENY (attribution) | 21 |"),
                section(out, "| transition | actions |", 5));
    }

    @Test
    void theSameSetsChangeNothingAndExitZero() {
        Cli.Result r = review("--base", base, "--head", base, "--actions", STREAM, "--format", "json");
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        JsonNode j = json(r);
        assertEquals("no_behaviour_change", j.get("verdict").asText());
        assertFalse(j.get("changes_behaviour").asBoolean());
        assertEquals(0, j.get("rule_changes").size());
        assertEquals(0, j.get("traffic").get("transitions").size());
    }

    @Test
    void theFirstPoliciesOfARepositoryAreAllAdded() throws IOException {
        Path empty = Files.createDirectories(dir.resolve("empty"));
        Cli.Result r = review("--base", empty.toString(), "--head", head, "--format", "json");
        assertEquals(ExitCode.INPUT, r.exit(), r.toString());
        JsonNode j = json(r);
        assertEquals("{\"added\":8,\"removed\":0,\"changed\":0}", j.get("policies").toString());
        assertEquals(20, j.get("rules").get("added").asInt());
        assertEquals("changes_behaviour", j.get("verdict").asText());
        Cli.Result none = review("--base", empty.toString(), "--head", empty.toString());
        assertEquals(ExitCode.INPUT, none.exit(), none.toString());
        assertEquals(List.of("error: no policy files (.json, .yaml, .yml) under `[" + empty + "]` nor `[" + empty
                + "]`"), none.errLines());
    }

    @Test
    void bothTrafficSourcesAreAUsageError() {
        Cli.Result r = review("--base", base, "--head", head, "--actions", STREAM, "--from-log", STREAM);
        assertEquals(ExitCode.USAGE, r.exit(), r.toString());
        assertEquals("", r.out());
        assertEquals("error: give `--actions FILE` or `--from-log LOG`, not both\n", r.err());
    }

    @Test
    void aMissingPolicyPathIsAnIoErrorOnOneLine() {
        Cli.Result r = review("--base", dir.resolve("nowhere").toString(), "--head", head);
        assertEquals(ExitCode.IO, r.exit(), r.toString());
        assertEquals("", r.out());
        assertEquals(List.of("error: `" + dir.resolve("nowhere") + "` does not exist"), r.errLines());
    }

    @Test
    void aMissingTrafficFileIsAnIoErrorOnOneLine() {
        Cli.Result r = review("--base", base, "--head", head, "--actions", dir.resolve("none.jsonl").toString());
        assertEquals(ExitCode.IO, r.exit(), r.toString());
        assertEquals("", r.out());
        assertEquals(List.of("error: `" + dir.resolve("none.jsonl") + "` does not exist"), r.errLines());
    }

    @Test
    void malformedYamlIsOneErrorLineWithItsLocation() throws IOException {
        Files.writeString(Path.of(head, "treasury-limits.yaml"), "id: treasury-limits\nrules: [\n  - rule_id: x\n");
        Cli.Result r = review("--base", base, "--head", head);
        assertEquals(ExitCode.INPUT, r.exit(), r.toString());
        assertEquals("", r.out());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().startsWith("error: head policies: " + Path.of(head, "treasury-limits.yaml") + ":"), r.err());
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), r.err());
    }

    @Test
    void malformedActionLinesAreReportedAndChangeTheExitCode() throws IOException {
        Path some = dir.resolve("some.jsonl");
        Files.write(some, List.of(Files.readAllLines(Path.of(STREAM)).get(0), "{"));
        Cli.Result r = review("--base", base, "--head", base, "--actions", some.toString());
        assertEquals(ExitCode.INPUT, r.exit(), r.toString());
        assertEquals(List.of("error: line 2: malformed action line: malformed JSON at column 2: unexpected "
                + "end-of-input: expected close marker for Object"),
                r.errLines());
        assertTrue(lines(r).contains("`{dir}/some.jsonl` (action stream): 2 actions, 0 decided differently, 1 not "
                + "readable (denied on both sides)."), r.out());
    }

    @Test
    void timingsGoToStderr() {
        Cli.Result r = review("--base", base, "--head", base, "--timings");
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        assertTrue(r.err().matches("timings: read \\d+\\.\\d\\d s, semantic \\d+\\.\\d\\d s, analysis \\d+\\.\\d\\d s, "
                + "output \\d+\\.\\d\\d s; total \\d+\\.\\d\\d s\n"), r.err());
    }

    /** {@code n} lines from the first that starts with {@code start}. */
    private static List<String> section(List<String> lines, String start, int n) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(start)) {
                return lines.subList(i, Math.min(lines.size(), i + n));
            }
        }
        return List.of();
    }

    private static JsonNode json(Cli.Result r) {
        try {
            return JSON.readTree(r.out());
        } catch (IOException e) {
            throw new UncheckedIOException(r.toString(), e);
        }
    }

    private static List<String> kinds(JsonNode semantic) {
        List<String> out = new ArrayList<>();
        semantic.get("differences").forEach(d -> out.add(d.get("from").asText() + " → " + d.get("to").asText()));
        return out;
    }

    /** Each witness of the report, replayed by {@code custody replay} on both sides, gives its claimed decisions. */
    private void assertWitnessesReplay(JsonNode report) throws IOException {
        List<JsonNode> diffs = new ArrayList<>();
        report.get("semantic").get("differences").forEach(diffs::add);
        report.get("rule_changes").forEach(c -> c.get("semantic").get("differences").forEach(diffs::add));
        assertFalse(diffs.isEmpty());
        for (JsonNode d : diffs) {
            Path w = dir.resolve("witness.jsonl");
            Files.writeString(w, d.get("witness").toString() + "\n");
            for (String side : List.of("base", "head")) {
                Cli.Result r = Cli.run("replay", "--policies", side.equals("base") ? base : head, "--actions",
                        w.toString(), "--velocity", "given", "--format", "jsonl", "--time-budget", "1m");
                JsonNode decided = JSON.readTree(r.out());
                JsonNode claimed = d.get(side);
                assertEquals(claimed.get("decision").asText(), decided.get("decision").asText(), d.toString());
                assertEquals(claimed.get("rule_id").asText(), decided.path("rule_id").asText("null"), d.toString());
            }
        }
    }
}
