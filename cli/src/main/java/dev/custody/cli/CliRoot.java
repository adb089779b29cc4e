package dev.custody.cli;

/**
 * What a verb needs from the root command: the environment it runs in and the colours it may use. Verbs declare
 * {@code @ParentCommand CliRoot root} rather than naming the root class, so the verbs do not depend on the root
 * that lists them (no package cycle between {@code dev.custody.cli.main} and the verbs' packages).
 */
public interface CliRoot {
    /** The streams, clock and terminal settings the commands use. */
    CliEnvironment environment();

    /** Colour for text output, per the environment. */
    Style style();
}
