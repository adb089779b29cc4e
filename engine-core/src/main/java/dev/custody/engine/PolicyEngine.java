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
import dev.custody.engine.internal.access.EngineAccess;
import dev.custody.engine.internal.eval.Evaluator;
import dev.custody.engine.log.DecisionEvent;
import dev.custody.engine.log.DecisionLog;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.Payload;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.validate.PolicyValidator;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import dev.custody.engine.schema.Uuids;
import java.util.Objects;

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
 * <h2>Coverage</h2>
 * A coverage observer (set by the CLI through {@code CoverageRecorder.observing}) is told the rules of every bundle
 * built and every rule each decision evaluated, once the decision is made (docs/design.md §5.3); it cannot change a
 * decision.
 * Without one (the default) the engine does no coverage work.
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
    private final LoadListener listener;
    private final DecisionLog decisionLog;
    private final EngineObserver observer;
    private final EvaluationObserver evaluationObserver;
    private final Clock clock;
    private final Cache<String, PolicyBundle> cache;
    private final Cache<List<Policy>, PolicyBundle> compiled;

    private PolicyEngine(Builder b) {
        this.source = b.source;
        this.validator = new PolicyValidator(RuleCompiler.shared());
        this.evaluator = Evaluator.builder().clock(b.clock).timeBudget(b.timeBudget).costLimit(b.costLimit).build();
        this.warmUp = b.warmUp;
        this.listener = both(b.listener, b.observer);
        this.decisionLog = b.decisionLog;
        this.observer = b.observer;
        this.evaluationObserver = b.evaluationObserver;
        this.clock = b.clock;
        long validNanos = b.bundleTtl.toNanos();
        long invalidNanos = b.invalidBundleRetry.toNanos();
        Caffeine<Object, Object> caffeine = Caffeine.newBuilder();
        if (observer != null) {
            caffeine.recordStats(() -> new ObserverStats(observer));
        }
        this.cache = caffeine
                // Caffeine's upkeep (draining its read buffers, expiring) runs on the deciding thread, a few
                // hundred nanoseconds now and then, rather than being handed to the common pool: that hand-off
                // woke another thread about every hundred reads and cost tens of microseconds, the engine's p99
                .executor(Runnable::run)
                .maximumSize(b.maximumWorkspaces)
                .expireAfter(new Expiry<String, PolicyBundle>() {
                    @Override
                    public long expireAfterCreate(String key, PolicyBundle bundle, long now) {
                        return bundle.valid() ? validNanos : invalidNanos;
                    }

                    @Override
                    public long expireAfterUpdate(String key, PolicyBundle bundle, long now, long current) {
                        return expireAfterCreate(key, bundle, now);
                    }

                    @Override
                    public long expireAfterRead(String key, PolicyBundle bundle, long now, long current) {
                        return current;
                    }
                })
                .build();
        this.compiled = Caffeine.newBuilder().maximumSize(Math.min(b.maximumWorkspaces, 256)).build();
    }

    static {
        // coverage (a tool's concern, package dev.custody.engine.coverage) hooks into the builder through here
        EngineAccess.install((EngineAccess.Engines) (builder, observer) -> builder.evaluationObserver(observer));
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
            return observed(PolicySource.NO_WORKSPACE, Decision.failClosed(action.id(), action.action(),
                    FailureKind.LOAD, "workspace id is empty", 0), 0);
        }
        if (action.workspaceId() != null && !action.workspaceId().equalsIgnoreCase(workspaceId)) {
            return observed(key(workspaceId), Decision.failClosed(action.id(), action.action(),
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
        long start = observer == null ? 0 : System.nanoTime();
        Decision d = decideUnlogged(key, action, explain);
        if (decisionLog != null) {
            decisionLog.offer(new DecisionEvent(key, action, d, clock.instant()));
        }
        return observer == null ? d : observed(key, d, System.nanoTime() - start);
    }

    /** Tells the observer (if any) about a decision; whatever it throws changes nothing. */
    private Decision observed(String key, Decision d, long nanos) {
        if (observer != null) {
            try {
                observer.decided(key, d, nanos);
            } catch (RuntimeException | Error e) {
                // an observer counts, it does not decide: its failure changes no decision
            }
        }
        return d;
    }

    private Decision decideUnlogged(String key, Action action, boolean explain) {
        PolicyBundle bundle;
        try {
            bundle = bundle(key);
        } catch (LoadFailure e) {
            return Decision.failClosed(action.id(), action.action(), FailureKind.LOAD, e.getMessage(), 0);
        }
        if (evaluationObserver != null) {
            return decideObserved(bundle, action, explain);
        }
        return evaluator.evaluate(bundle, action, explain);
    }

    /** What one evaluation ran, kept while it decides and reported to the observer once it has decided. */
    private record Evaluated(BoundRule rule, Payload payload, ConditionResult result) {}

    /**
     * {@link #decideUnlogged} with an observer: the same evaluations, remembered, then reported (only those of the
     * decision returned), outside the time budget; whatever the observer throws is dropped.
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
     * reach the {@link LoadListener} in the caller's order (a replay reports them in stream order) rather than
     * on whichever thread decides first. Never throws for a failing source.
     */
    public void preload(Action action) {
        try {
            bundle(keyOf(Objects.requireNonNull(action, "action")));
        } catch (LoadFailure e) {
            // reported to the listener; the evaluation will deny
        }
    }

    private static String keyOf(Action action) {
        return action.workspaceId() == null || action.workspaceId().isBlank() ? PolicySource.NO_WORKSPACE
                : key(action.workspaceId());
    }

    /** The one cache key (and source argument) for every spelling of a workspace id. */
    private static String key(String workspaceId) {
        return Uuids.lowerCase(workspaceId.strip());
    }

    /** {@link #load}, made once rather than per lookup. */
    private final java.util.function.Function<String, PolicyBundle> loader = this::load;

    private PolicyBundle bundle(String key) {
        try {
            return cache.get(key, loader);
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
        if (listener != null) {
            try {
                listener.loaded(key, bundle.errors());
            } catch (RuntimeException | Error e) {
                // a listener is told, it does not decide: its failure changes no decision
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
        if (listener != null) {
            try {
                listener.failed(key, failure.getMessage());
            } catch (RuntimeException | Error e) {
                // as in load(): a listener's failure changes no decision
            }
        }
        return failure;
    }

    /**
     * Drops the workspace's cached bundle (every spelling of its id). Waits for a load of it in progress;
     * once this returns, every evaluation that starts uses a bundle loaded after this call.
     */
    public void invalidate(String workspaceId) {
        cache.invalidate(key(Objects.requireNonNull(workspaceId, "workspaceId")));
    }

    /** Drops every cached bundle. */
    public void invalidateAll() {
        cache.invalidateAll();
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

    /** The load listener and the observer, both told (either may be null). */
    private static LoadListener both(LoadListener first, LoadListener second) {
        if (first == null || second == null) {
            return first == null ? second : first;
        }
        return new LoadListener() {
            @Override
            public void loaded(String workspaceId, List<BundleError> errors) {
                try {
                    first.loaded(workspaceId, errors);
                } finally {
                    second.loaded(workspaceId, errors);
                }
            }

            @Override
            public void failed(String workspaceId, String message) {
                try {
                    first.failed(workspaceId, message);
                } finally {
                    second.failed(workspaceId, message);
                }
            }
        };
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

    /**
     * Told about every bundle the engine loads: for reporting (the CLI prints a workspace's compile errors
     * once, at file:line:column) and monitoring. Called on the loading thread, while the workspace's cache
     * entry is being computed: an implementation must be quick, must not throw, and must not call back into
     * the engine for the same workspace. Implementations must be thread-safe. Both methods do nothing unless
     * overridden.
     */
    public interface LoadListener {
        /**
         * A workspace's bundle was built.
         *
         * @param workspaceId the canonical workspace id, or {@link PolicySource#NO_WORKSPACE}
         * @param errors why the bundle is invalid (it then denies every action, failure {@code compile}); empty
         *     when it is valid
         */
        default void loaded(String workspaceId, List<BundleError> errors) {
        }

        /**
         * The source failed: nothing is cached, the workspace's actions are denied (failure {@code load}) and
         * the next evaluation loads again.
         */
        default void failed(String workspaceId, String message) {
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
        private LoadListener listener;
        private DecisionLog decisionLog;
        private EngineObserver observer;
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
         * Every decision is offered to this log (off the deciding thread: a full queue drops and counts, never
         * blocks); default none. The caller owns the log and closes it.
         */
        public Builder decisionLog(DecisionLog log) {
            this.decisionLog = Objects.requireNonNull(log, "log");
            return this;
        }

        /**
         * Told synchronously about every decision, bundle cache lookup and bundle load (for metrics, see
         * {@code dev.custody.engine.metrics.EngineMetrics}); default none. Called on the deciding thread; what it
         * throws is ignored. A {@link #loadListener} is told as well.
         */
        public Builder observer(EngineObserver observer) {
            this.observer = Objects.requireNonNull(observer, "observer");
            return this;
        }

        /**
         * Told the rules of every bundle built and every rule each decision evaluated, for coverage
         * ({@code dev.custody.engine.coverage.CoverageRecorder}); default none, and then the engine does no
         * coverage work. It never changes a decision. Not API: the CLI sets it through
         * {@code CoverageRecorder.observe}.
         */
        Builder evaluationObserver(EvaluationObserver observer) {
            this.evaluationObserver = Objects.requireNonNull(observer, "observer");
            return this;
        }

        /** Told about every bundle load; default none. */
        public Builder loadListener(LoadListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        public PolicyEngine build() {
            return new PolicyEngine(this);
        }
    }
}
