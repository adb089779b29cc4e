package dev.custody.cli.repl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.custody.cli.ExitCode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Entries from piped input: plain output, multi-line entries, and the exit code. */
class ScriptRunnerTest {
    @TempDir
    Path dir;

    @BeforeEach
    void files() {
        ReplFixtures.copyFiles(dir);
    }

    private record Result(int exitCode, String output) {}

    private Result run(String input, boolean failedBefore) throws IOException {
        StringWriter buffer = new StringWriter();
        PrintWriter out = new PrintWriter(buffer);
        Session session = ReplFixtures.session(out, dir);
        int code = new ScriptRunner(session, out).run(new BufferedReader(new StringReader(input)), failedBefore);
        out.flush();
        return new Result(code, buffer.toString());
    }

    @Test
    void eachEntryPrintsOnlyItsResult() throws IOException {
        Result r = run("""
                # checks for the 10k limit
                :set withdrawal.value_usd 12000

                withdrawal.value_usd > 10000
                withdrawal.value_usd > 20000
                """, false);
        assertEquals("withdrawal.value_usd = 12000.0\ntrue\nfalse\n", r.output());
        assertEquals(ExitCode.OK, r.exitCode());
    }

    @Test
    void anErrorDoesNotStopTheScriptButFailsIt() throws IOException {
        Result r = run("""
                :set withdrawal.value_usd lots
                withdrawal.amout > 1
                :set withdrawal.value_usd 5
                withdrawal.value_usd == 5.0
                """, false);
        assertEquals("""
                error: `withdrawal.value_usd` is a number; `lots` is not
                error[unknown_field] 1:12: unknown field `withdrawal.amout`
                 | withdrawal.amout > 1
                 | ...........^
                 = hint: did you mean `withdrawal.amount`?
                withdrawal.value_usd = 5.0
                true
                """, r.output());
        assertEquals(ExitCode.INPUT, r.exitCode());
    }

    @Test
    void openBracketsAndQuotesContinueOnTheNextLines() throws IOException {
        Result r = run("""
                :set withdrawal.value_usd 50
                (withdrawal.value_usd > 10 &&
                  // a comment with a ( does not count
                  withdrawal.value_usd < 100)
                :action web3.contract_call
                :set resource.decoded_args {
                  "to": "0x12"
                }
                has(resource.decoded_args.to) && resource.decoded_args.to == '''0x12'''
                """, false);
        assertEquals("""
                withdrawal.value_usd = 50.0
                true
                action: web3.contract_call
                fields that do not apply to web3.contract_call (kept): withdrawal.value_usd
                resource.decoded_args = {"to":"0x12"}
                true
                """, r.output());
        assertEquals(ExitCode.OK, r.exitCode());
    }

    @Test
    void inputEndingInsideAnEntryIsAnError() throws IOException {
        Result r = run("true\n[1, 2].exists(x,\n  x == \"2\n", false);
        assertEquals("true\nerror: input ended inside an unfinished entry (`\")` missing)\n", r.output());
        assertEquals(ExitCode.INPUT, r.exitCode());
    }

    @Test
    void quitStopsReading() throws IOException {
        Result r = run("true\n:quit\n:nope\n", false);
        assertEquals("true\n", r.output());
        assertEquals(ExitCode.OK, r.exitCode());
        Result failed = run(":nope\n:quit\ntrue\n", false);
        assertEquals("error: unknown command `:nope`; `:help` lists the commands\n", failed.output());
        assertEquals(ExitCode.INPUT, failed.exitCode());
    }

    @Test
    void emptyInputSucceedsUnlessSomethingFailedBefore() throws IOException {
        assertEquals(new Result(ExitCode.OK, ""), run("", false));
        assertEquals(new Result(ExitCode.INPUT, ""), run("", true));
    }
}
