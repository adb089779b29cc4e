package dev.custody.engine;

import static dev.custody.engine.Fixtures.allow;
import static dev.custody.engine.Fixtures.deny;
import static dev.custody.engine.Fixtures.policy;
import static dev.custody.engine.Fixtures.withdrawal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.compile.ConditionResult;
import dev.custody.engine.coverage.RuleObserver;
import dev.custody.engine.coverage.CoverageRecorder;
import dev.custody.engine.coverage.EvaluationObserver;
import dev.custody.engine.coverage.ObservedRule;
import dev.custody.engine.log.DecisionLog;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.Payload;
import dev.custody.engine.policy.BundleError;
import dev.custody.engine.policy.Policy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The one hook: exactly which calls an {@link EngineObserver} gets, in which order, several observers composed,
 * what they throw ignored, and no hook at all on an engine nobody observes.
 */
class EngineObserverTest {
    private static final String WS = "ws-1";
    private static final Duration PATIENT = Duration.ofSeconds(30);
    private static final List<Policy> LIMITS = List.of(policy("limits", deny("big", "withdrawal.value_usd > 10000.0"),
            allow("small", "withdrawal.value_usd < 100.0")));

    /** Writes down every call, one line each. */
    static final class Recording implements EngineObserver {
        final List<String> calls = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void decided(String workspaceId, Action action, Decision decision, long nanos) {
            calls.add("decided " + workspaceId + " " + action.id() + " " + decision.outcome()
                    + (decision.failure() == null ? "" : " " + decision.failure().wireName())
                    + (nanos >= 0 ? "" : " negative time"));
        }

        @Override
        public void bundleCacheHit() {
            calls.add("hit");
        }

        @Override
        public void bundleCacheMiss() {
            calls.add("miss");
        }

        @Override
        public void bundleLoaded(String workspaceId, List<BundleError> errors) {
            calls.add("loaded " + workspaceId + " " + errors.size() + " error(s)");
        }

        @Override
        public void loadFailed(String workspaceId, String message) {
            calls.add("failed " + workspaceId + ": " + message);
        }
    }

    /** Throws from every method. */
    static final class Throwing implements EngineObserver {
        @Override
        public void decided(String workspaceId, Action action, Decision decision, long nanos) {
            throw new IllegalStateException("down");
        }

        @Override
        public void bundleCacheHit() {
            throw new OutOfMemoryError("simulated");
        }

        @Override
        public void bundleCacheMiss() {
            throw new IllegalStateException("down");
        }

        @Override
        public void bundleLoaded(String workspaceId, List<BundleError> errors) {
            throw new StackOverflowError("simulated");
        }

        @Override
        public void loadFailed(String workspaceId, String message) {
            throw new IllegalStateException("down");
        }
    }

    private static List<String> run(PolicyEngine engine) {
        List<String> outcomes = new ArrayList<>();
        outcomes.add(engine.evaluate(WS, withdrawal(50).id("a1").build()).outcome().name());
        outcomes.add(engine.evaluate("WS-1", withdrawal(20000).id("a2").build()).outcome().name());
        outcomes.add(engine.evaluate(" ", withdrawal(50).id("a3").build()).failure().wireName());
        outcomes.add(engine.evaluate(WS, withdrawal(50).id("a4").workspaceId("ws-2").build()).failure().wireName());
        return outcomes;
    }

    private static final List<String> EXPECTED_CALLS = List.of(
            "miss", "loaded ws-1 0 error(s)", "decided ws-1 a1 ALLOW",
            "hit", "decided ws-1 a2 DENY",
            "decided  a3 DENY load",
            "decided ws-1 a4 DENY malformed_action");

    @Test
    void everyDecisionLookupAndLoadIsToldOnceInOrder() {
        Recording r = new Recording();
        PolicyEngine engine = PolicyEngine.builder(ws -> LIMITS).timeBudget(PATIENT).observer(r).build();
        assertEquals(List.of("ALLOW", "DENY", "load", "malformed_action"), run(engine));
        assertEquals(EXPECTED_CALLS, r.calls);
    }

    @Test
    void aFailingSourceIsToldEachTimeAndNothingIsCached() {
        Recording r = new Recording();
        AtomicBoolean down = new AtomicBoolean(true);
        PolicyEngine engine = PolicyEngine.builder(ws -> {
            if (down.get()) {
                throw new java.io.IOException("database down");
            }
            return LIMITS;
        }).timeBudget(PATIENT).observer(r).build();
        assertEquals(FailureKind.LOAD, engine.evaluate(WS, withdrawal(50).id("a1").build()).failure());
        down.set(false);
        assertEquals(Outcome.ALLOW, engine.evaluate(WS, withdrawal(50).id("a2").build()).outcome());
        assertEquals(List.of("miss", "failed ws-1: policies of workspace `ws-1` could not be loaded: database down",
                "decided ws-1 a1 DENY load", "miss", "loaded ws-1 0 error(s)", "decided ws-1 a2 ALLOW"), r.calls);
    }

    @Test
    void anInvalidBundleIsToldWithItsErrors() {
        Recording r = new Recording();
        PolicyEngine engine = PolicyEngine.builder(ws -> List.of(policy("p", deny("typo", "withdrawal.value_usd >"))))
                .timeBudget(PATIENT).observer(r).build();
        assertEquals(FailureKind.COMPILE, engine.evaluate(WS, withdrawal(1).id("a1").build()).failure());
        assertEquals(List.of("miss", "loaded ws-1 1 error(s)", "decided ws-1 a1 DENY compile"), r.calls);
    }

