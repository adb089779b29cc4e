/**
 * Actions and how they are read and built: {@link dev.custody.engine.payload.Action},
 * {@link dev.custody.engine.check.ActionReader} (the one reader of action JSON, for streams and files),
 * the withdrawal builder {@link dev.custody.engine.payload.WithdrawalActions}, the EVM contract-call decoder, and
 * the payload check the evaluator runs before any rule sees an action.
 */
package dev.custody.engine.payload;
