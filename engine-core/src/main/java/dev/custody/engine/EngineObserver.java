package dev.custody.engine;

import dev.custody.engine.payload.Action;
import dev.custody.engine.policy.BundleError;
import java.util.List;

/**
 * The one hook of a {@link PolicyEngine}: told what the engine does, for logs, metrics and reports. Register any
 * number with {@link PolicyEngine.Builder#observer}; the engine tells each, in the order registered. The
 * decision log ({@code dev.custody.engine.log.DecisionLog}) and the Micrometer binder
 * ({@code dev.custody.engine.metrics.EngineMetrics}) are observers.
 *
 * <pre>{@code
 * PolicyEngine engine = PolicyEngine.builder(source)
 *         .observer(decisionLog)                                  // every decision, off the deciding thread
 *         .observer(EngineMetrics.builder(registry).build())       // counters and a timer
 *         .observer(new EngineObserver() {                         // anything else: override what you need
 *             @Override
 *             public void loadFailed(String workspaceId, String message) { alert(workspaceId, message); }
 *         })
 *         .build();
 * }</pre>
 *
 * <h2>What is guaranteed</h2>
 * <ul>
 *   <li>{@link #decided} once for every decision {@code evaluate} returns, fail-closed ones included (a blank
 *       workspace id, an action of another workspace, a source that failed), just before it returns, with the
 *       decision returned;</li>
 *   <li>{@link #bundleCacheHit} or {@link #bundleCacheMiss} once for every bundle lookup of a decision (and of
 *       {@link PolicyEngine#preload}); decisions denied before a lookup make none;</li>
 *   <li>{@link #bundleLoaded} once for every bundle the engine builds for a workspace (valid or not), and
 *       {@link #loadFailed} once for every time the source failed (nothing is cached then: the next decision loads
 *       again and is told again).</li>
 * </ul>
 * An observer cannot change a decision: whatever a method throws ({@link Exception} or {@link Error}) is caught
 * and ignored, and the next observer is told all the same. With no observer registered the engine makes no call
 * and takes no time for observers at all.
 *
 * <h2>Which thread, and thread-safety</h2>
 * Every method is called synchronously on the thread that decides ({@link #decided}, cache hits and misses) or
 * loads ({@link #bundleLoaded}, {@link #loadFailed}: the deciding thread that missed the cache, while the
 * workspace's cache entry is being computed, so other decisions of that workspace wait for it). So an
 * implementation must be quick and must not block: increment a counter, record a time, queue an event (as the
 * decision log does; anything slower belongs behind such a queue). It must not call back into the engine for the
 * same workspace from {@link #bundleLoaded} or {@link #loadFailed}. Implementations must be thread-safe: every
 * deciding thread calls them concurrently. Every method does nothing unless overridden.
 */
public interface EngineObserver {

    /**
     * A decision was taken, just before {@code evaluate} returns it.
     *
     * @param workspaceId the canonical workspace id the engine decided under (lower case), or
     *     {@link PolicySource#NO_WORKSPACE}
     * @param action the action as given to {@code evaluate}
     * @param decision the decision returned to the caller
     * @param nanos the time {@code evaluate} took: bundle lookup (and a load on a cache miss) plus deciding
     */
    default void decided(String workspaceId, Action action, Decision decision, long nanos) {
    }

    /** A bundle lookup found the workspace's compiled bundle in the cache. */
    default void bundleCacheHit() {
    }

    /** A bundle lookup did not find the workspace's bundle in the cache (absent or expired) and loaded it. */
    default void bundleCacheMiss() {
    }

    /**
     * A workspace's bundle was built (the CLI prints a workspace's compile errors once, at file:line:column, from
     * here).
     *
     * @param workspaceId the canonical workspace id, or {@link PolicySource#NO_WORKSPACE}
     * @param errors why the bundle is invalid (it then denies every action, failure {@code compile}); empty when
     *     it is valid
     */
    default void bundleLoaded(String workspaceId, List<BundleError> errors) {
    }

    /**
     * The source failed (it threw, returned null, or was interrupted): nothing is cached, the workspace's actions
     * are denied (failure {@code load}) and the next decision loads again.
     *
     * @param workspaceId the canonical workspace id, or {@link PolicySource#NO_WORKSPACE}
     * @param message one line, as in the denied decision's {@code error}
     */
    default void loadFailed(String workspaceId, String message) {
    }
}
