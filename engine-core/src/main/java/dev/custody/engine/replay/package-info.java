/**
 * Replaying a stream of actions: {@link dev.custody.engine.replay.ActionStream} reads its lines (actions,
 * settlement records, malformed lines), {@link dev.custody.engine.replay.StreamLedger} derives absent velocity
 * sections from the stream, and {@link dev.custody.engine.replay.Replayer} decides it through a
 * {@link dev.custody.engine.PolicyEngine}: the one definition of a replay that {@code custody replay},
 * {@code custody diff} and the Spark job share.
 */
package dev.custody.engine.replay;
