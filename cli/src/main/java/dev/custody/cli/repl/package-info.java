/**
 * {@code custody repl}: the interactive shell of policy authors.
 *
 * <p>{@link dev.custody.cli.repl.Session} is the REPL without a terminal: one entry in (a {@code :command}
 * or a condition), its output on a {@link java.io.PrintWriter}, a status back. Two front-ends drive it: the
 * jline shell on a terminal (line editing, completion, highlighting, multi-line entries, history), and a
 * plain reader of piped input for scripts (no prompt, exit code 1 when any entry failed).
 * {@link dev.custody.cli.repl.ReplCommand} is the picocli command that picks one.
 */
package dev.custody.cli.repl;
