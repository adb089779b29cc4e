/**
 * Tools only (exported to the project's CLI, analysis and Spark modules, not to consumers): validation of every
 * limit of the spec ({@link dev.custody.engine.validate.PolicyValidator}, rule updates), did-you-mean suggestions,
 * and the compiler-style renderings of diagnostics that lint, validate and the REPL print.
 */
package dev.custody.engine.validate;
