package dev.custody.engine;

import static dev.custody.engine.Fixtures.allow;
import static dev.custody.engine.Fixtures.deny;
import static dev.custody.engine.Fixtures.policy;
import static dev.custody.engine.Fixtures.withdrawal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.custody.engine.policy.Policy;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

class PolicyEngineTest {
    private static final String WS = "ws-1";
    /** These tests pin cache semantics, not timing. */
    private static final Duration PATIENT = Duration.ofSeconds(30);

    /** A source whose policies the test swaps, counting loads. */
    static final class MutableSource implements PolicySource {
        final AtomicReference<List<Policy>> policies = new AtomicReference<>(List.of());
        final AtomicInteger loads = new AtomicInteger();
        volatile CountDownLatch gate;
        volatile CountDownLatch entered;
        volatile Thread loader;
        volatile Exception failure;

        @Override
        public List<Policy> policies(String workspaceId) throws Exception {
            loads.incrementAndGet();
            loader = Thread.currentThread();
            List<Policy> snapshot = policies.get();
            if (entered != null) {
                entered.countDown();
            }
            if (gate != null) {
                gate.await(10, TimeUnit.SECONDS);
            }
            if (failure != null) {
                throw failure;
            }
            return snapshot;
        }
    }

    @Test
    void bundlesAreCachedUntilInvalidated() {
        MutableSource source = new MutableSource();
        source.policies.set(List.of(policy("p", allow("a", "true"))));
        PolicyEngine engine = PolicyEngine.builder(source).timeBudget(PATIENT).build();
        assertEquals(Outcome.ALLOW, engine.evaluate(WS, withdrawal(1).build()).outcome());
        source.policies.set(List.of(policy("p", deny("d", "true"))));
        assertEquals(Outcome.ALLOW, engine.evaluate(WS, withdrawal(1).build()).outcome());
        assertEquals(1, source.loads.get());
        engine.invalidate(WS);
        Decision d = engine.evaluate(WS, withdrawal(1).build());
        assertEquals(Outcome.DENY, d.outcome());
        assertEquals("d", d.ruleId());
        assertEquals(2, source.loads.get());
    }

    @Test
    void aBundleOnTheHotPathIsReloadedOnceItsTimeToLiveHasPassed() throws Exception {
        MutableSource source = new MutableSource();
        source.policies.set(List.of(policy("p", allow("a", "true"))));
        PolicyEngine engine = PolicyEngine.builder(source).timeBudget(PATIENT).bundleTtl(Duration.ofMillis(20)).build();
        assertEquals(Outcome.ALLOW, engine.evaluate(WS, withdrawal(1).build()).outcome());
        assertEquals(java.util.Set.of(WS), engine.hotKeys());
        source.policies.set(List.of(policy("p", deny("d", "true"))));
        Thread.sleep(40); // past the time to live: however busy the machine, the next decision loads again
        Decision d = engine.evaluate(WS, withdrawal(1).build());
        assertEquals("d", d.ruleId());
        assertEquals(2, source.loads.get());
    }

    @Test
    void aWorkspaceCaffeineEvictsLeavesTheHotPath() {
        PolicySource source = ws -> List.of(policy("p-" + ws, allow("a", "true")));
        PolicyEngine engine = PolicyEngine.builder(source).timeBudget(PATIENT).maximumWorkspaces(1).build();
        for (String ws : List.of("a", "b", "c", "a", "b", "c")) {
            Decision d = engine.evaluate(ws, withdrawal(1).build());
            assertEquals("p-" + ws, d.policyId());
            // never more bundles held for the hot path than Caffeine holds
            assertTrue(engine.hotKeys().size() <= 1, () -> "hot keys " + engine.hotKeys());
        }
        engine.invalidateAll();
        assertEquals(java.util.Set.of(), engine.hotKeys());
    }

    @Test
    void anInvalidatedWorkspaceLeavesTheHotPath() {
        PolicyEngine engine = PolicyEngine.builder(ws -> List.of(policy("p", allow("a", "true"))))
                .timeBudget(PATIENT).build();
        engine.evaluate("Ws-A", withdrawal(1).build());
        engine.evaluate("ws-b", withdrawal(1).build());
        assertEquals(java.util.Set.of("ws-a", "ws-b"), engine.hotKeys());
        engine.invalidate("WS-A");
        assertEquals(java.util.Set.of("ws-b"), engine.hotKeys());
    }

