package dev.custody.cli.repl;

/**
 * A command or condition the user got wrong: its message is printed as one line, {@code error: …}, and the
 * session goes on. The message follows the project style: lowercase, no final period, user input in
 * backticks.
 */
final class CommandError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CommandError(String message) {
        super(message, null, false, false);
    }
}
