package dev.custody.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.cli.CliEnvironment;
import dev.custody.cli.main.Custody;
import dev.custody.cli.ExitCode;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;

/** The example repository stays what the README says: lint-clean, its policy tests green, its stream current. */
class ExamplesTest {
    static final Path POLICIES = Path.of("policies");
    static final Path STREAM = Path.of("actions", "stream.jsonl");

    record Run(int exit, String out, String err) {}

    static Run custody(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CliEnvironment env = new CliEnvironment(new ByteArrayInputStream(new byte[0]), new PrintWriter(out),
                new PrintWriter(err), Clock.systemUTC(), false, false);
        int exit = Custody.commandLine(env).execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void thePoliciesLintWithoutErrorsOrWarnings() {
        Run r = custody("lint", "--strict", POLICIES.toString());
        assertEquals(ExitCode.OK, r.exit(), r.out() + r.err());
        assertEquals("6 files, 8 policies, 22 rules: 0 errors, 0 warnings\n", r.out());
    }

    @Test
    void thePolicyTestsPassAndCoverEveryRule() {
        Run r = custody("test", "--time-budget", "1m", POLICIES.resolve("tests").toString());
        assertEquals(ExitCode.OK, r.exit(), r.out() + r.err());
        assertTrue(r.out().endsWith("6 files, 35 cases: 35 passed, 0 failed\ncoverage: 20 of 20 rules matched\n"),
                r.out());
    }

    @Test
    void theCommittedStreamIsTheGeneratorsOutput() throws Exception {
        StringWriter generated = new StringWriter();
        try (PrintWriter p = new PrintWriter(generated)) {
            new ActionStreamGenerator(ActionStreamGenerator.DEFAULT_SEED).write(ActionStreamGenerator.DEFAULT_COUNT, p);
        }
        assertEquals(Files.readString(STREAM), generated.toString(),
                "regenerate it: java -cp examples/target/classes dev.custody.examples.ActionStreamGenerator "
                        + "--out examples/actions/stream.jsonl");
    }

    @Test
    void theStreamReplaysWithoutMalformedLinesOrFailures() {
        Run r = custody("replay", "--time-budget", "1m", "--policies", POLICIES.toString(), "--actions",
                STREAM.toString(), "--format", "jsonl");
        assertEquals(ExitCode.OK, r.exit(), r.err());
        assertEquals(1200, r.out().lines().count());
        assertTrue(r.out().lines().noneMatch(l -> l.contains("\"fail_closed\":true")), "no action fails closed");
        assertTrue(r.err().contains("  applied 430 `withdrawal.settled` events to the velocity ledger"), r.err());
    }
}
