/**
 * Tools only (exported to the project's CLI, analysis and Spark modules, not to consumers): the one reader of
 * action JSON ({@link dev.custody.engine.check.ActionReader}, for streams and files), the EVM contract-call
 * decoder, and the payload check the evaluator runs before any rule sees an action
 * ({@link dev.custody.engine.check.PayloadValidator}, making a {@link dev.custody.engine.check.Payload}).
 */
package dev.custody.engine.check;
