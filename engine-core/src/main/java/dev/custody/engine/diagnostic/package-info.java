/**
 * Diagnostics as values: a stable code, a severity, a position and a one-line message with an optional hint, and
 * the compiler-style one-line and caret renderings that lint, validate and the REPL print.
 */
package dev.custody.engine.diagnostic;
