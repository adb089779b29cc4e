package dev.custody.cli.repl;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

/** Shared set-up of the REPL tests: the fixture files in a working directory, a fixed clock. */
final class ReplFixtures {
    /** A Tuesday, 14:05 UTC: the clock behind {@code :at now} in every test. */
    static final Instant NOW = Instant.parse("2026-11-03T14:05:00Z");
    static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
    /**
     * Generous, so a cold JVM on a loaded CI machine never trips it; the budget itself is the engine's
     * business and is pinned by its own tests.
     */
    static final Duration BUDGET = Duration.ofSeconds(30);
    static final List<String> FILES = List.of("limits.yaml", "vip.yaml", "broken.yaml", "malformed.yaml",
            "withdrawal.json", "bad-field.json", "call.json");

    private ReplFixtures() {}

    /** Copies the fixture files into {@code dir}. */
    static void copyFiles(Path dir) {
        for (String name : FILES) {
            try (InputStream in = ReplFixtures.class.getResourceAsStream(name)) {
                if (in == null) {
                    throw new IllegalStateException("missing test resource " + name);
                }
                Files.copy(in, dir.resolve(name));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** A session working in {@code dir} on the fixed clock. */
    static Session session(PrintWriter out, Path dir) {
        return Session.builder(out).clock(CLOCK).workingDirectory(dir).timeBudget(BUDGET).build();
    }
}
