package dev.custody.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.custody.cli.Cli;
import dev.custody.cli.CliEnvironment;
import dev.custody.cli.ExitCode;
import dev.custody.cli.main.Custody;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code custody analyze --jobs}, {@code --deadline}, and its progress line on a terminal only. */
class AnalyzeRunOptionsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String REVIEW = "../examples/analysis/review.yaml";

    /** Each finding's kind, rule and message (a witness is any action the solver finds, so it is left out). */
    private static List<String> claims(String json) throws Exception {
        List<String> out = new ArrayList<>();
        for (JsonNode f : JSON.readTree(json).get("findings")) {
            out.add(f.get("kind").asText() + " " + f.get("rule_id").asText() + " " + f.get("related") + " "
                    + f.get("message").asText());
        }
        return out;
    }

    @Test
    void oneJobAndTwoJobsFindTheSame() throws Exception {
        Cli.Result one = Cli.run("analyze", "--jobs", "1", "--format", "json", REVIEW);
        Cli.Result two = Cli.run("analyze", "--jobs", "2", "--format", "json", REVIEW);
        assertEquals(ExitCode.INPUT, one.exit(), one.err());
        assertEquals(ExitCode.INPUT, two.exit(), two.err());
        assertEquals(7, claims(one.out()).size());
        assertEquals(claims(one.out()), claims(two.out()));
        assertEquals("", two.err());
    }

    @Test
    void aTinyDeadlineGivesUnknownFindingsAndExitsAsUsual() {
        Cli.Result r = Cli.run("analyze", "--deadline", "1ms", "../examples/policies");
        assertEquals(ExitCode.OK, r.exit(), r.err());
        List<String> lines = r.outLines();
        assertEquals(21, lines.size(), r.out());
        assertEquals("examples/policies/address-book-hygiene.json:8:5: info[unknown] address-book-hygiene/"
                + "unlisted-destination: not analysed: the analysis deadline passed before this rule was done; "
                + "nothing is claimed", lines.get(0).replaceFirst("^\\.\\./", ""));
        for (String l : lines.subList(0, 20)) {
            assertTrue(l.matches("\\S+:\\d+:\\d+: info\\[unknown\\] \\S+/\\S+: not analysed: the analysis deadline passed "
                    + "before this rule was done; nothing is claimed"), l);
        }
        assertEquals("20 rules, 0 analysed: 0 errors, 0 warnings, 20 notes", lines.get(20));
        assertEquals("", r.err());
    }

    @Test
    void badJobsAndDeadlinesAreUsageErrors() {
        Cli.Result jobs = Cli.run("analyze", "--jobs", "0", "../examples/policies");
        assertEquals(ExitCode.USAGE, jobs.exit());
        assertTrue(jobs.err().startsWith("error: `--jobs` must be at least 1, got `0`"), jobs.err());
        Cli.Result deadline = Cli.run("analyze", "--deadline", "soon", "../examples/policies");
        assertEquals(ExitCode.USAGE, deadline.exit());
        assertTrue(deadline.err().contains("`soon` is not a duration such as `500ms`, `2s` or `1m`"), deadline.err());
    }

    @Test
    void noProgressWhenStderrIsNotATerminal() {
        Cli.Result r = Cli.run("analyze", "../examples/policies");
        assertEquals("20 rules, 20 analysed: 0 errors, 0 warnings, 0 notes\n", r.out());
        assertEquals("", r.err());
    }

    @Test
    void progressOnATerminalCountsRulesAndIsErasedAtTheEnd() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CliEnvironment terminal = new CliEnvironment(new ByteArrayInputStream(new byte[0]), new PrintWriter(out),
                new PrintWriter(err), Clock.fixed(Cli.NOW, java.time.ZoneOffset.UTC), false, true);
        int exit = Custody.commandLine(terminal).execute("analyze", "../examples/policies");
        terminal.err().flush();
        assertEquals(ExitCode.OK, exit);
        assertEquals("20 rules, 20 analysed: 0 errors, 0 warnings, 0 notes\n", out.toString());
        // the last count is always drawn, then erased so that the report starts on a clean line
        assertTrue(err.toString().matches("(?s)\r(analyze: \\d+/20 rules, \\d+\\.\\d s\u001b\\[K\r)*"
                + "analyze: 20/20 rules, \\d+\\.\\d s\u001b\\[K\r\u001b\\[K"), err.toString());
    }

    @Test
    void theProgressLineSaysRulesDoneOfTotalAndElapsed() {
        assertEquals("\ranalyze: 120/2500 rules, 3.5 s\u001b[K",
                AnalyzeCommand.RuleProgress.line(120, 2500, 3_500_000_000L));
        StringWriter err = new StringWriter();
        AnalyzeCommand.RuleProgress off = new AnalyzeCommand.RuleProgress(new PrintWriter(err), false);
        off.rules(5, 5);
        off.done();
        assertEquals("", err.toString());
    }
}
