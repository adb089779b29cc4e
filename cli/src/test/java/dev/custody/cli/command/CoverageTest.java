package dev.custody.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.cli.Cli;
import dev.custody.cli.ExitCode;
import dev.custody.cli.Fixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --coverage}, {@code --coverage-html} and {@code --coverage-threshold} on {@code test} and {@code replay}
 * (docs/design.md §5.3): the exact JSON, short-circuits left at zero, positions inside the condition, the
 * threshold's exit codes, escaped HTML, and decisions that coverage does not change.
 */
class CoverageTest {
    static final String POLICY = """
            id: cov
            name: "Coverage <script>alert('x')</script> & co"
            approval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf
            rules:
              - rule_id: big-untrusted
                trigger_action: withdrawal.create
                effect: DENY
                condition: withdrawal.value_usd > 1000.0 && !withdrawal.is_whitelisted
              - rule_id: small-or-owner
                trigger_action: withdrawal.create
                effect: ALLOW
                condition: |
                  withdrawal.value_usd < 100.0
                    || principal.role == "<owner>&'"
              - rule_id: off
                trigger_action: withdrawal.create
                effect: DENY
                is_enabled: false
                condition: withdrawal.value_usd > 1.0
            """;

    static final String EXPECTED_JSON = "{\"rules\":["
            + "{\"policy_id\":\"cov\",\"rule_id\":\"big-untrusted\",\"action\":\"withdrawal.create\",\"evaluated\":3,"
            + "\"true\":1,\"false\":2,\"error\":0},"
            + "{\"policy_id\":\"cov\",\"rule_id\":\"small-or-owner\",\"action\":\"withdrawal.create\",\"evaluated\":2,"
            + "\"true\":1,\"false\":1,\"error\":0}],"
            + "\"branches\":["
            + "{\"policy_id\":\"cov\",\"rule_id\":\"big-untrusted\",\"line\":1,\"column\":1,"
            + "\"text\":\"withdrawal.value_usd > 1000.0\",\"true\":2,\"false\":1},"
            + "{\"policy_id\":\"cov\",\"rule_id\":\"big-untrusted\",\"line\":1,\"column\":34,"
            + "\"text\":\"!withdrawal.is_whitelisted\",\"true\":1,\"false\":1},"
            + "{\"policy_id\":\"cov\",\"rule_id\":\"big-untrusted\",\"line\":1,\"column\":35,"
            + "\"text\":\"withdrawal.is_whitelisted\",\"true\":1,\"false\":1},"
            + "{\"policy_id\":\"cov\",\"rule_id\":\"small-or-owner\",\"line\":1,\"column\":1,"
            + "\"text\":\"withdrawal.value_usd < 100.0\",\"true\":1,\"false\":1},"
            + "{\"policy_id\":\"cov\",\"rule_id\":\"small-or-owner\",\"line\":2,\"column\":6,"
            + "\"text\":\"principal.role == \\\"<owner>&'\\\"\",\"true\":0,\"false\":1}]}\n";

    @TempDir
    Path dir;

    String policies;
    String tests;
    String actions;

    @BeforeEach
    void files() {
        policies = Cli.write(dir, "policies/cov.yaml", POLICY);
        // 5000 $ to a listed address: both rules false -> NO_MATCH;
        // 5000 $ unlisted: big-untrusted true -> DENY (small-or-owner is not evaluated);
        // 50 $ unlisted: the left operand of && is false, so `!withdrawal.is_whitelisted` is not evaluated, and the
        // left operand of || is true, so the role comparison is not either -> ALLOW
        tests = Cli.write(dir, "policies/tests/cov.test.yaml", """
                policies: [../cov.yaml]
                cases:
                  - name: a listed big one goes to approval
                    action: %s
                    expect: {decision: NO_MATCH}
                  - name: an unlisted big one is denied
                    action: %s
                    expect: {decision: DENY, rule_id: big-untrusted}
                  - name: a small one is allowed
                    action: %s
                    expect: {decision: ALLOW, rule_id: small-or-owner}
                """.formatted(Fixtures.withdrawal("t-1", 5000, true), Fixtures.withdrawal("t-2", 5000, false),
                Fixtures.withdrawal("t-3", 50, false)));
        actions = Cli.write(dir, "actions.jsonl", String.join("\n", Fixtures.withdrawal("a-1", 5000, true),
                Fixtures.withdrawal("a-2", 5000, false), Fixtures.withdrawal("a-3", 50, false)) + "\n");
    }

    private static Cli.Result test(String... args) {
        return Cli.run(Stream.concat(Stream.of("test", "--time-budget", "1m"), Stream.of(args)).toArray(String[]::new));
    }

    private static Cli.Result replay(String... args) {
        return Cli.run(Stream.concat(Stream.of("replay", "--time-budget", "1m"), Stream.of(args)).toArray(String[]::new));
    }

