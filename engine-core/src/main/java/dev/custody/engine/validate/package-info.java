/**
 * Tools only (exported to the project's CLI, analysis and Spark modules, not to consumers): validation of every
 * limit of the spec ({@link dev.custody.engine.validate.PolicyValidator}) and rule updates. Did-you-mean
 * suggestions are in {@code text}, the renderings of diagnostics in {@code format}.
 */
package dev.custody.engine.validate;
