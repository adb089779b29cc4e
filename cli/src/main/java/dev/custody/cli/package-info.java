/**
 * The {@code custody} command line: the root command and what every verb shares (environment, exit codes,
 * errors, styles, the shared compiler). Verbs live in {@code dev.custody.cli.command}; the REPL in
 * {@code dev.custody.cli.repl}.
 */
package dev.custody.cli;
