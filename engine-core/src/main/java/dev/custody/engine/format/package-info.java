/**
 * Tools only (exported to the project's CLI, analysis and Spark modules): the compiler-style renderings of
 * diagnostics that lint, validate and the REPL print ({@link dev.custody.engine.format.DiagnosticFormatter}).
 * Beside {@code diagnostic} in the diagnostics layer (docs/design.md §9.1).
 */
package dev.custody.engine.format;
