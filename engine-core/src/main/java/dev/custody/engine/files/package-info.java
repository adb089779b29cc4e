/**
 * Tools only (exported to the project's CLI, analysis and Spark modules, not to consumers): policy files read with
 * source positions ({@link dev.custody.engine.files.PolicyReader}, {@link dev.custody.engine.files.PolicyDocument},
 * {@link dev.custody.engine.files.Finding}), discovered under directories
 * ({@link dev.custody.engine.files.PolicyFiles}), and served to an engine
 * ({@link dev.custody.engine.files.FilePolicySource}).
 */
package dev.custody.engine.files;