    @Test
    void testWritesTheJsonOfDesignSevenWithShortCircuitsAtZero() throws IOException {
        Path out = dir.resolve("coverage.json");
        Cli.Result r = test(tests, "--coverage", out.toString());
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        assertEquals(EXPECTED_JSON, Files.readString(out));
        // 5 branches, 10 outcomes; seen: 2 + 2 + 2 + 2 + 1 = 9
        assertEquals(List.of("branch coverage: 9 of 10 outcomes seen (90.0 %); 2 of 2 rules evaluated"), r.errLines());
    }

    @Test
    void replayCountsTheSameAndDecidesTheSame() throws IOException {
        Path out = dir.resolve("replay-coverage.json");
        Cli.Result plain = replay("--policies", policies, "--actions", actions, "--format", "jsonl");
        Cli.Result covered = replay("--policies", policies, "--actions", actions, "--format", "jsonl",
                "--coverage", out.toString());
        assertEquals(ExitCode.OK, covered.exit(), covered.toString());
        assertEquals(plain.outWithoutTimings(), covered.outWithoutTimings());
        assertEquals(3, covered.outLines().size());
        assertEquals(EXPECTED_JSON, Files.readString(out));
        assertEquals("branch coverage: 9 of 10 outcomes seen (90.0 %); 2 of 2 rules evaluated",
                covered.errLines().get(covered.errLines().size() - 1));
    }

    @Test
    void theThresholdFailsBelowAndPassesAtOrAbove() {
        Cli.Result below = test(tests, "--coverage-threshold", "90.01");
        assertEquals(ExitCode.INPUT, below.exit(), below.toString());
        assertEquals(List.of("branch coverage: 9 of 10 outcomes seen (90.0 %); 2 of 2 rules evaluated",
                "error: branch coverage 90.0 % is below the threshold of 90.01 %"), below.errLines());
        Cli.Result at = test(tests, "--coverage-threshold", "90");
        assertEquals(ExitCode.OK, at.exit(), at.toString());
        Cli.Result replayBelow = replay("--policies", policies, "--actions", actions, "--coverage-threshold", "95%");
        assertEquals(ExitCode.INPUT, replayBelow.exit(), replayBelow.toString());
    }

    @Test
    void badCoverageOptionsAreOneLineErrors() {
        Cli.Result percent = test(tests, "--coverage-threshold", "150");
        assertEquals(ExitCode.USAGE, percent.exit(), percent.toString());
        assertTrue(percent.err().contains("`150` is not a percentage from 0 to 100"), percent.toString());
        Cli.Result noDir = test(tests, "--coverage", dir.resolve("missing/coverage.json").toString());
        assertEquals(ExitCode.IO, noDir.exit(), noDir.toString());
        assertEquals(List.of("error: cannot write coverage to `" + dir.resolve("missing/coverage.json")
                + "`: no directory `" + dir.resolve("missing") + "`"), noDir.errLines());
        assertEquals("", noDir.out(), "nothing ran");
    }

    @Test
    void htmlPagesMarkEveryBranchAndEscapeEverything() throws IOException {
        Path html = dir.resolve("html");
        Cli.Result r = test(tests, "--coverage-html", html.toString());
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        try (Stream<Path> files = Files.list(html)) {
            assertEquals(2, files.count(), "index.html and one page for the one policy file");
        }
        String index = Files.readString(html.resolve("index.html"));
        String name = policies.replaceAll("[^A-Za-z0-9._-]", "_") + ".html";
        assertTrue(index.contains("href=\"" + name + "\""), index);
        String page = Files.readString(html.resolve(name));
        // nothing from the file reaches the page unescaped
        assertFalse(page.contains("<script>"), page);
        assertFalse(page.contains("<owner>"), page);
        assertTrue(page.contains("Coverage &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co"), page);
        // each branch marked with what was seen; the short-circuited operand of || stays false-only
        assertTrue(page.contains("<span class=\"b both\" title=\"line 1, column 1: seen true and false (true 2, "
                + "false 1)\">withdrawal.value_usd &gt; 1000.0</span> &amp;&amp; <span class=\"b both\""), page);
        assertTrue(page.contains("<span class=\"b f\" title=\"line 2, column 6: seen false only (true 0, false 1)\">"
                + "principal.role == &quot;&lt;owner&gt;&amp;&#39;&quot;</span>"), page);
        // the table places a branch in the file (in a YAML block scalar: line 14 of the file, after its indentation)
        assertTrue(page.contains("<td>" + policies + ":14:12</td><td><code>principal.role == "), page);
        // a disabled rule is shown, not counted
        assertTrue(page.contains("not counted: a disabled rule"), page);
        assertTrue(page.contains("9 of 10 branch outcomes seen (90.0 %); 2 of 2 rules evaluated"), page);
    }
}
