package dev.custody.engine;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.custody.engine.bundle.BundleError;
import dev.custody.engine.bundle.PolicyBundle;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.diagnostic.DiagnosticCode;
import dev.custody.engine.eval.Decision;
import dev.custody.engine.eval.Evaluator;
import dev.custody.engine.payload.Action;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.policy.PolicyValidator;
import dev.custody.engine.schema.Limits;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The engine a service embeds: decides actions of a workspace against its active policies, fail-closed,
 * with the workspace's compiled bundle cached.
 *
 * <pre>{@code
 * PolicyEngine engine = PolicyEngine.builder(workspaceId -> repository.policiesOf(workspaceId)).build();
 * Decision d = engine.evaluate(workspaceId, action);
 * if (d.denied()) { block(d.ruleId(), d.reason()); }
 * // after an approval, a rejection, or a wallet-targeting change:
 * engine.invalidate(workspaceId);
 * }</pre>
 *
 * <h2>Cache</h2>
 * A Caffeine cache maps a workspace id to its {@link PolicyBundle}. Concurrent evaluations of a workspace
 * whose bundle is not cached coalesce into one load. A load that fails (the source throws) is not cached:
 * the evaluation is denied ({@code fail_closed}) and the next one loads again. A bundle whose policies do
 * not compile is cached as the invalid bundle it is (it denies every action) for
 * {@link Builder#invalidBundleRetry} only, then rebuilt, so a deterministic compile error is not
 * recompiled on every request yet a fix is picked up even without an invalidation.
 *
 * <h2>Invalidation</h2>
 * {@link #invalidate} waits for a load of that workspace in progress, then discards it; once it returns,
 * every evaluation that starts afterwards uses a bundle loaded afterwards. (An evaluation already running
 * finishes on the bundle it started with.) Call it after the policy source changed: approvals, rejections,
 * wallet-targeting changes.
 *
 * <h2>Time budget</h2>
 * The budget (default 100 ms) covers deciding: checking the action and evaluating rules. Loading and
 * compiling a bundle on a cache miss is not counted: it is bounded by the source's own time-outs and done
 * once per invalidation, and counting it would deny the first action after every approval in a large
 * workspace.
 *
 * <p>Thread-safe. {@link #evaluate} never throws (null arguments aside).
 */
public final class PolicyEngine {
    private final PolicySource source;
    private final PolicyValidator validator;
    private final Evaluator evaluator;
    private final Cache<String, PolicyBundle> cache;

    private PolicyEngine(Builder b) {
        this.source = b.source;
        this.validator = new PolicyValidator(b.compiler);
        this.evaluator = Evaluator.builder().clock(b.clock).timeBudget(b.timeBudget).build();
        long validNanos = b.bundleTtl == null ? Long.MAX_VALUE : b.bundleTtl.toNanos();
        long invalidNanos = b.invalidBundleRetry.toNanos();
        this.cache = Caffeine.newBuilder()
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
     * Decides an action of a workspace.
     *
     * @param explain whether to record every evaluated rule in {@link Decision#trace()}
     */
    public Decision evaluate(String workspaceId, Action action, boolean explain) {
        Objects.requireNonNull(workspaceId, "workspaceId");
        Objects.requireNonNull(action, "action");
        if (workspaceId.isBlank()) {
            return Decision.failClosed(action.id(), action.action(), "workspace id is empty", 0);
        }
        if (action.workspaceId() != null && !action.workspaceId().equalsIgnoreCase(workspaceId)) {
            return Decision.failClosed(action.id(), action.action(), "action belongs to workspace `"
                    + action.workspaceId() + "`, not `" + workspaceId + "`", 0);
        }
        PolicyBundle bundle;
        try {
            bundle = bundle(workspaceId);
        } catch (LoadFailure e) {
            return Decision.failClosed(action.id(), action.action(), e.getMessage(), 0);
        }
        return evaluator.evaluate(bundle, action, explain);
    }

    /**
     * The workspace's bundle, from the cache or loaded now.
     *
     * @throws LoadFailure when the source fails (nothing is cached then)
     */
    public PolicyBundle bundle(String workspaceId) {
        try {
            return cache.get(workspaceId, this::load);
        } catch (LoadFailure e) {
            throw e;
        } catch (RuntimeException e) {
            throw new LoadFailure("policies of workspace `" + workspaceId + "` could not be loaded: "
                    + e.getClass().getSimpleName(), e);
        }
    }

    private PolicyBundle load(String workspaceId) {
        List<Policy> policies;
        try {
            policies = source.policies(workspaceId);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LoadFailure("loading the policies of workspace `" + workspaceId + "` was interrupted", e);
        } catch (Exception e) {
            String detail = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            throw new LoadFailure("policies of workspace `" + workspaceId + "` could not be loaded: " + detail, e);
        }
        if (policies == null) {
            throw new LoadFailure("policy source returned no list for workspace `" + workspaceId + "`", null);
        }
        try {
            return PolicyBundle.compile(policies, validator);
        } catch (RuntimeException | StackOverflowError e) {
            return PolicyBundle.failed(new BundleError("*", Diagnostic.at("", DiagnosticCode.PARSE_ERROR,
                    "policies could not be compiled: " + e.getClass().getSimpleName(), null)));
        }
    }

    /**
     * Drops the workspace's cached bundle. Waits for a load of it in progress; once this returns, every
     * evaluation that starts uses a bundle loaded after this call.
     */
    public void invalidate(String workspaceId) {
        cache.invalidate(Objects.requireNonNull(workspaceId, "workspaceId"));
    }

    /** Drops every cached bundle. */
    public void invalidateAll() {
        cache.invalidateAll();
    }

    /** The evaluator (clock and budget) this engine decides with. */
    public Evaluator evaluator() {
        return evaluator;
    }

    /** The validator (and compiler) bundles are built with. */
    public PolicyValidator validator() {
        return validator;
    }

    /** Why a workspace's policies could not be loaded. The message is one line, fit for a decision's error. */
    public static final class LoadFailure extends RuntimeException {
        LoadFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Builds a {@link PolicyEngine}. Fails fast on bad settings. Not thread-safe; the engine is. */
    public static final class Builder {
        private final PolicySource source;
        private RuleCompiler compiler;
        private Clock clock = Clock.systemUTC();
        private Duration timeBudget = Limits.EVALUATION_TIMEOUT;
        private long maximumWorkspaces = 10_000;
        private Duration bundleTtl;
        private Duration invalidBundleRetry = Duration.ofSeconds(5);

        private Builder(PolicySource source) {
            this.source = Objects.requireNonNull(source, "source");
        }

        /** The compiler (and its evaluation bounds); default {@link RuleCompiler#create()}. */
        public Builder compiler(RuleCompiler compiler) {
            this.compiler = Objects.requireNonNull(compiler, "compiler");
            return this;
        }

        /** The clock behind {@code context.*} for actions without an instant; default system UTC. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** The time budget of one evaluation; default 100 ms. */
        public Builder timeBudget(Duration budget) {
            Objects.requireNonNull(budget, "budget");
            if (budget.isNegative() || budget.isZero()) {
                throw new IllegalArgumentException("time budget must be positive, got " + budget);
            }
            this.timeBudget = budget;
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
         * A safety net: rebuild a valid bundle this long after it was built even without an
         * invalidation. Default: never (invalidation is the mechanism).
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

        public PolicyEngine build() {
            if (compiler == null) {
                compiler = RuleCompiler.create();
            }
            return new PolicyEngine(this);
        }
    }
}