    @Test
    void severalObserversAreAllToldInOrderWhateverTheOthersThrow() {
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        Recording first = new Recording();
        Recording last = new Recording();
        PolicyEngine engine = PolicyEngine.builder(ws -> LIMITS).timeBudget(PATIENT)
                .observer(first)
                .observer(new Throwing())
                .observer(new EngineObserver() {
                    @Override
                    public void decided(String workspaceId, Action action, Decision decision, long nanos) {
                        order.add("second " + action.id());
                    }
                })
                .observer(last)
                .build();
        PolicyEngine plain = PolicyEngine.builder(ws -> LIMITS).timeBudget(PATIENT).build();
        assertEquals(run(plain), run(engine));
        assertEquals(EXPECTED_CALLS, first.calls);
        assertEquals(EXPECTED_CALLS, last.calls);
        assertEquals(List.of("second a1", "second a2", "second a3", "second a4"), order);
    }

    @Test
    void aSingleObserverThatThrowsChangesNoDecision() {
        PolicyEngine plain = PolicyEngine.builder(ws -> LIMITS).timeBudget(PATIENT).build();
        PolicyEngine observed = PolicyEngine.builder(ws -> LIMITS).timeBudget(PATIENT).observer(new Throwing()).build();
        for (double usd : new double[] {50, 20000, 500, 50}) {
            Decision expected = plain.evaluate(WS, withdrawal(usd).build());
            Decision actual = observed.evaluate(WS, withdrawal(usd).build());
            assertTrue(expected.sameAs(actual), expected + " vs " + actual);
            assertEquals(expected.bundleRevision(), actual.bundleRevision());
        }
    }

    /**
     * The hot path pays for no hook nobody set: no observer, no rule observer, no cache statistics (Caffeine's
     * counter exists only to tell observers of hits and misses). Fails when a no-op observer or statistics are
     * installed by default.
     */
    @Test
    void anEngineNobodyObservesHasNoHookAtAll() {
        PolicyEngine engine = PolicyEngine.builder(ws -> LIMITS).timeBudget(PATIENT).build();
        assertFalse(engine.hooked());
        assertEquals(List.of("ALLOW", "DENY", "load", "malformed_action"), run(engine));
        assertFalse(engine.hooked());

        assertTrue(PolicyEngine.builder(ws -> LIMITS).observer(new EngineObserver() {}).build().hooked());
        assertTrue(PolicyEngine.builder(ws -> LIMITS).observer(new RuleObserver(new CoverageRecorder())).build()
                .hooked());
    }

    /**
     * Caffeine's statistics (a call on every lookup) are kept only for an observer that counts hits or misses: not
     * for the decision log, which counts neither.
     */
    @Test
    void cacheStatisticsOnlyForAnObserverThatCountsLookups() throws Exception {
        DecisionLog log = DecisionLog.of(e -> { });
        try {
            assertFalse(PolicyEngine.builder(ws -> LIMITS).observer(log).build().recordsCacheStats());
            assertFalse(PolicyEngine.builder(ws -> LIMITS).observer(new EngineObserver() {
                @Override
                public void decided(String workspaceId, Action action, Decision decision, long nanos) {
                }
            }).build().recordsCacheStats());
            Recording r = new Recording();
            PolicyEngine counted = PolicyEngine.builder(ws -> LIMITS).observer(log).observer(new EngineObserver() {
                @Override
                public void bundleCacheMiss() {
                    r.bundleCacheMiss();
                }
            }).build();
            assertTrue(counted.recordsCacheStats());
            counted.evaluate(WS, withdrawal(50).build());
            counted.evaluate(WS, withdrawal(50).build());
            assertEquals(List.of("miss"), r.calls);
            assertTrue(PolicyEngine.builder(ws -> LIMITS).observer(new Recording()).build().recordsCacheStats());
        } finally {
            log.close();
        }
    }

    /**
     * A rule-level observer is a tool extension beside the observers: it is told the rules, the other observers
     * what they are told without it.
     */
    @Test
    void ruleObservationIsAToolExtensionBesideTheObservers() {
        List<String> rules = Collections.synchronizedList(new ArrayList<>());
        Recording r = new Recording();
        PolicyEngine engine = PolicyEngine.builder(ws -> LIMITS).timeBudget(PATIENT).observer(new RuleObserver(
                new EvaluationObserver() {
                    @Override
                    public void rulesLoaded(List<ObservedRule> loaded) {
                        loaded.forEach(o -> rules.add("loaded " + o.ruleId()));
                    }

                    @Override
                    public void ruleEvaluated(ObservedRule rule, Payload payload, ConditionResult result) {
                        rules.add(rule.ruleId() + " " + result);
                    }
                })).observer(r).build();
        assertEquals(List.of("ALLOW", "DENY", "load", "malformed_action"), run(engine));
        assertEquals(EXPECTED_CALLS, r.calls);
        assertEquals(List.of("loaded big", "loaded small", "big Value[value=false]", "small Value[value=true]",
                "big Value[value=true]"), rules);
    }

    @Test
    void aBuilderTakesOneRuleObserver() {
        PolicyEngine.Builder b = PolicyEngine.builder(ws -> LIMITS);
        assertSame(b, b.observer(new RuleObserver(new CoverageRecorder())));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> b.observer(new RuleObserver(new CoverageRecorder())));
        assertEquals("the builder has a rule observer already", e.getMessage());
    }

    @Test
    void aNullObserverIsRefused() {
        NullPointerException e = assertThrows(NullPointerException.class,
                () -> PolicyEngine.builder(ws -> LIMITS).observer(null));
        assertEquals("observer", e.getMessage());
    }
}
