/**
 * What every verb of {@code custody} shares: the environment (streams, clock, terminal), the root's contract
 * ({@link dev.custody.cli.CliRoot}), exit codes, one-line errors, styles, converters and the shared compiler.
 * The root command lives in {@code dev.custody.cli.main}, the verbs in {@code dev.custody.cli.command} and the
 * REPL in {@code dev.custody.cli.repl}.
 */
package dev.custody.cli;
