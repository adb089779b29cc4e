package dev.custody.cli.repl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.cli.ExitCode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jline.reader.EndOfFileException;
import org.jline.reader.History;
import org.jline.reader.LineReader;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Size;
import org.jline.terminal.Terminal;
import org.jline.terminal.impl.DumbTerminal;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The jline front-end: scripted sessions through test terminals, completion on Tab, Ctrl-C, Ctrl-D, history. */
class TerminalRunnerTest {
    @TempDir
    Path dir;

    @BeforeEach
    void files() {
        ReplFixtures.copyFiles(dir);
    }

    /** A session through a dumb terminal fed with {@code input}: what the terminal showed, and the exit code. */
    private record Transcript(String output, int exitCode, LineReader reader) {}

    private Transcript dumbSession(String input, Path history) throws IOException {
        ByteArrayOutputStream screen = new ByteArrayOutputStream();
        try (Terminal terminal = new DumbTerminal("test", Terminal.TYPE_DUMB,
                new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), screen, StandardCharsets.UTF_8)) {
            Session session = ReplFixtures.session(terminal.writer(), dir);
            LineReader reader = TerminalRunner.lineReader(terminal, session, history, false);
            int code = TerminalRunner.run(session, reader::readLine);
            reader.getHistory().save();
            terminal.flush();
            return new Transcript(screen.toString(StandardCharsets.UTF_8), code, reader);
        }
    }

    /**
     * A session through a terminal of a type with key bindings (Tab completes, arrows move through the
     * history). Its screen holds escape codes, so tests check what was run: the history, and the session's
     * own output.
     */
    private Transcript editingSession(String input, Path history) throws IOException {
        ByteArrayOutputStream screen = new ByteArrayOutputStream();
        StringWriter results = new StringWriter();
        try (Terminal terminal = new DumbTerminal("test", "xterm",
                new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), screen, StandardCharsets.UTF_8)) {
            terminal.setSize(new Size(160, 40));
            PrintWriter out = new PrintWriter(results);
            Session session = ReplFixtures.session(out, dir);
            LineReader reader = TerminalRunner.lineReader(terminal, session, history, true);
            int code = TerminalRunner.run(session, reader::readLine);
            reader.getHistory().save();
            return new Transcript(results.toString(), code, reader);
        }
    }

    private static List<String> entries(History history) {
        List<String> out = new ArrayList<>();
        history.forEach(e -> out.add(e.line()));
        return out;
    }

    @Test
    void scriptedSessionPrintsThePromptAndEachResult() throws IOException {
        Transcript t = dumbSession("""
                :set withdrawal.value_usd 12000
                withdrawal.value_usd > 10000
                withdrawal.amout > 1
                :set withdrawal.value_usd abc
                :action web3.contract_call
                !has(resource.method_name)
                """, dir.resolve("history"));
        assertEquals("""
                withdrawal.create> withdrawal.value_usd = 12000.0
                withdrawal.create> true
                withdrawal.create> error[unknown_field] 1:12: unknown field `withdrawal.amout`
                 | withdrawal.amout > 1
                 | ...........^
                 = hint: did you mean `withdrawal.amount`?
                withdrawal.create> error: `withdrawal.value_usd` is a number; `abc` is not
                withdrawal.create> action: web3.contract_call
                fields that do not apply to web3.contract_call (kept): withdrawal.value_usd
                web3.contract_call> true
                web3.contract_call>\s""", t.output());
        assertEquals(ExitCode.OK, t.exitCode());
    }

    @Test
    void openBracketsAndQuotesContinueOnTheNextLine() throws IOException {
        Transcript t = dumbSession("""
                :set withdrawal.value_usd 50
                (withdrawal.value_usd > 10 &&
                  withdrawal.value_usd < 100)
                [1, 2,
                 3].exists(x,
                   x == 3)
                :set principal.user_email "ops
                @example.com"
                :action web3.contract_call
                :set resource.decoded_args {"to":
                  "0x12",
                  "value": "5"}
                """, dir.resolve("history"));
        assertEquals("""
                withdrawal.create> withdrawal.value_usd = 50.0
                withdrawal.create> true
                withdrawal.create> true
                withdrawal.create> error: `principal.user_email` is a string; `"ops
                @example.com"` is not a valid quoted string
                withdrawal.create> action: web3.contract_call
                fields that do not apply to web3.contract_call (kept): withdrawal.value_usd
                web3.contract_call> resource.decoded_args = {"to":"0x12","value":"5"}
                web3.contract_call>\s""", t.output());
        assertEquals(List.of(":set withdrawal.value_usd 50", "(withdrawal.value_usd > 10 &&\n  withdrawal.value_usd < 100)",
                "[1, 2,\n 3].exists(x,\n   x == 3)", ":set principal.user_email \"ops\n@example.com\"",
                ":action web3.contract_call", ":set resource.decoded_args {\"to\":\n  \"0x12\",\n  \"value\": \"5\"}"),
                entries(t.reader().getHistory()));
    }

    @Test
    void quitLeavesWithoutReadingFurther() throws IOException {
        Transcript t = dumbSession("true\n:quit\nfalse\n", dir.resolve("history"));
        assertEquals("withdrawal.create> true\nwithdrawal.create> ", t.output());
        assertEquals(ExitCode.OK, t.exitCode());
    }

    @Test
    void errorsDoNotChangeTheInteractiveExitCode() throws IOException {
        Transcript t = dumbSession(":nope\n:load missing.json\n:policies broken.yaml\n", dir.resolve("history"));
        assertEquals(ExitCode.OK, t.exitCode());
        assertTrue(t.output().endsWith("withdrawal.create> "), t.output());
    }

    @Test
    void tabCompletesFieldsAndCommandsInTheLineEditor() throws IOException {
        Transcript t = editingSession(":se\twithdrawal.valu\t12000\nwithdrawal.valu\t > 100\n:set principal.ro\tadm\t\n"
                + "principal.role == \"admin\"\n", dir.resolve("history"));
        assertEquals(List.of(":set withdrawal.value_usd 12000", "withdrawal.value_usd > 100", ":set principal.role admin",
                "principal.role == \"admin\""), entries(t.reader().getHistory()));
        assertEquals("withdrawal.value_usd = 12000.0\ntrue\nprincipal.role = \"admin\"\ntrue\n", t.output());
    }

    @Test
    void historyIsKeptAcrossSessionsInTheHistoryFile() throws IOException {
        Path history = dir.resolve("sub/custody_history");
        Files.createDirectories(history.getParent());
        dumbSession(":set withdrawal.value_usd 7\nwithdrawal.value_usd == 7.0\n", history);
        List<String> saved = Files.readAllLines(history);
        assertEquals(2, saved.size(), saved.toString());
        assertTrue(saved.get(0).endsWith(":set withdrawal.value_usd 7"), saved.toString());
        assertTrue(saved.get(1).endsWith("withdrawal.value_usd == 7.0"), saved.toString());

        // a new session starts with that history: Up twice recalls the :set; then Up twice recalls the condition
        Transcript next = editingSession("\033OA\033OA\n\033OA\033OA\n", history);
        assertEquals("withdrawal.value_usd = 7.0\ntrue\n", next.output());
        assertEquals(List.of(":set withdrawal.value_usd 7", "withdrawal.value_usd == 7.0", ":set withdrawal.value_usd 7",
                "withdrawal.value_usd == 7.0"), entries(next.reader().getHistory()));
    }

    @Test
    void historyFilesJlineCannotUseAreDetectedBeforehand() throws IOException {
        Path history = dir.resolve("history");
        assertEquals(Optional.empty(), TerminalRunner.historyProblem(history), "created on the first entry");
        dumbSession("true\n", history);
        assertEquals(Optional.empty(), TerminalRunner.historyProblem(history));
        Files.writeString(history, "1795217015439:true\nno timestamp here\n");
        assertEquals(Optional.of("is not a history file (lines are `<epoch millis>:<entry>`)"),
                TerminalRunner.historyProblem(history));
        assertEquals(Optional.of("is not a regular file"), TerminalRunner.historyProblem(dir));
    }

    @Test
    void ctrlCDropsTheLineAndCtrlDLeaves() {
        Deque<Supplier<String>> script = new ArrayDeque<>(List.of(
                () -> {
                    throw new UserInterruptException("withdrawal.value_usd > 1");
                },
                () -> "true",
                () -> {
                    throw new EndOfFileException();
                },
                () -> "false"));
        StringWriter out = new StringWriter();
        PrintWriter writer = new PrintWriter(out);
        Session session = ReplFixtures.session(writer, dir);
        List<String> prompts = new ArrayList<>();
        int code = TerminalRunner.run(session, prompt -> {
            prompts.add(prompt);
            return script.pop().get();
        });
        assertEquals(ExitCode.OK, code);
        assertEquals(1, script.size(), "the entry after Ctrl-D is never read");
        assertEquals(List.of("withdrawal.create> ", "withdrawal.create> ", "withdrawal.create> "), prompts);
        assertEquals("true\n", out.toString());
    }

    @Test
    void ctrlCSignalOnTheTerminalCancelsTheLineBeingTyped() throws Exception {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            PipedOutputStream keyboard = new PipedOutputStream();
            PipedInputStream in = new PipedInputStream(keyboard);
            ByteArrayOutputStream screen = new ByteArrayOutputStream();
            try (Terminal terminal = new DumbTerminal("test", Terminal.TYPE_DUMB, in, screen, StandardCharsets.UTF_8)) {
                StringWriter results = new StringWriter();
                PrintWriter out = new PrintWriter(results);
                Session session = ReplFixtures.session(out, dir);
                LineReader reader = TerminalRunner.lineReader(terminal, session, dir.resolve("history"), false);
                AtomicInteger code = new AtomicInteger(-1);
                Thread loop = new Thread(() -> code.set(TerminalRunner.run(session, reader::readLine)));
                loop.start();
                keyboard.write("withdrawal.value_usd >".getBytes(StandardCharsets.UTF_8));
                keyboard.flush();
                while (!typed(reader).equals("withdrawal.value_usd >")) {
                    Thread.sleep(5);
                }
                terminal.raise(Terminal.Signal.INT);
                // the next prompt means the cancelled line is gone and a new one is being read
                while (screen.toString(StandardCharsets.UTF_8).split("withdrawal.create> ", -1).length < 3) {
                    Thread.sleep(5);
                }
                keyboard.write("true\n".getBytes(StandardCharsets.UTF_8));
                keyboard.flush();
                keyboard.close();
                loop.join();
                assertEquals(ExitCode.OK, code.get());
                assertEquals("true\n", results.toString());
                assertEquals(List.of("true"), entries(reader.getHistory()));
            }
        });
    }

    /** The line being edited, read from the test thread while jline edits it (a torn read just polls again). */
    private static String typed(LineReader reader) {
        try {
            return reader.getBuffer().toString();
        } catch (RuntimeException e) {
            return "";
        }
    }
}
