package dev.custody.cli;

/**
 * The exit codes of every {@code custody} command (docs/design.md §5). Scripts and CI pipelines depend on
 * them, so they never change meaning.
 */
public final class ExitCode {
    /** Success: valid, no lint errors, tests pass, command done. */
    public static final int OK = 0;
    /**
     * The input has problems: invalid condition, lint errors, failing tests, malformed action lines,
     * {@code diff --fail-on-change} with changes.
     */
    public static final int INPUT = 1;
    /** Usage error: unknown flag, missing argument, unknown action or effect name. */
    public static final int USAGE = 2;
    /** I/O, network or internal error. */
    public static final int IO = 3;

    private ExitCode() {}
}
