/**
 * One class per verb of {@code custody} (validate, lint, eval, replay, diff, test, bench, schema) and their
 * output formats. Every verb that decides does so through {@link dev.custody.engine.PolicyEngine}
 * ({@code LocalEngine} adds the command line's reporting).
 */
package dev.custody.cli.command;