    @Test
    void workspacesHaveTheirOwnBundles() {
        PolicySource source = ws -> ws.equals("a") ? List.of(policy("pa", allow("x", "true")))
                : List.of(policy("pb", deny("y", "true")));
        PolicyEngine engine = PolicyEngine.builder(source).timeBudget(PATIENT).build();
        assertEquals(Outcome.ALLOW, engine.evaluate("a", withdrawal(1).build()).outcome());
        assertEquals(Outcome.DENY, engine.evaluate("b", withdrawal(1).build()).outcome());
    }

    @Test
    void aLoadFailureDeniesAndIsNotCached() {
        MutableSource source = new MutableSource();
        source.policies.set(List.of(policy("p", allow("a", "true"))));
        source.failure = new java.io.IOException("database unavailable");
        PolicyEngine engine = PolicyEngine.builder(source).timeBudget(PATIENT).build();
        Decision d = engine.evaluate(WS, withdrawal(1).build());
        assertEquals(Outcome.DENY, d.outcome());
        assertTrue(d.failClosed());
        assertEquals("policies of workspace `ws-1` could not be loaded: database unavailable", d.error());
        assertNull(d.ruleId());
        source.failure = null;
        assertEquals(Outcome.ALLOW, engine.evaluate(WS, withdrawal(1).build()).outcome());
        assertEquals(2, source.loads.get());
    }

    @Test
    void aSourceReturningNullOrThrowingUncheckedDenies() {
        PolicyEngine nulls = PolicyEngine.builder(ws -> null).build();
        Decision d = nulls.evaluate(WS, withdrawal(1).build());
        assertTrue(d.failClosed());
        assertEquals("policy source returned no list for workspace `ws-1`", d.error());
        PolicyEngine boom = PolicyEngine.builder(ws -> {
            throw new IllegalStateException("boom");
        }).build();
        assertEquals("policies of workspace `ws-1` could not be loaded: boom", boom.evaluate(WS, withdrawal(1).build()).error());
    }

    @Test
    void anInvalidBundleDeniesAndIsRebuiltAfterTheRetryDelay() throws Exception {
        MutableSource source = new MutableSource();
        source.policies.set(List.of(policy("p", deny("typo", "withdrawal.amout > 1"))));
        PolicyEngine engine = PolicyEngine.builder(source).timeBudget(PATIENT).invalidBundleRetry(Duration.ZERO).build();
        assertTrue(engine.evaluate(WS, withdrawal(1).build()).failClosed());
        source.policies.set(List.of(policy("p", allow("a", "true"))));
        // an invalid bundle is not kept as a success: with a zero retry delay the fix is picked up at once
        assertEquals(Outcome.ALLOW, engine.evaluate(WS, withdrawal(1).build()).outcome());
    }

