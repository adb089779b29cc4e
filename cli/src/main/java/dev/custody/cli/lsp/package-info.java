/**
 * {@code custody lsp}: a language server for policy files and policy test files over stdio (Eclipse LSP4J),
 * docs/design.md §8 "Editor support". Diagnostics come from {@code custody lint}'s own code path
 * ({@link dev.custody.cli.command.LintCommand#lintTexts}); completion, hover and document symbols read the
 * field schema of {@code dev.custody.engine.schema}; quick fixes apply lint's "did you mean" hints.
 */
package dev.custody.cli.lsp;
