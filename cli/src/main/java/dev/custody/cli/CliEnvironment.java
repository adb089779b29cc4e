package dev.custody.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;

/**
 * What a {@code custody} run talks to: standard input and output, the clock, and whether the terminal
 * wants colour and progress. {@link #system()} is the real process; tests build one with captured writers
 * so every command runs in-process, without colour or progress bars.
 *
 * @param stdin where {@code -} arguments read from
 * @param out standard output (results)
 * @param err standard error (errors, summaries, progress)
 * @param clock "now" for actions and conditions without an instant
 * @param colour whether to colour text output (stdout is a terminal and {@code NO_COLOR} is unset)
 * @param progress whether to draw progress bars on {@code err} (stderr is a terminal)
 */
public record CliEnvironment(
        InputStream stdin, PrintWriter out, PrintWriter err, Clock clock, boolean colour, boolean progress) {

    public CliEnvironment {
        Objects.requireNonNull(stdin, "stdin");
        Objects.requireNonNull(out, "out");
        Objects.requireNonNull(err, "err");
        Objects.requireNonNull(clock, "clock");
    }

    /**
     * The process's streams. Standard output is buffered (a replay writes hundreds of thousands of lines;
     * the commands flush when done) and UTF-8 whatever the platform encoding; standard error is flushed
     * line by line.
     */
    public static CliEnvironment system() {
        PrintWriter out = new Utf8Writer(new FileOutputStream(FileDescriptor.out), 1 << 16);
        PrintWriter err = new PrintWriter(
                new OutputStreamWriter(new FileOutputStream(FileDescriptor.err), StandardCharsets.UTF_8), true);
        boolean noColour = System.getenv("NO_COLOR") != null && !System.getenv("NO_COLOR").isEmpty();
        boolean stdoutTty = System.console() != null;
        return new CliEnvironment(System.in, out, err, Clock.systemUTC(), stdoutTty && !noColour, stderrIsTerminal());
    }

    /**
     * Whether standard error is a terminal. Java has no isatty; on Linux {@code /proc/self/fd/2} links to the
     * terminal device, elsewhere the console (stdin and stdout both terminals) is the best guess.
     */
    static boolean stderrIsTerminal() {
        Path fd2 = Path.of("/proc/self/fd/2");
        try {
            if (Files.isSymbolicLink(fd2)) {
                String target = Files.readSymbolicLink(fd2).toString();
                return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
            }
        } catch (java.io.IOException | SecurityException | UnsupportedOperationException e) {
            // fall through to the console check
        }
        return System.console() != null;
    }
}
