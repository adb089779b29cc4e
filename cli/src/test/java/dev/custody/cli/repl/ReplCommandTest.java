package dev.custody.cli.repl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.cli.ExitCode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jline.terminal.Terminal;
import org.jline.terminal.impl.DumbTerminal;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code custody repl} as picocli runs it: options, both front-ends, exit codes, stdout and stderr. */
class ReplCommandTest {
    @TempDir
    Path dir;

    @BeforeEach
    void files() {
        ReplFixtures.copyFiles(dir);
    }

    private record Run(int exitCode, String out, String err) {}

    /** Runs the command with {@code stdin} piped in (no console), or on a console when {@code terminal} is given. */
    private Run run(InputStream stdin, boolean console, ReplCommand.TerminalFactory terminal, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new ReplCommand(stdin, ReplFixtures.CLOCK, () -> console, terminal, dir));
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(withBudget(args));
        return new Run(code, out.toString(), err.toString());
    }

    /**
     * The arguments with a generous time budget unless they set one: the default 100 ms is the engine's
     * business, and a loaded CI machine must not turn a result into a fail-closed error here.
     */
    private static String[] withBudget(String... args) {
        if (List.of(args).contains("--time-budget") || List.of(args).contains("--help")) {
            return args;
        }
        List<String> all = new ArrayList<>(List.of("--time-budget", "30000"));
        all.addAll(List.of(args));
        return all.toArray(String[]::new);
    }

    private Run piped(String stdin, String... args) {
        return run(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), false, ReplCommandTest::noTerminal,
                args);
    }

    private static Terminal noTerminal() {
        throw new AssertionError("no terminal may be opened without a console");
    }

    @Test
    void pipedInputIsAScriptWithPlainOutputAndNoPrompt() {
        Run r = piped(":set withdrawal.value_usd 12000\nwithdrawal.value_usd > 10000\n:policies limits.yaml\n:decide\n");
        assertEquals("""
                withdrawal.value_usd = 12000.0
                true
                loaded 1 file: 1 active policy, 2 enabled rules
                DENY
                  rule_id: big-withdrawal
                  policy_id: limits
                  reason: withdrawals over 10k USD need approval
                """, r.out());
        assertEquals("", r.err());
        assertEquals(ExitCode.OK, r.exitCode());
        assertFalse(r.out().contains("\u001b"), "no escape codes");
    }

    @Test
    void anyFailedEntryMakesTheExitCodeOne() {
        Run r = piped("withdrawal.amout > 1\ntrue\n");
        assertTrue(r.out().endsWith("true\n"), r.out());
        assertEquals(ExitCode.INPUT, r.exitCode());
    }

    @Test
    void noTtyReadsStandardInputEvenOnAConsole() {
        Run r = run(new ByteArrayInputStream("1 < 2\n".getBytes(StandardCharsets.UTF_8)), true,
                ReplCommandTest::noTerminal, "--no-tty");
        assertEquals(new Run(ExitCode.OK, "true\n", ""), r);
    }

    @Test
    void startupOptionsRunBeforeTheFirstEntry() {
        Run r = piped("principal.role == \"signer\" && resource.gas_limit > 50000\n:nope\n",
                "--action", "web3.contract_call", "--at", "2026-11-08T03:30:00Z", "--payload", "call.json",
                "--policies", "limits.yaml", "vip.yaml");
        assertEquals("""
                at: 2026-11-08T03:30:00Z (context.hour == 3, context.day_of_week == "Sunday")
                loaded web3.contract_call action from `call.json` (7 fields)
                vip.yaml:6:26: warning[unguarded_optional_read] `principal.user_email` is optional and read without a `has()` guard (hint: when it is absent the rule fails and the action is denied; write `has(principal.user_email) && …`)
                loaded 2 files: 2 active policies, 3 enabled rules
                true
                error: unknown command `:nope`; `:help` lists the commands
                """, r.out());
        assertEquals(ExitCode.INPUT, r.exitCode());
    }

    @Test
    void aFailedStartupOptionFailsTheScript() {
        Run r = piped("true\n", "--payload", "missing.json");
        assertEquals("error: `missing.json` does not exist\ntrue\n", r.out());
        assertEquals(ExitCode.INPUT, r.exitCode());
    }

    @Test
    void usageErrorsExitTwo() {
        Run badAction = piped("", "--action", "withdrawal");
        assertEquals(ExitCode.USAGE, badAction.exitCode());
        assertTrue(badAction.err().contains("unknown action `withdrawal`; actions: withdrawal.create, web3.contract_call"),
                badAction.err());
        Run badBudget = piped("", "--time-budget", "0");
        assertEquals(ExitCode.USAGE, badBudget.exitCode());
        assertTrue(badBudget.err().contains("--time-budget must be a positive number of milliseconds, got 0"),
                badBudget.err());
        assertEquals(ExitCode.USAGE, piped("", "--colour").exitCode());
    }

    @Test
    void helpDescribesTheOptionsAndTheScriptMode() {
        Run r = piped("", "--help");
        assertEquals(ExitCode.OK, r.exitCode());
        for (String option : List.of("--action", "--payload", "--policies", "--at", "--history", "--no-tty",
                "--time-budget")) {
            assertTrue(r.out().contains(option), option + " in\n" + r.out());
        }
        assertTrue(r.out().contains("no prompt is printed"), r.out());
    }

    @Test
    void unreadableStandardInputExitsThree() {
        InputStream broken = new InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("device gone");
            }
        };
        Run r = run(broken, false, ReplCommandTest::noTerminal);
        assertEquals(ExitCode.IO, r.exitCode());
        assertEquals("error: cannot read standard input: device gone\n", r.err());
    }

    @Test
    void onAConsoleTheShellRunsOnTheTerminalWithItsHistoryFile() throws IOException {
        ByteArrayOutputStream screen = new ByteArrayOutputStream();
        byte[] keys = ":set withdrawal.value_usd 5\nwithdrawal.value_usd < 10\n:nope\n".getBytes(StandardCharsets.UTF_8);
        Path history = dir.resolve("history/custody");
        Files.createDirectories(history.getParent());
        Run r = run(new ByteArrayInputStream(new byte[0]), true,
                () -> new DumbTerminal("test", Terminal.TYPE_DUMB, new ByteArrayInputStream(keys), screen,
                        StandardCharsets.UTF_8),
                "--history", history.toString(), "--at", "2026-11-02T14:05:00Z");
        assertEquals(new Run(ExitCode.OK, "", ""), r);
        assertEquals("""
                custody repl: `:help` lists the commands, Ctrl-D leaves
                at: 2026-11-02T14:05:00Z (context.hour == 14, context.day_of_week == "Monday")
                withdrawal.create> withdrawal.value_usd = 5.0
                withdrawal.create> true
                withdrawal.create> error: unknown command `:nope`; `:help` lists the commands
                withdrawal.create>\s""", screen.toString(StandardCharsets.UTF_8));
        List<String> saved = Files.readAllLines(history);
        assertEquals(3, saved.size(), saved.toString());
        assertTrue(saved.get(2).endsWith(":nope"), saved.toString());
    }

    @Test
    void aHistoryFileThatCannotBeUsedIsLeftAloneWithAWarning() throws IOException {
        Path history = dir.resolve("old_history");
        Files.writeString(history, "an older format\n");
        ByteArrayOutputStream screen = new ByteArrayOutputStream();
        Run r = run(new ByteArrayInputStream(new byte[0]), true,
                () -> new DumbTerminal("test", Terminal.TYPE_DUMB,
                        new ByteArrayInputStream("true\n".getBytes(StandardCharsets.UTF_8)), screen, StandardCharsets.UTF_8),
                "--history", history.toString());
        assertEquals(new Run(ExitCode.OK, "", "warning: history not kept: `" + history
                + "` is not a history file (lines are `<epoch millis>:<entry>`)\n"), r);
        assertTrue(screen.toString(StandardCharsets.UTF_8).endsWith("withdrawal.create> true\nwithdrawal.create> "));
        assertEquals("an older format\n", Files.readString(history));
    }

    @Test
    void aTerminalThatCannotBeOpenedExitsThree() {
        Run r = run(new ByteArrayInputStream(new byte[0]), true, () -> {
            throw new IOException("no tty");
        });
        assertEquals(new Run(ExitCode.IO, "", "error: cannot open the terminal: no tty\n"), r);
    }
}
