/**
 * The rule compiler: a CEL condition and its trigger action to a checked, compiled condition or to diagnostics
 * with positions ({@link dev.custody.engine.compile.RuleCompiler}), including guard analysis for optional fields
 * and {@code decoded_args} reads (docs/design.md §3). The CEL environment and the analyses behind it are
 * package-private.
 */
package dev.custody.engine.compile;
