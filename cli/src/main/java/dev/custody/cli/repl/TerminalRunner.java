package dev.custody.cli.repl;

import dev.custody.cli.ExitCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Terminal;

/**
 * The REPL on a terminal: jline line editing, completion ({@link ReplCompleter}), highlighting
 * ({@link ReplHighlighter}), multi-line entries ({@link ReplParser}) and a history file.
 *
 * <p>The loop survives everything: Ctrl-C ({@link UserInterruptException}) drops the line being typed and
 * prompts again, an error in an entry is printed by the {@link Session} and the loop goes on, and only
 * Ctrl-D ({@link EndOfFileException}) or {@code :quit} leave. The prompt names the current trigger action,
 * e.g. {@code withdrawal.create> }.
 *
 * <p>Not thread-safe.
 */
final class TerminalRunner {
    /** Where entries come from: {@link LineReader#readLine(String)} on a terminal, a script in tests. */
    @FunctionalInterface
    interface LineInput {
        /**
         * The next entry.
         *
         * @throws UserInterruptException when the user pressed Ctrl-C
         * @throws EndOfFileException when the user pressed Ctrl-D or the input ended
         */
        String readLine(String prompt);
    }

    /** A line of jline's timestamped history file. */
    private static final Pattern HISTORY_LINE = Pattern.compile("\\d+:.*");

    private TerminalRunner() {}

    /** The prompt for the session's current action. */
    static String prompt(Session session) {
        return session.action().wireName() + "> ";
    }

    /**
     * Reads and runs entries until Ctrl-D or {@code :quit}.
     *
     * @return {@link ExitCode#OK}: an interactive session ends well however many entries failed
     */
    static int run(Session session, LineInput input) {
        while (true) {
            String entry;
            try {
                entry = input.readLine(prompt(session));
            } catch (UserInterruptException e) {
                continue;
            } catch (EndOfFileException e) {
                // jline has already ended the line on a terminal
                return ExitCode.OK;
            }
            if (session.execute(entry) == Session.Status.QUIT) {
                return ExitCode.OK;
            }
        }
    }

    /**
     * Why {@code file} cannot serve as the history file, or empty when it can (a file that does not exist
     * yet can: it is created on the first entry). jline would fail on a directory and print a stack trace
     * for a file it cannot parse, so the shell checks first and runs without a history file instead.
     */
    static Optional<String> historyProblem(Path file) {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        if (!Files.isRegularFile(file)) {
            return Optional.of("is not a regular file");
        }
        try (Stream<String> lines = Files.lines(file, StandardCharsets.UTF_8)) {
            if (lines.anyMatch(l -> !HISTORY_LINE.matcher(l).matches())) {
                return Optional.of("is not a history file (lines are `<epoch millis>:<entry>`)");
            }
            return Optional.empty();
        } catch (IOException | UncheckedIOException e) {
            return Optional.of("cannot be read");
        }
    }

    /**
     * A line reader for {@code session} on {@code terminal}.
     *
     * @param history the history file, read at the first prompt and appended to after every entry; null
     *     keeps the history in memory only
     * @param highlight whether to colour the input (only on a terminal that shows colours)
     */
    static LineReader lineReader(Terminal terminal, Session session, Path history, boolean highlight) {
        LineReaderBuilder builder = LineReaderBuilder.builder()
                .terminal(terminal)
                .appName("custody")
                .parser(new ReplParser())
                .completer(new ReplCompleter(session))
                .variable(LineReader.HISTORY_FILE_SIZE, 10_000)
                .variable(LineReader.SECONDARY_PROMPT_PATTERN, "%P > ")
                // `!` is CEL's negation: it must never be taken for a history reference
                .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true)
                .option(LineReader.Option.INSERT_TAB, false)
                .option(LineReader.Option.HISTORY_IGNORE_DUPS, true);
        if (history != null) {
            builder.variable(LineReader.HISTORY_FILE, history);
        }
        if (highlight) {
            builder.highlighter(new ReplHighlighter(session::action));
        }
        return builder.build();
    }
}
