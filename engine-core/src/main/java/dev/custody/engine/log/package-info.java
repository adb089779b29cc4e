/**
 * The decision log: every decision an engine takes, with its workspace, action and bundle revision, handed off the
 * deciding thread ({@link dev.custody.engine.log.DecisionLog}, an {@link dev.custody.engine.EngineObserver}: a
 * bounded queue, drops counted; or, made {@code durable}, never dropping, with a wait until the caller's decisions are
 * synced to disk) to a {@link dev.custody.engine.log.DecisionLog.Listener}, such as the JSON-lines sink with
 * size-based rotation (the last n files, or every one) that {@code custody replay --from-log} reads back.
 */
package dev.custody.engine.log;
