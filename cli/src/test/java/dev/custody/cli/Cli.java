package dev.custody.cli;

import dev.custody.cli.main.Custody;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

/** Runs {@code custody} in-process with captured writers, no colour and no progress, at a fixed instant. */
public final class Cli {
    /** The instant tests run at: a Tuesday, 14:05 UTC. */
    public static final Instant NOW = Instant.parse("2026-11-03T14:05:00Z");

    private Cli() {}

    /** What a run printed and returned. */
    public record Result(int exit, String out, String err) {
        public List<String> outLines() {
            return out.lines().toList();
        }

        public List<String> errLines() {
            return err.lines().toList();
        }

        /** The output with every {@code "elapsed_us":N} set to 0, so records can be compared exactly. */
        public String outWithoutTimings() {
            return out.replaceAll("\"elapsed_us\":\\d+", "\"elapsed_us\":0");
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    public static Result run(String... args) {
        return runWithInput("", args);
    }

    public static Result runWithInput(String stdin, String... args) {
        return runWithStdin(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), args);
    }

    /** As {@link #runWithInput}, with standard input as given (raw bytes, or a stream that fails). */
    public static Result runWithStdin(InputStream stdin, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CliEnvironment env = new CliEnvironment(stdin,
                new PrintWriter(out), new PrintWriter(err), Clock.fixed(NOW, ZoneOffset.UTC), false, false);
        int exit = Custody.commandLine(env).execute(args);
        env.out().flush();
        env.err().flush();
        return new Result(exit, out.toString(), err.toString());
    }

    /** Writes a file (creating its directory) and returns its path as a string. */
    public static String write(Path dir, String name, String content) {
        try {
            Path p = dir.resolve(name);
            Files.createDirectories(p.getParent());
            Files.writeString(p, content);
            return p.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
