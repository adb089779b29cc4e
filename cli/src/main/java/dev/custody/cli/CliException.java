package dev.custody.cli;

/**
 * A failure the user can act on: printed as one {@code error: …} line (no stack trace) and mapped to its
 * exit code. Commands throw it; {@link ErrorHandler} prints it.
 */
public final class CliException extends RuntimeException {
    private final int exitCode;

    /**
     * @param exitCode one of {@link ExitCode}
     * @param message one line, lowercase, user input in backticks
     */
    public CliException(int exitCode, String message) {
        super(message, null, false, false);
        this.exitCode = exitCode;
    }

    /** An input problem (exit 1). */
    public static CliException input(String message) {
        return new CliException(ExitCode.INPUT, message);
    }

    /** A usage error (exit 2). */
    public static CliException usage(String message) {
        return new CliException(ExitCode.USAGE, message);
    }

    /** An I/O or internal error (exit 3). */
    public static CliException io(String message) {
        return new CliException(ExitCode.IO, message);
    }

    /** The exit code this failure maps to. */
    public int exitCode() {
        return exitCode;
    }
}
