package dev.custody.engine.metrics;

import dev.custody.engine.EngineObserver;
import dev.custody.engine.Decision;
import dev.custody.engine.FailureKind;
import dev.custody.engine.Outcome;
import dev.custody.engine.log.DecisionLog;
import dev.custody.engine.payload.Action;
import dev.custody.engine.policy.BundleError;
import dev.custody.engine.schema.TriggerAction;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The engine's metrics in a Micrometer {@link MeterRegistry}: an {@link EngineObserver} that counts what the
 * engine does with Micrometer's own meters (no counting of ours). Register it when building the engine:
 *
 * <pre>{@code
 * EngineMetrics metrics = EngineMetrics.builder(registry).decisionLog(log).build();
 * PolicyEngine engine = PolicyEngine.builder(source).observer(log).observer(metrics).build();
 * }</pre>
 *
 * <h2>Meters</h2>
 * Every meter also carries the {@link Builder#tags common tags} given to the builder.
 * <table>
 *   <caption>Meter names and tags</caption>
 *   <tr><th>name</th><th>type</th><th>tags</th><th>counts</th></tr>
 *   <tr><td>{@code custody.decisions}</td><td>counter</td>
 *       <td>{@code action} ({@code withdrawal.create}, {@code web3.contract_call}, {@code unknown}),
 *           {@code outcome} ({@code allow}, {@code deny}, {@code no_match}),
 *           {@code failure} ({@code none}, {@code load}, {@code compile}, {@code malformed_action},
 *           {@code rule_error}, {@code cost_budget}, {@code time_budget}, {@code internal})</td>
 *       <td>decisions returned by {@code evaluate}; a fail-closed DENY carries its failure kind</td></tr>
 *   <tr><td>{@code custody.decision.duration}</td><td>timer</td><td>none</td>
 *       <td>the time {@code evaluate} took, bundle lookup (and a load on a cache miss) included</td></tr>
 *   <tr><td>{@code custody.rule.matches}</td><td>counter</td>
 *       <td>{@code policy}, {@code rule}, {@code outcome} ({@code allow}, {@code deny})</td>
 *       <td>decisions a rule decided (the attributed rule: first true rule of the winning effect)</td></tr>
 *   <tr><td>{@code custody.rule.failures}</td><td>counter</td>
 *       <td>{@code policy}, {@code rule}, {@code failure} ({@code rule_error}, {@code cost_budget}, {@code time_budget})</td>
 *       <td>fail-closed decisions attributed to a rule</td></tr>
 *   <tr><td>{@code custody.bundle.loads}</td><td>counter</td>
 *       <td>{@code result} ({@code compiled}, {@code compile_failed}, {@code load_failed})</td>
 *       <td>bundle loads: a valid bundle built, a bundle whose policies do not compile (it denies with
 *           failure {@code compile}), a policy source that failed (failure {@code load})</td></tr>
 *   <tr><td>{@code custody.bundle.cache.gets}</td><td>counter</td><td>{@code result} ({@code hit}, {@code miss})</td>
 *       <td>bundle cache lookups by decisions</td></tr>
 *   <tr><td>{@code custody.decision.log.dropped}</td><td>function counter</td><td>none</td>
 *       <td>{@link DecisionLog#dropped()}, when a log was given to {@link Builder#decisionLog}</td></tr>
 *   <tr><td>{@code custody.decision.log.failed}</td><td>function counter</td><td>none</td>
 *       <td>{@link DecisionLog#failed()}, likewise</td></tr>
 *   <tr><td>{@code custody.decision.log.syncs}</td><td>function counter</td><td>none</td>
 *       <td>{@link DecisionLog#syncs()}, when the log given is {@link DecisionLog#isDurable() durable}: one per batch,
 *           so decisions divided by syncs is the mean batch of the group commit</td></tr>
 * </table>
 * The {@code custody.decisions} counters (every valid combination), the loads and cache counters and the timer are
 * registered when the metrics are built, so a dashboard sees zeros rather than no series. Percentiles and
 * histograms of the timer are the registry's choice (a {@code MeterFilter}, as for any Micrometer timer).
 *
 * <h2>Bounded cardinality</h2>
 * Per-rule meters ({@code custody.rule.matches}, {@code custody.rule.failures}) are tagged with policy and rule
 * ids, which a service's users create. At most {@link Builder#maxRuleMeters} of them are registered (default
 * {@value #DEFAULT_MAX_RULE_METERS}), the first ones seen; Micrometer never removes a meter, so a rule deleted
 * keeps its slot. Past the bound, a new (policy, rule) pair is counted on the meter of the same name and
 * outcome (or failure) tagged {@code policy=_other, rule=_other} ({@link #OTHER}): totals stay exact, the
 * breakdown is lost for rules seen late. So a registry holds at most {@code maxRuleMeters} per-rule meters plus
 * four {@code _other} meters. Workspace ids are never a tag.
 *
 * <h2>Guarantees</h2>
 * Counting is synchronous, on the deciding thread, and cheap: an array or hash lookup and a Micrometer
 * increment; only the first sighting of a rule registers a meter (under a lock held for that registration). No
 * method throws: a failure of the registry is caught here, and the engine ignores whatever an observer throws,
 * so metrics never change a decision. This class is the only one in {@code engine-core} that links Micrometer,
 * an optional dependency: an engine built without it runs without Micrometer on the class path.
 *
 * <p>Thread-safe.
 */
public final class EngineMetrics implements EngineObserver {
    /** The default bound on per-rule meters. */
    public static final int DEFAULT_MAX_RULE_METERS = 1000;
    /** The policy and rule tag of matches counted past the bound. */
    public static final String OTHER = "_other";

    private static final String UNKNOWN_ACTION = "unknown";
    private static final String NONE = "none";

    private final MeterRegistry registry;
    private final Tags tags;
    private final int maxRuleMeters;
    /** By outcome, failure kind (ordinal + 1; 0 is none) and action (ordinal + 1; 0 is unknown). */
    private final Counter[][][] decisions;
    private final Timer duration;
    private final Counter compiled;
    private final Counter compileFailed;
    private final Counter loadFailed;
    private final Counter hits;
    private final Counter misses;
    private final Map<RuleKey, Counter> rules = new ConcurrentHashMap<>();
    private final Map<RuleKey, Counter> overflow = new ConcurrentHashMap<>();

    private EngineMetrics(Builder b) {
        this.registry = b.registry;
        this.tags = b.tags;
        this.maxRuleMeters = b.maxRuleMeters;
        int actions = TriggerAction.values().length + 1;
        this.decisions = new Counter[Outcome.values().length][FailureKind.values().length + 1][actions];
        for (Outcome outcome : Outcome.values()) {
            for (int f = 0; f <= FailureKind.values().length; f++) {
                if (f > 0 && outcome != Outcome.DENY) {
                    continue;
                }
                String failure = f == 0 ? NONE : FailureKind.values()[f - 1].wireName();
                for (int a = 0; a < actions; a++) {
                    String action = a == 0 ? UNKNOWN_ACTION : TriggerAction.values()[a - 1].wireName();
                    decisions[outcome.ordinal()][f][a] = Counter.builder("custody.decisions")
                            .description("Decisions by action, outcome and failure kind")
                            .tags(tags).tag("action", action).tag("outcome", word(outcome)).tag("failure", failure)
                            .register(registry);
                }
            }
        }
        this.duration = Timer.builder("custody.decision.duration")
                .description("Time PolicyEngine.evaluate took, bundle lookup included")
                .tags(tags).register(registry);
        this.compiled = loads("compiled");
        this.compileFailed = loads("compile_failed");
        this.loadFailed = loads("load_failed");
        this.hits = cache("hit");
        this.misses = cache("miss");
        if (b.log != null) {
            FunctionCounter.builder("custody.decision.log.dropped", b.log, DecisionLog::dropped)
                    .description("Decisions the decision log dropped because its queue was full")
                    .tags(tags).register(registry);
            FunctionCounter.builder("custody.decision.log.failed", b.log, DecisionLog::failed)
                    .description("Decisions the decision log's listener failed on")
                    .tags(tags).register(registry);
            if (b.log.isDurable()) {
                FunctionCounter.builder("custody.decision.log.syncs", b.log, DecisionLog::syncs)
                        .description("Syncs (fsyncs) of the durable decision log, one per batch of decisions")
                        .tags(tags).register(registry);
            }
        }
    }

    /** A builder of metrics registered in {@code registry}. */
    public static Builder builder(MeterRegistry registry) {
        return new Builder(registry);
    }

    private Counter loads(String result) {
        return Counter.builder("custody.bundle.loads").description("Bundle loads by result")
                .tags(tags).tag("result", result).register(registry);
    }

    private Counter cache(String result) {
        return Counter.builder("custody.bundle.cache.gets").description("Bundle cache lookups by result")
                .tags(tags).tag("result", result).register(registry);
    }

    private static String word(Outcome outcome) {
        return outcome.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public void decided(String workspaceId, Action action, Decision decision, long nanos) {
        try {
            FailureKind failure = decision.failure();
            TriggerAction trigger = decision.action();
            decisions[decision.outcome().ordinal()][failure == null ? 0 : failure.ordinal() + 1]
                    [trigger == null ? 0 : trigger.ordinal() + 1].increment();
            duration.record(nanos, TimeUnit.NANOSECONDS);
            if (decision.ruleId() != null && decision.policyId() != null) {
                if (failure == null) {
                    rule("custody.rule.matches", "outcome", word(decision.outcome()), decision).increment();
                } else {
                    rule("custody.rule.failures", "failure", failure.wireName(), decision).increment();
                }
            }
        } catch (RuntimeException | Error e) {
            // counting changes no decision
        }
    }

    /** The per-rule counter, registered on first sight while under the bound, else the {@code _other} one. */
    private Counter rule(String name, String kindTag, String kind, Decision d) {
        RuleKey key = new RuleKey(name, kindTag, kind, d.policyId(), d.ruleId());
        Counter c = rules.get(key);
        if (c != null) {
            return c;
        }
        // past the bound, a rule not seen before is counted without taking the lock
        return rules.size() >= maxRuleMeters ? other(key) : register(key);
    }

    private synchronized Counter register(RuleKey key) {
        Counter c = rules.get(key);
        if (c != null) {
            return c;
        }
        if (rules.size() >= maxRuleMeters) {
            return other(key);
        }
        c = meter(key);
        rules.put(key, c);
        return c;
    }

    private Counter other(RuleKey key) {
        RuleKey other = new RuleKey(key.name, key.kindTag, key.kind, OTHER, OTHER);
        Counter c = overflow.get(other);
        return c != null ? c : overflow.computeIfAbsent(other, this::meter);
    }

    private Counter meter(RuleKey key) {
        return Counter.builder(key.name)
                .description(key.name.endsWith("matches") ? "Decisions by deciding rule"
                        : "Fail-closed decisions by failing rule")
                .tags(tags).tag("policy", key.policy).tag("rule", key.rule).tag(key.kindTag, key.kind)
                .register(registry);
    }

    @Override
    public void bundleLoaded(String workspaceId, List<BundleError> errors) {
        try {
            (errors.isEmpty() ? compiled : compileFailed).increment();
        } catch (RuntimeException | Error e) {
            // as in decided()
        }
    }

    @Override
    public void loadFailed(String workspaceId, String message) {
        try {
            loadFailed.increment();
        } catch (RuntimeException | Error e) {
            // as in decided()
        }
    }

    @Override
    public void bundleCacheHit() {
        try {
            hits.increment();
        } catch (RuntimeException | Error e) {
            // as in decided()
        }
    }

    @Override
    public void bundleCacheMiss() {
        try {
            misses.increment();
        } catch (RuntimeException | Error e) {
            // as in decided()
        }
    }

    /** How many per-rule meters are registered (at most {@link Builder#maxRuleMeters}; {@code _other} not counted). */
    public int ruleMeters() {
        return rules.size();
    }

    private record RuleKey(String name, String kindTag, String kind, String policy, String rule) {}

    /** Builds {@link EngineMetrics}. Not thread-safe; the metrics are. */
    public static final class Builder {
        private final MeterRegistry registry;
        private Tags tags = Tags.empty();
        private int maxRuleMeters = DEFAULT_MAX_RULE_METERS;
        private DecisionLog log;

        private Builder(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
        }

        /** Tags added to every meter (e.g. {@code service}); default none. */
        public Builder tags(Iterable<Tag> tags) {
            this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
            return this;
        }

        /** The most per-rule meters to register; default {@value EngineMetrics#DEFAULT_MAX_RULE_METERS}; 0 keeps only totals. */
        public Builder maxRuleMeters(int max) {
            if (max < 0) {
                throw new IllegalArgumentException("maxRuleMeters must not be negative, got " + max);
            }
            this.maxRuleMeters = max;
            return this;
        }

        /** Also expose this decision log's dropped and failed counts; default none. */
        public Builder decisionLog(DecisionLog log) {
            this.log = Objects.requireNonNull(log, "log");
            return this;
        }

        /** The metrics, their fixed meters registered. */
        public EngineMetrics build() {
            return new EngineMetrics(this);
        }
    }
}
