package dev.custody.cli.main;

import dev.custody.cli.CliEnvironment;
import dev.custody.cli.Cli;
import dev.custody.cli.ExitCode;
import dev.custody.cli.Style;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;

class CustodyTest {
    static final List<String> VERBS = List.of("validate", "lint", "eval", "replay", "diff", "test", "bench", "schema",
            "analyze");

    @Test
    void versionPrintsTheProjectVersion() {
        Cli.Result r = Cli.run("--version");
        assertEquals(ExitCode.OK, r.exit());
        assertTrue(r.outLines().get(0).matches("custody \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"), r.out());
        for (String verb : VERBS) {
            assertEquals(r.out(), Cli.run(verb, "--version").out(), verb);
        }
    }

    @Test
    void helpListsEveryVerbAndTheExitCodes() {
        Cli.Result r = Cli.run("--help");
        assertEquals(ExitCode.OK, r.exit());
        for (String verb : VERBS) {
            assertTrue(r.out().contains("\n  " + verb + " "), verb);
        }
        assertTrue(r.out().contains("Exit codes:\n    0   success"), r.out());
    }

    @Test
    void everyVerbHasHelpWithExamplesAndTheExitCodes() {
        CommandLine cl = Custody.commandLine(env(new StringWriter()));
        for (String verb : VERBS) {
            Cli.Result r = Cli.run(verb, "--help");
            assertEquals(ExitCode.OK, r.exit(), verb);
            assertTrue(r.out().contains("\nExamples:\n  custody " + verb), verb + ":\n" + r.out());
            assertTrue(r.out().contains("\nExit codes:\n"), verb);
            for (String line : cl.getSubcommands().get(verb).getCommandSpec().usageMessage().footer()) {
                assertTrue(line.length() <= 80, verb + " footer line wider than the help: " + line);
            }
            for (String line : r.outLines()) {
                assertTrue(line.length() <= 80, verb + ": " + line);
            }
        }
    }

    @Test
    void noCommandPrintsTheUsageOnStandardErrorAndExitsTwo() {
        Cli.Result r = Cli.run();
        assertEquals(ExitCode.USAGE, r.exit());
        assertEquals("", r.out());
        assertTrue(r.err().startsWith("Usage: custody [-hV] [--debug] [COMMAND]"), r.err());
    }

    @Test
    void anUnknownCommandIsAUsageError() {
        Cli.Result r = Cli.run("frobnicate");
        assertEquals(ExitCode.USAGE, r.exit());
        assertEquals("error: unknown command `frobnicate`; see `custody --help`\n", r.err());
        assertEquals("error: unknown command `valdate` (did you mean `validate`?); see `custody --help`\n",
                Cli.run("valdate").err());
    }

    @Test
    void anInternalErrorIsOneLineAndExitThreeWithTheStackTraceOnlyWithDebug() {
        StringWriter err = new StringWriter();
        CommandLine cl = Custody.commandLine(env(err));
        cl.addSubcommand("boom", new Boom());
        cl.setErr(new PrintWriter(err, true));
        cl.setExecutionExceptionHandler(new ErrorHandler());
        assertEquals(ExitCode.IO, cl.execute("boom"));
        assertEquals("error: internal error: IllegalStateException: the flux capacitor (run with `--debug` for the "
                + "stack trace)\n", err.toString());
        err.getBuffer().setLength(0);
        assertEquals(ExitCode.IO, cl.execute("--debug", "boom"));
        assertTrue(err.toString().startsWith("error: internal error: IllegalStateException: the flux capacitor\n"
                + "java.lang.IllegalStateException: the flux capacitor\n\tat "), err.toString());
    }

    @Test
    void theApiClientIsASubcommand() {
        Cli.Result r = Cli.run("api");
        assertEquals(ExitCode.USAGE, r.exit());
        assertTrue(r.err().startsWith("error: `custody api` needs a subcommand: one of `networks`"), r.err());
        assertEquals(ExitCode.OK, Cli.run("api", "--help").exit());
        assertTrue(Cli.run("--help").out().contains("\n  api "), "listed in the help");
    }

    @Test
    void aRunBuildsOnlyTheVerbItNamesAndEveryVerbOtherwise() {
        StringWriter err = new StringWriter();
        assertEquals(List.of("validate"), List.copyOf(Custody.commandLine(env(err), "validate").getSubcommands().keySet()));
        assertEquals(Custody.VERBS.size(), Custody.commandLine(env(err), "valdate").getSubcommands().size());
        assertEquals(Custody.VERBS.size(), Custody.commandLine(env(err), "--help").getSubcommands().size());
        assertEquals(Custody.VERBS.size(), Custody.commandLine(env(err), null).getSubcommands().size());
    }

    @Test
    void theReplIsASubcommand() {
        Cli.Result r = Cli.run("repl", "--help");
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        assertTrue(r.out().startsWith("Usage: custody repl"), r.out());
    }

    @Test
    void debugIsAcceptedAfterTheVerbToo() {
        assertEquals(ExitCode.OK, Cli.run("schema", "--debug", "--format", "json").exit());
    }

    @Test
    void errorLinesFollowTheStyle() {
        assertEquals("unknown option: `--x`", ErrorHandler.style("Unknown option: '--x'."));
        assertEquals("URL is bad", ErrorHandler.style("URL is bad"));
    }

    @Test
    void colourIsOffWithoutATerminal() {
        Cli.Result r = Cli.run("validate", "--action", "withdrawal.create", "--effect", "DENY", "x > 1");
        assertFalse(r.out().contains("\u001b["), r.out());
        assertEquals("\u001b[31mx\u001b[0m", new Style(true).red("x"));
        assertEquals("x", new Style(false).red("x"));
    }

    private static CliEnvironment env(StringWriter err) {
        return new CliEnvironment(new ByteArrayInputStream(new byte[0]), new PrintWriter(new StringWriter()),
                new PrintWriter(err, true), Clock.systemUTC(), false, false);
    }

    @Command(name = "boom")
    static final class Boom implements Callable<Integer> {
        @Override
        public Integer call() {
            throw new IllegalStateException("the flux capacitor");
        }
    }
}
