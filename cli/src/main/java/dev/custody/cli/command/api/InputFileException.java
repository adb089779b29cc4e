package dev.custody.cli.command.api;

/**
 * A file given to an {@code api} command could not be used: unreadable ({@link #io()} true, exit 3)
 * or not the expected content (exit 1). Immutable.
 */
final class InputFileException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final boolean io;

    InputFileException(String message, boolean io, Throwable cause) {
        super(message, cause);
        this.io = io;
    }

    boolean io() {
        return io;
    }
}
