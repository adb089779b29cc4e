/**
 * The rule compiler: a CEL condition and its trigger action to a checked, compiled condition or to diagnostics
 * with positions ({@link dev.custody.engine.compile.RuleCompiler}), including guard analysis for optional fields
 * and {@code decoded_args} reads (docs/design.md §3). A condition is evaluated by its compiled form (Java closures
 * translated from the checked tree, with cel-java's results) when it has one, else by cel-java's interpreter. The
 * CEL environment, the analyses and the translation behind it are package-private.
 */
package dev.custody.engine.compile;