    @Test
    void concurrentLoadsOfOneWorkspaceCoalesce() throws Exception {
        MutableSource source = new MutableSource();
        source.policies.set(List.of(policy("p", allow("a", "true"))));
        source.gate = new CountDownLatch(1);
        source.entered = new CountDownLatch(1);
        PolicyEngine engine = PolicyEngine.builder(source).timeBudget(PATIENT).build();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Decision>> futures = new java.util.ArrayList<>();
            List<Thread> callers = new java.util.concurrent.CopyOnWriteArrayList<>();
            CountDownLatch started = new CountDownLatch(8);
            for (int i = 0; i < 8; i++) {
                futures.add(pool.submit(() -> {
                    callers.add(Thread.currentThread());
                    started.countDown();
                    return engine.evaluate(WS, withdrawal(1).build());
                }));
            }
            assertTrue(source.entered.await(10, TimeUnit.SECONDS));
            assertTrue(started.await(10, TimeUnit.SECONDS));
            // every other caller waits inside the engine (or, were loads not coalesced, has entered the source
            // itself): only then is the load released
            Thread loader = source.loader;
            for (Thread caller : callers) {
                if (caller != loader) {
                    awaitParkedInEngine(caller, () -> source.loads.get() > 1);
                }
            }
            assertEquals(1, source.loads.get(), "the callers wait for the load in flight instead of loading");
            source.gate.countDown();
            for (Future<Decision> f : futures) {
                assertEquals(Outcome.ALLOW, f.get(10, TimeUnit.SECONDS).outcome());
            }
            assertEquals(1, source.loads.get());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void invalidateDuringALoadDiscardsWhatThatLoadRead() throws Exception {
        MutableSource source = new MutableSource();
        source.policies.set(List.of(policy("old", allow("a", "true"))));
        source.gate = new CountDownLatch(1);
        source.entered = new CountDownLatch(1);
        PolicyEngine engine = PolicyEngine.builder(source).timeBudget(PATIENT).build();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Decision> inFlight = pool.submit(() -> engine.evaluate(WS, withdrawal(1).build()));
            assertTrue(source.entered.await(10, TimeUnit.SECONDS));
            // an approval lands while the old policies are being compiled
            source.policies.set(List.of(policy("new", deny("d", "true"))));
            AtomicReference<Thread> invalidator = new AtomicReference<>();
            CountDownLatch invalidating = new CountDownLatch(1);
            Future<?> invalidation = pool.submit(() -> {
                invalidator.set(Thread.currentThread());
                invalidating.countDown();
                engine.invalidate(WS);
            });
            assertTrue(invalidating.await(10, TimeUnit.SECONDS));
            // either invalidate returns (it did not wait for the load) or it waits inside the engine
            awaitParkedInEngine(invalidator.get(), invalidation::isDone);
            assertFalse(invalidation.isDone(), "invalidate waits for the load in progress");
            source.gate.countDown();
            invalidation.get(10, TimeUnit.SECONDS);
            source.gate = null;
            // the evaluation that started before the approval finishes on what it loaded
            assertEquals(Outcome.ALLOW, inFlight.get(10, TimeUnit.SECONDS).outcome());
            // every evaluation after invalidate returned sees the new policies
            Decision after = engine.evaluate(WS, withdrawal(1).build());
            assertEquals(Outcome.DENY, after.outcome());
            assertEquals("new", after.policyId());
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Waits until {@code t} is parked (blocked or waiting) inside {@link PolicyEngine}, or until {@code stop} holds:
     * the outcome the caller then asserts against. Fails after 60 s (a bound on a hang, not a speed).
     */
    private static void awaitParkedInEngine(Thread t, BooleanSupplier stop) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!stop.getAsBoolean()) {
            Thread.State state = t.getState();
            boolean parked = state == Thread.State.BLOCKED || state == Thread.State.WAITING
                    || state == Thread.State.TIMED_WAITING;
            StackTraceElement[] stack = t.getStackTrace();
            if (parked && Arrays.stream(stack).anyMatch(f -> f.getClassName().equals(PolicyEngine.class.getName()))) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                fail(t.getName() + " never waited inside the engine: " + state + " " + Arrays.toString(stack));
            }
            Thread.sleep(1); // a poll: the pause only spares the shared CPU, nothing is inferred from it
        }
    }

    @Test
    void anActionOfAnotherWorkspaceIsDenied() {
        PolicyEngine engine = PolicyEngine.builder(ws -> List.of(policy("p", allow("a", "true")))).timeBudget(PATIENT).build();
        Decision d = engine.evaluate(WS, withdrawal(1).workspaceId("ws-2").build());
        assertTrue(d.failClosed());
        assertEquals("action belongs to workspace `ws-2`, not `ws-1`", d.error());
        assertEquals(Outcome.ALLOW, engine.evaluate(WS, withdrawal(1).workspaceId("WS-1").build()).outcome());
        assertTrue(engine.evaluate(" ", withdrawal(1).build()).failClosed());
    }

    @Test
    void builderFailsFastOnBadSettings() {
        var b = PolicyEngine.builder(ws -> List.of());
        assertEquals("time budget must be positive, got PT0S",
                org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                        () -> b.timeBudget(Duration.ZERO)).getMessage());
        assertEquals("maximumWorkspaces must be at least 1, got 0",
                org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                        () -> b.maximumWorkspaces(0)).getMessage());
    }
}
