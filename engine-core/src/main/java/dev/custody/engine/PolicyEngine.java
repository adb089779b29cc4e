package dev.custody.engine;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import com.github.benmanes.caffeine.cache.stats.StatsCounter;
import dev.custody.engine.policy.BundleError;
import dev.custody.engine.internal.bundle.PolicyBundle;
import dev.custody.engine.compile.ConditionResult;
import dev.custody.engine.compile.CostMeter;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.coverage.EvaluationObserver;
import dev.custody.engine.coverage.ObservedRule;
import dev.custody.engine.internal.bundle.BoundRule;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.diagnostic.DiagnosticCode;
import dev.custody.engine.FailureKind;
import dev.custody.engine.log.DecisionLog;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.Payload;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.selection.RuleSelection;
import dev.custody.engine.validate.PolicyValidator;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The engine: decides actions of a workspace against its active policies, fail-closed, with the workspace's
 * compiled bundle cached. It is the one path from policies to decisions: a service embeds it, and every
 * {@code custody} verb (replay, diff, test, bench, eval, the REPL) and the conformance corpus decide through
 * it, over a {@code FilePolicySource} (package {@code dev.custody.engine.files}).
 *
 * <pre>{@code
 * PolicyEngine engine = PolicyEngine.builder(workspaceId -> repository.policiesOf(workspaceId)).build();
 * Decision d = engine.evaluate(workspaceId, action);
 * if (d.denied()) { block(d.ruleId(), d.reason()); }
 * // after an approval, a rejection, or a wallet-targeting change:
 * engine.invalidate(workspaceId);
 * }</pre>
 *
 * <h2>Semantics</h2>
 * docs/design.md §3: active policies only, enabled rules of the action whose policy targets the wallet, DENY over
 * ALLOW, first true rule in declaration order for attribution, and every failure a DENY with its
 * {@link FailureKind}: {@code load} when the source fails, {@code compile} when an active policy is invalid,
 * {@code malformed_action}, {@code rule_error}, {@code time_budget}, {@code internal}.
 *
 * <h2>Cache</h2>
 * A Caffeine cache maps a workspace to its compiled bundle, under one canonical key per workspace (the id in
 * lower case), so every spelling of a workspace id shares one bundle and one invalidation. Concurrent
 * evaluations of a workspace whose bundle is not cached coalesce into one load. A load that fails (the source
 * throws) is not cached: the evaluation is denied and the next one loads again. A bundle whose policies do not
 * compile is cached as the invalid bundle it is (it denies every action) for {@link Builder#invalidBundleRetry}
 * only, then rebuilt, so a deterministic compile error is not recompiled on every request yet a fix is picked
 * up even without an invalidation. Workspaces whose sources return equal policy lists share one compiled
 * bundle (compiling is a pure function of the policies), so a thousand workspaces on one default policy set
 * compile it once.
 *
 * <h2>Warm-up</h2>
 * A freshly compiled bundle runs each rule once on a synthetic payload before it decides (unless
 * {@link Builder#warmUp(boolean) turned off}), so that a cold JVM does not deny the first action on the time
 * budget.
 *
 * <h2>Invalidation</h2>
 * {@link #invalidate} waits for a load of that workspace in progress, then discards it; once it returns,
 * every evaluation that starts afterwards uses a bundle loaded afterwards. (An evaluation already running
 * finishes on the bundle it started with.) Call it after the policy source changed: approvals, rejections,
 * wallet-targeting changes.
 *
 * <h2>The hot path</h2>
 * A decision whose workspace's bundle is cached does not go through Caffeine: beside it the engine keeps a plain
 * concurrent map from key to bundle, filled when Caffeine answers a lookup, emptied of a key whenever Caffeine
 * evicts it or {@link #invalidate} drops it, and each entry carries a deadline no later than Caffeine's own (the
 * instant its load started plus the time to live), checked with the clock reading that starts the decision. So a
 * hit costs one map lookup and no extra clock read, where Caffeine's costs its clock, its read buffer and now and
 * then its upkeep (docs/design.md §10.7 measured it at about a quarter of a decision on the realistic workload).
 * Every guarantee above holds as before; what changes is that Caffeine's size-based eviction sees the loads of a
 * workspace but not its hits, so past {@link Builder#maximumWorkspaces} it may drop a busy workspace sooner (it is
 * then loaded again, once).
 *
 * <h2>Cost budget, and the clock as a backstop</h2>
 * Deciding (checking the action and evaluating rules) is bounded by a cost ({@link Builder#costLimit}, default
 * {@link CostMeter#DEFAULT_LIMIT} units, calibrated to at most 50 ms of work on the reference machine): past it
 * the decision is a fail-closed DENY with failure {@code cost_budget}. The cost depends on the rules and the
 * action only, so an action decides the same on a loaded service, a quiet laptop and a Spark executor, and a
 * decision log can be audited by replay (docs/design.md §3.15). The wall clock is only a far backstop
 * ({@link Builder#timeBudget}, default 1 s) against what the cost cannot see; it is the one thing that can make
 * a decision depend on load, and only on a machine some twenty times slower than the one the limit was
 * calibrated on. Loading and compiling a bundle on a cache miss is counted by neither: it is bounded by the
 * source's own time-outs and done once per invalidation, and counting it would deny the first action after
 * every approval in a large workspace.
 *
 * <h2>Observing</h2>
 * {@link EngineObserver}s registered with {@link Builder#observer} are told every decision, bundle cache lookup and
 * bundle load, synchronously, on the deciding thread; the decision log and the metrics are observers. They cannot
 * change a decision (what they throw is ignored), and without one (the default) the engine makes no observer call,
 * reads no extra clock and keeps no cache statistics. Rule-level observation for coverage (docs/design.md §5.3, §14)
 * is a tool-only extension, not part of this API: an observer that also implements the tools' interface
 * {@code dev.custody.engine.coverage.EvaluationObserver} (a package not exported to embedders) is told every rule
 * it evaluates too; without one the engine does no coverage work.
 *
 * <h2>Nothing escapes</h2>
 * {@link #evaluate} never throws (null arguments aside): whatever the source, the compiler or a rule throws,
 * {@link Exception} or {@link Error} alike ({@code StackOverflowError}, {@code NoClassDefFoundError},
 * {@code ExceptionInInitializerError}, even {@code OutOfMemoryError}), the answer is a fail-closed DENY
 * ({@code load} when loading failed, nothing cached, the next evaluation loads again; {@code internal} when
 * deciding failed). No throwable is rethrown: a caller guarding a withdrawal must get a decision, and the engine
 * cannot tell whether an {@code Error} came from the source or from the whole JVM, so denying is the one safe
 * answer. An interrupt is kept (the thread's flag is set again) and denies the load.
 *
 * <p>Thread-safe.
 */
public final class PolicyEngine {
    /** The default wall-clock backstop of one evaluation: 1 s (decisions are bounded by cost first). */
    public static final Duration DEFAULT_TIME_BUDGET = Evaluator.DEFAULT_BACKSTOP;
    private final PolicySource source;
    private final PolicyValidator validator;
    private final Evaluator evaluator;
    private final boolean warmUp;
    /** Every observer registered, as one; null when none was (then no observer is called, no time is read). */
    private final EngineObserver observer;
    /** The tool-only rule-level observer ({@link EvaluationObserver}); null when none was set. */
    private final EvaluationObserver evaluationObserver;
    private final Cache<String, Loaded> cache;
    /** The hot path's map (see the class comment): Caffeine's entries, each with its deadline. */
    private final ConcurrentHashMap<String, Hot> hot = new ConcurrentHashMap<>();
    /**
     * Incremented after every removal from {@link #cache}, before the key leaves {@link #hot}: a lookup installs
     * what Caffeine gave it only if no removal happened since it asked, so an entry removed cannot come back.
     */
    private final AtomicLong removals = new AtomicLong();
    private final long validNanos;
    private final long invalidNanos;
    /** Whether an observer counts cache hits (then a hit on the hot path is told to it, as Caffeine's would be). */
    private final boolean countsHits;
    private final Cache<List<Policy>, PolicyBundle> compiled;

    private PolicyEngine(Builder b) {
        this.source = b.source;
        this.validator = new PolicyValidator(RuleCompiler.shared());
        this.evaluator = Evaluator.builder().clock(b.clock).timeBudget(b.timeBudget).costLimit(b.costLimit).build();
        this.warmUp = b.warmUp;
        this.observer = Observers.of(b.observers);
        this.evaluationObserver = b.evaluationObserver;
        long validNanos = b.bundleTtl.toNanos();
        long invalidNanos = b.invalidBundleRetry.toNanos();
        this.validNanos = validNanos;
        this.invalidNanos = invalidNanos;
        this.countsHits = b.observers.stream().anyMatch(Observers::countsCacheLookups);
        Caffeine<Object, Object> caffeine = Caffeine.newBuilder();
        if (b.observers.stream().anyMatch(Observers::countsCacheLookups)) {
            // Caffeine's statistics only for an observer that counts hits and misses (the decision log does not)
            caffeine.recordStats(() -> new ObserverStats(observer));
        }
        this.cache = caffeine
                // Caffeine's upkeep (draining its read buffers, expiring) runs on the deciding thread, a few
                // hundred nanoseconds now and then, rather than being handed to the common pool: that hand-off
                // woke another thread about every hundred reads and cost tens of microseconds, the engine's p99
                .executor(Runnable::run)
                .maximumSize(b.maximumWorkspaces)
                .expireAfter(new Expiry<String, Loaded>() {
                    @Override
                    public long expireAfterCreate(String key, Loaded loaded, long now) {
                        return loaded.bundle().valid() ? validNanos : invalidNanos;
                    }

                    @Override
                    public long expireAfterUpdate(String key, Loaded loaded, long now, long current) {
                        return expireAfterCreate(key, loaded, now);
                    }

                    @Override
                    public long expireAfterRead(String key, Loaded loaded, long now, long current) {
                        return current;
                    }
                })
                // called within the removal (size, time), before any later lookup of the key can load again
                .evictionListener((String key, Loaded loaded, RemovalCause cause) -> forgetHot(key))
                .build();
        this.compiled = Caffeine.newBuilder().maximumSize(Math.min(b.maximumWorkspaces, 256)).build();
    }

    /** A builder over a policy source. */
    public static Builder builder(PolicySource source) {
        return new Builder(source);
    }

    /** Decides an action of a workspace, without a trace. */
    public Decision evaluate(String workspaceId, Action action) {
        return evaluate(workspaceId, action, false);
    }

    /**
     * Decides an action of a workspace. An action that names another workspace is denied
     * ({@code malformed_action}); a blank workspace id is denied ({@code load}).
     *
     * @param explain whether to record every evaluated rule in {@link Decision#trace()}
     */
    public Decision evaluate(String workspaceId, Action action, boolean explain) {
        Objects.requireNonNull(workspaceId, "workspaceId");
        Objects.requireNonNull(action, "action");
        if (workspaceId.isBlank()) {
            return observed(PolicySource.NO_WORKSPACE, action, Decision.failClosed(action.id(), action.action(),
                    FailureKind.LOAD, "workspace id is empty", 0), 0);
        }
        if (action.workspaceId() != null && !action.workspaceId().equalsIgnoreCase(workspaceId)) {
            return observed(key(workspaceId), action, Decision.failClosed(action.id(), action.action(),
                    FailureKind.MALFORMED_ACTION,
                    "action belongs to workspace `" + action.workspaceId() + "`, not `" + workspaceId + "`", 0), 0);
        }
        return decide(key(workspaceId), action, explain);
    }

    /**
     * Decides an action under its own {@code workspace_id}; an action that names none is decided under
     * {@link PolicySource#NO_WORKSPACE} (for a {@code FilePolicySource}: the policies that name no workspace).
     * What offline tools use; a service that knows the workspace calls {@link #evaluate(String, Action)}.
     */
    public Decision evaluate(Action action, boolean explain) {
        Objects.requireNonNull(action, "action");
        return decide(keyOf(action), action, explain);
    }

    private Decision decide(String key, Action action, boolean explain) {
        if (observer == null) {
            return decideUnobserved(key, action, explain);
        }
        long start = System.nanoTime();
        Decision d = decideUnobserved(key, action, explain);
        return observed(key, action, d, System.nanoTime() - start);
    }

    /** Tells the observers (if any) about a decision; whatever they throw changes nothing. */
    private Decision observed(String key, Action action, Decision d, long nanos) {
        if (observer != null) {
            try {
                observer.decided(key, action, d, nanos);
            } catch (RuntimeException | Error e) {
                // an observer counts, it does not decide: its failure changes no decision
            }
        }
        return d;
    }

    private Decision decideUnobserved(String key, Action action, boolean explain) {
        long start = System.nanoTime();
        PolicyBundle bundle;
        Hot h = hot.get(key);
        if (h != null && start - h.deadline() < 0) {
            bundle = h.bundle();
            if (countsHits) {
                try {
                    observer.bundleCacheHit();
                } catch (RuntimeException | Error e) {
                    // as in observed(): counting changes no decision
                }
            }
        } else {
            try {
                bundle = bundle(key);
            } catch (LoadFailure e) {
                return Decision.failClosed(action.id(), action.action(), FailureKind.LOAD, e.getMessage(), 0);
            }
        }
        if (evaluationObserver != null) {
            return decideObserved(bundle, action, explain);
        }
        return evaluator.evaluate(bundle, action, explain, null, start);
    }

    /** A bundle Caffeine holds, with the instant ({@link System#nanoTime()}) its load started. */
    private record Loaded(PolicyBundle bundle, long loadStarted) {}

    /** A bundle on the hot path, usable while {@code System.nanoTime() - deadline < 0}. */
    private record Hot(PolicyBundle bundle, long deadline) {}

    /** Drops a key from the hot path after Caffeine removed it (see {@link #removals}). */
    private void forgetHot(String key) {
        removals.incrementAndGet();
        hot.remove(key);
    }

    /** What one evaluation ran, kept while it decides and reported to the observer once it has decided. */
    private record Evaluated(BoundRule rule, Payload payload, ConditionResult result) {}

    /**
     * {@link #decideUnobserved} with a rule-level observer: the same evaluations, remembered, then reported (only
     * those of the decision returned), outside the time budget; whatever the observer throws is dropped.
     */
    private Decision decideObserved(PolicyBundle bundle, Action action, boolean explain) {
        List<Evaluated> seen = new ArrayList<>();
        Evaluator.RuleSink sink = (rule, payload, result) -> seen.add(new Evaluated(rule, payload, result));
        Decision d = evaluator.evaluate(bundle, action, explain, sink);
        try {
            for (Evaluated e : seen) {
                evaluationObserver.ruleEvaluated(observed(e.rule()), e.payload(), e.result());
            }
        } catch (RuntimeException | Error e) {
            // an observer is told, it does not decide
        }
        return d;
    }

    private static ObservedRule observed(BoundRule rule) {
        return new ObservedRule(rule.policyId(), rule.ruleId(), rule.effect(), rule.condition());
    }

    /**
     * Loads the bundle of the action's workspace now, unless it is cached, so that load and compile problems
     * reach the {@link EngineObserver}s in the caller's order (a replay reports them in stream order) rather than
     * on whichever thread decides first. Never throws for a failing source.
     */
    public void preload(Action action) {
        try {
            bundle(keyOf(Objects.requireNonNull(action, "action")));
        } catch (LoadFailure e) {
            // reported to the observers; the evaluation will deny
        }
    }

    private static String keyOf(Action action) {
        return RuleSelection.workspaceKey(action.workspaceId());
    }

    /** The one cache key (and source argument) for every spelling of a workspace id. */
    private static String key(String workspaceId) {
        return RuleSelection.workspaceKey(workspaceId);
    }

    /** {@link #load}, made once rather than per lookup. */
    private final java.util.function.Function<String, Loaded> loader = key -> {
        long started = System.nanoTime();
        return new Loaded(load(key), started);
    };

    private PolicyBundle bundle(String key) {
        try {
            long removalsBefore = removals.get();
            Loaded loaded = cache.get(key, loader);
            // Caffeine's deadline is its creation instant (at or after loadStarted) plus the same time to live,
            // so this one is never later than Caffeine's
            long ttl = loaded.bundle().valid() ? validNanos : invalidNanos;
            long deadline = loaded.loadStarted() + ttl;
            if (deadline - loaded.loadStarted() < 0) {
                deadline = loaded.loadStarted() + Long.MAX_VALUE; // a time to live past the clock's range
            }
            if (deadline - System.nanoTime() > 0) {
                Hot entry = new Hot(loaded.bundle(), deadline);
                hot.compute(key, (k, old) -> removals.get() == removalsBefore ? entry : old);
            }
            return loaded.bundle();
        } catch (LoadFailure e) {
            throw e;
        } catch (RuntimeException | Error e) {
            // the cache itself failed (what load() lets through is a LoadFailure): still a denial
            throw new LoadFailure("policies of workspace `" + key + "` could not be loaded: "
                    + e.getClass().getSimpleName(), e);
        }
    }

    private PolicyBundle load(String key) {
        List<Policy> policies;
        try {
            policies = source.policies(key);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failed(key, new LoadFailure("loading the policies of workspace `" + key + "` was interrupted", e));
        } catch (Exception | Error e) {
            // an Error too (StackOverflowError, NoClassDefFoundError, ExceptionInInitializerError, even an
            // OutOfMemoryError): whatever the source throws, the answer is a denial, and the next evaluation
            // loads again
            String detail = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            throw failed(key, new LoadFailure(key.isEmpty() ? "policies could not be loaded: " + detail
                    : "policies of workspace `" + key + "` could not be loaded: " + detail, e));
        }
        if (policies == null) {
            throw failed(key, new LoadFailure("policy source returned no list for workspace `" + key + "`", null));
        }
        PolicyBundle bundle;
        try {
            bundle = compiled.get(List.copyOf(policies), this::compile);
        } catch (RuntimeException | Error e) {
            bundle = PolicyBundle.failed(new BundleError("*", Diagnostic.at("", DiagnosticCode.PARSE_ERROR,
                    "policies could not be compiled: " + e.getClass().getSimpleName(), null)));
        }
        if (observer != null) {
            try {
                observer.bundleLoaded(key, bundle.errors());
            } catch (RuntimeException | Error e) {
                // an observer is told, it does not decide: its failure changes no decision
            }
        }
        return bundle;
    }

    private PolicyBundle compile(List<Policy> policies) {
        PolicyBundle bundle = PolicyBundle.compile(policies, validator);
        if (evaluationObserver != null && bundle.valid()) {
            try {
                evaluationObserver.rulesLoaded(bundle.rules().stream().map(PolicyEngine::observed).toList());
            } catch (RuntimeException | Error e) {
                // as in decideObserved(): an observer's failure changes no decision
            }
        }
        return warmUp && bundle.valid() ? bundle.warmUp() : bundle;
    }

    private LoadFailure failed(String key, LoadFailure failure) {
        if (observer != null) {
            try {
                observer.loadFailed(key, failure.getMessage());
            } catch (RuntimeException | Error e) {
                // as in load(): an observer's failure changes no decision
            }
        }
        return failure;
    }

    /**
     * Drops the workspace's cached bundle (every spelling of its id). Waits for a load of it in progress;
     * once this returns, every evaluation that starts uses a bundle loaded after this call.
     */
    public void invalidate(String workspaceId) {
        String key = key(Objects.requireNonNull(workspaceId, "workspaceId"));
        cache.invalidate(key);
        forgetHot(key);
    }

    /** Drops every cached bundle. */
    public void invalidateAll() {
        cache.invalidateAll();
        removals.incrementAndGet();
        hot.clear();
        compiled.invalidateAll();
    }

    /** The wall-clock budget (the backstop) of one evaluation. */
    public Duration timeBudget() {
        return evaluator.timeBudget();
    }

    /** The cost limit of one evaluation ({@link CostMeter}). */
    public long costLimit() {
        return evaluator.costLimit();
    }

    /**
     * Whether this engine calls any hook: an observer, a rule-level observer, or Caffeine's statistics (kept only
     * for observers' cache hits and misses). For the test that holds the hot path free of hooks nobody set.
     */
    boolean hooked() {
        return observer != null || evaluationObserver != null || cache.policy().isRecordingStats();
    }

    /** The keys on the hot path now (Caffeine's upkeep done first). For tests. */
    java.util.Set<String> hotKeys() {
        cache.cleanUp();
        return java.util.Set.copyOf(hot.keySet());
    }

    /** Whether Caffeine keeps statistics for the observers' cache hits and misses. For tests. */
    boolean recordsCacheStats() {
        return cache.policy().isRecordingStats();
    }

    /** Caffeine's statistics of the bundle cache, handed to the observer as hits and misses (nothing kept). */
    private static final class ObserverStats implements StatsCounter {
        private final EngineObserver observer;

        ObserverStats(EngineObserver observer) {
            this.observer = observer;
        }

        @Override
        public void recordHits(int count) {
            tell(count, true);
        }

        @Override
        public void recordMisses(int count) {
            tell(count, false);
        }

        private void tell(int count, boolean hit) {
            try {
                for (int i = 0; i < count; i++) {
                    if (hit) {
                        observer.bundleCacheHit();
                    } else {
                        observer.bundleCacheMiss();
                    }
                }
            } catch (RuntimeException | Error e) {
                // as in observed(): counting changes no decision
            }
        }

        @Override
        public void recordLoadSuccess(long loadTime) {
        }

        @Override
        public void recordLoadFailure(long loadTime) {
        }

        @Override
        public void recordEviction(int weight, RemovalCause cause) {
        }

        @Override
        public CacheStats snapshot() {
            return CacheStats.empty();
        }
    }

    /** Why a workspace's policies could not be loaded. The message is one line, fit for a decision's error. */
    private static final class LoadFailure extends RuntimeException {
        LoadFailure(String message, Throwable cause) {
            super(message, cause, false, false);
        }
    }

    /** Builds a {@link PolicyEngine}. Fails fast on bad settings. Not thread-safe; the engine is. */
    public static final class Builder {
        private final PolicySource source;
        private Clock clock = Clock.systemUTC();
        private Duration timeBudget = Evaluator.DEFAULT_BACKSTOP;
        private long costLimit = CostMeter.DEFAULT_LIMIT;
        private long maximumWorkspaces = 10_000;
        private Duration bundleTtl = Duration.ofMinutes(5);
        private Duration invalidBundleRetry = Duration.ofSeconds(5);
        private boolean warmUp = true;
        private final List<EngineObserver> observers = new ArrayList<>();
        private EvaluationObserver evaluationObserver;

        private Builder(PolicySource source) {
            this.source = Objects.requireNonNull(source, "source");
        }

        /** The clock behind {@code context.*} for actions without an instant; default system UTC. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The cost limit of one evaluation ({@link CostMeter}); default {@link CostMeter#DEFAULT_LIMIT}. Past it,
         * the decision is a fail-closed DENY with failure {@code cost_budget}, on every machine alike.
         */
        public Builder costLimit(long limit) {
            this.costLimit = CostMeter.checkLimit(limit);
            return this;
        }

        /**
         * The wall-clock budget of one evaluation, a far backstop against what the cost cannot see; default 1 s.
         * Past it, the decision is a fail-closed DENY with failure {@code time_budget}.
         */
        public Builder timeBudget(Duration budget) {
            this.timeBudget = Evaluator.checkTimeBudget(budget);
            return this;
        }

        /** How many workspaces' bundles to keep at most; default 10,000. */
        public Builder maximumWorkspaces(long n) {
            if (n < 1) {
                throw new IllegalArgumentException("maximumWorkspaces must be at least 1, got " + n);
            }
            this.maximumWorkspaces = n;
            return this;
        }

        /**
         * A safety net: rebuild a valid bundle this long after it was built even without an invalidation, so a
         * missed invalidation (a lost approval event, a policy edited in the database by hand) is not applied
         * forever. Default 5 minutes: invalidation is the mechanism, this bounds how stale a bundle can get.
         */
        public Builder bundleTtl(Duration ttl) {
            Objects.requireNonNull(ttl, "ttl");
            if (ttl.isNegative() || ttl.isZero()) {
                throw new IllegalArgumentException("bundleTtl must be positive, got " + ttl);
            }
            this.bundleTtl = ttl;
            return this;
        }

        /** How long an invalid bundle (policies that do not compile) is kept before it is rebuilt; default 5 s. */
        public Builder invalidBundleRetry(Duration retry) {
            Objects.requireNonNull(retry, "retry");
            if (retry.isNegative()) {
                throw new IllegalArgumentException("invalidBundleRetry must not be negative, got " + retry);
            }
            this.invalidBundleRetry = retry;
            return this;
        }

        /** Whether a freshly compiled bundle runs each rule once before deciding; default true. */
        public Builder warmUp(boolean warmUp) {
            this.warmUp = warmUp;
            return this;
        }

        /**
         * Adds an observer: told synchronously about every decision, bundle cache lookup and bundle load (see
         * {@link EngineObserver} for what is guaranteed and on which thread). May be called several times: every
         * observer is told, in the order added, each whatever the others throw. Default none, and then the engine
         * makes no observer call at all; unless one overrides {@link EngineObserver#bundleCacheHit} or
         * {@link EngineObserver#bundleCacheMiss}, the cache keeps no statistics for them. The decision log
         * ({@code dev.custody.engine.log.DecisionLog}) and the metrics
         * ({@code dev.custody.engine.metrics.EngineMetrics}) are observers; the caller owns them (and closes the
         * log).
         */
        public Builder observer(EngineObserver observer) {
            Objects.requireNonNull(observer, "observer");
            if (observer instanceof EvaluationObserver rules) {
                // the tools' rule-level observer (coverage): its type is not exported to embedders
                if (evaluationObserver != null) {
                    throw new IllegalStateException("the builder has a rule observer already");
                }
                evaluationObserver = rules;
            }
            observers.add(observer);
            return this;
        }

        public PolicyEngine build() {
            return new PolicyEngine(this);
        }
    }
}
