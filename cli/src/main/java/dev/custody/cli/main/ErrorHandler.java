package dev.custody.cli.main;

import dev.custody.cli.CliException;
import dev.custody.cli.DebugOption;
import dev.custody.cli.ExitCode;

import dev.custody.engine.text.Suggestions;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Turns every failure into one {@code error: …} line on stderr and an exit code (docs/design.md §5): usage errors
 * (unknown flag, missing argument, a value picocli or our converters refuse) are 2; {@link CliException}s
 * carry their own code; missing or unreadable files and any other exception are 3. No stack trace unless
 * {@code --debug} was given. Stateless.
 */
final class ErrorHandler implements IExecutionExceptionHandler, IParameterExceptionHandler {

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cl = ex.getCommandLine();
        PrintWriter err = cl.getErr();
        StringBuilder line = new StringBuilder("error: ");
        if (ex instanceof UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            // name the first stray argument only: picocli lists every later one too, which misleads
            String first = u.getUnmatched().get(0);
            line.append(first.startsWith("-") ? "unknown option `" + first + "`"
                    : !cl.getSubcommands().isEmpty() ? "unknown command `" + first + "`"
                    : "unexpected argument `" + first + "`");
            // our own "did you mean": picocli's suggestions are sometimes empty, sometimes far-fetched
            List<String> candidates = new ArrayList<>(first.startsWith("-")
                    ? cl.getCommandSpec().optionsMap().keySet() : cl.getSubcommands().keySet());
            Suggestions.closest(first.replaceFirst("=.*", ""), candidates)
                    .ifPresent(s -> line.append(" (did you mean `").append(s).append("`?)"));
        } else {
            line.append(style(ex.getMessage()));
        }
        line.append("; see `").append(cl.getCommandSpec().qualifiedName()).append(" --help`");
        err.println(line);
        if (debug(args)) {
            ex.printStackTrace(err);
        }
        err.flush();
        return ExitCode.USAGE;
    }

    @Override
    public int handleExecutionException(Exception ex, CommandLine cl, ParseResult parseResult) {
        cl.getOut().flush();
        PrintWriter err = cl.getErr();
        Throwable t = ex instanceof UncheckedIOException u && u.getCause() != null ? u.getCause() : ex;
        int code = ExitCode.IO;
        String message;
        boolean internal = false;
        if (t instanceof CliException c) {
            code = c.exitCode();
            message = c.getMessage();
        } else if (t instanceof NoSuchFileException f) {
            message = "`" + f.getFile() + "` does not exist";
        } else if (t instanceof AccessDeniedException f) {
            message = "cannot read `" + f.getFile() + "`: permission denied";
        } else if (t instanceof FileSystemException f) {
            message = "cannot read `" + f.getFile() + "`" + (f.getReason() == null ? "" : ": " + style(f.getReason()));
        } else if (t instanceof IOException) {
            message = "i/o error: " + style(String.valueOf(t.getMessage()));
        } else {
            internal = true;
            message = "internal error: " + t.getClass().getSimpleName()
                    + (t.getMessage() == null ? "" : ": " + firstLine(t.getMessage()));
        }
        boolean debug = debug(parseResult);
        err.println("error: " + message + (internal && !debug ? " (run with `--debug` for the stack trace)" : ""));
        if (debug) {
            ex.printStackTrace(err);
        }
        err.flush();
        return code;
    }

    private static boolean debug(ParseResult result) {
        for (ParseResult p = result; p != null; p = p.subcommand()) {
            if (p.hasMatchedOption("--debug")) {
                return true;
            }
        }
        return false;
    }

    private static boolean debug(String[] args) {
        for (String a : args) {
            if ("--debug".equals(a)) {
                return true;
            }
        }
        return false;
    }

    /** Picocli's "Unknown option: '--x'" as our style: "unknown option: `--x`". */
    static String style(String message) {
        String m = firstLine(message).replaceAll("'([^']*)'", "`$1`");
        if (m.regionMatches(true, 0, "error: ", 0, 7)) {
            m = m.substring(7);
        }
        if (!m.isEmpty() && Character.isUpperCase(m.charAt(0))
                && (m.length() == 1 || !Character.isUpperCase(m.charAt(1)))) {
            m = m.substring(0, 1).toLowerCase(Locale.ROOT) + m.substring(1);
        }
        return m.endsWith(".") ? m.substring(0, m.length() - 1) : m;
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return (nl >= 0 ? s.substring(0, nl) : s).strip();
    }
}
