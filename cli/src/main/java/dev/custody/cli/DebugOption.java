package dev.custody.cli;

import picocli.CommandLine.Option;

/**
 * {@code --debug} on a verb: internal errors print their stack trace. A mixin rather than an inherited option
 * of the root, because the {@code api} commands declare their own {@code --debug} (which also logs requests);
 * {@link ErrorHandler} honours any {@code --debug} on the command line.
 */
public final class DebugOption {
    @Option(names = "--debug", description = "Print the stack trace of internal errors.")
    boolean debug;
}
