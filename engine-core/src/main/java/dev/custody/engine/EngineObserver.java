package dev.custody.engine;


/**
 * Told, synchronously, about what a {@link PolicyEngine} does: every decision, every bundle cache lookup, and (as a
 * {@link PolicyEngine.LoadListener}) every bundle load. For counters: the metrics binder
 * ({@code dev.custody.engine.metrics.EngineMetrics}) is one; register one with
 * {@link PolicyEngine.Builder#observer}.
 *
 * <p><b>Contract.</b> The engine calls these methods on the thread that decides (or loads), so an implementation
 * must be cheap and non-blocking: increment a counter, record a time, nothing that waits on I/O or a lock held
 * elsewhere (for that, use the asynchronous {@link dev.custody.engine.log.DecisionLog}). Whatever it throws
 * ({@link Exception} or {@link Error}) is caught and ignored by the engine: an observer never changes or delays a
 * decision beyond its own running time. Implementations must be thread-safe: every deciding thread calls them
 * concurrently. Every method does nothing unless overridden.
 */
public interface EngineObserver extends PolicyEngine.LoadListener {

    /**
     * A decision was taken, just before {@link PolicyEngine#evaluate} returns it.
     *
     * @param workspaceId the canonical workspace id the engine decided under
     * @param decision the decision returned to the caller
     * @param nanos the time {@code evaluate} took: bundle lookup (and a load on a cache miss) plus deciding
     */
    default void decided(String workspaceId, Decision decision, long nanos) {
    }

    /** A decision found its workspace's compiled bundle in the cache. */
    default void bundleCacheHit() {
    }

    /** A decision did not find its workspace's bundle in the cache (absent or expired) and loaded it. */
    default void bundleCacheMiss() {
    }
}
