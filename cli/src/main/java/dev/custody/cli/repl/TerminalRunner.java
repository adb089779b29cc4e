package dev.custody.cli.repl;

import dev.custody.cli.ExitCode;
import java.io.PrintWriter;
import java.nio.file.Path;
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

    private TerminalRunner() {}

    /** The prompt for the session's current action. */
    static String prompt(Session session) {
        return session.action().wireName() + "> ";
    }

    /**
     * Reads and runs entries until Ctrl-D or {@code :quit}.
     *
     * @param out the session's writer, to end the last prompt's line on Ctrl-D
     * @return {@link ExitCode#OK}: an interactive session ends well however many entries failed
     */
    static int run(Session session, LineInput input, PrintWriter out) {
        while (true) {
            String entry;
            try {
                entry = input.readLine(prompt(session));
            } catch (UserInterruptException e) {
                continue;
            } catch (EndOfFileException e) {
                out.print('\n');
                out.flush();
                return ExitCode.OK;
            }
            if (session.execute(entry) == Session.Status.QUIT) {
                return ExitCode.OK;
            }
        }
    }

    /**
     * A line reader for {@code session} on {@code terminal}.
     *
     * @param history the history file, read now and appended to after every entry
     * @param highlight whether to colour the input (only on a terminal that shows colours)
     */
    static LineReader lineReader(Terminal terminal, Session session, Path history, boolean highlight) {
        LineReaderBuilder builder = LineReaderBuilder.builder()
                .terminal(terminal)
                .appName("custody")
                .parser(new ReplParser())
                .completer(new ReplCompleter(session))
                .variable(LineReader.HISTORY_FILE, history)
                .variable(LineReader.HISTORY_FILE_SIZE, 10_000)
                .variable(LineReader.SECONDARY_PROMPT_PATTERN, "%P > ")
                // `!` is CEL's negation: it must never be taken for a history reference
                .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true)
                .option(LineReader.Option.INSERT_TAB, false)
                .option(LineReader.Option.HISTORY_IGNORE_DUPS, true);
        if (highlight) {
            builder.highlighter(new ReplHighlighter(session::action));
        }
        return builder.build();
    }
}
