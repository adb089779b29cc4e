package dev.custody.cli.command.api;

/**
 * Options that parse but do not make sense together, or a value outside its list (exit 2). The
 * message is one lowercase line with user input in backticks. Immutable.
 */
final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message, null, false, false);
    }
}
