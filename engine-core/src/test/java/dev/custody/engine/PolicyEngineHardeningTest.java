package dev.custody.engine;

import static dev.custody.engine.Fixtures.allow;
import static dev.custody.engine.Fixtures.deny;
import static dev.custody.engine.Fixtures.policy;
import static dev.custody.engine.Fixtures.withdrawal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.custody.engine.Decision;
import dev.custody.engine.EngineObserver;
import dev.custody.engine.FailureKind;
import dev.custody.engine.Outcome;
import dev.custody.engine.policy.BundleError;
import dev.custody.engine.policy.Policy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What a careless or hostile source, caller or spelling cannot do to the engine. */
class PolicyEngineHardeningTest {
    private static final Duration PATIENT = Duration.ofSeconds(30);
    private static final String WS = "00cd4ae6-310e-4566-99ae-1270f1ed5570";

    static Stream<Arguments> throwables() {
        return Stream.of(
                Arguments.of("StackOverflowError", (Supplier<Throwable>) StackOverflowError::new),
                Arguments.of("NoClassDefFoundError", (Supplier<Throwable>) () -> new NoClassDefFoundError("dev/x/Gone")),
                Arguments.of("ExceptionInInitializerError",
                        (Supplier<Throwable>) () -> new ExceptionInInitializerError(new IllegalStateException("static"))),
                Arguments.of("OutOfMemoryError", (Supplier<Throwable>) () -> new OutOfMemoryError("Java heap space")),
                Arguments.of("AssertionError", (Supplier<Throwable>) () -> new AssertionError("broken invariant")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("throwables")
    void anErrorFromTheSourceDeniesWithLoadAndTheNextEvaluationLoadsAgain(String name, Supplier<Throwable> error) {
        AtomicInteger loads = new AtomicInteger();
        AtomicBoolean failing = new AtomicBoolean(true);
        PolicySource source = ws -> {
            loads.incrementAndGet();
            if (failing.get()) {
                Throwable t = error.get();
                if (t instanceof Error e) {
                    throw e;
                }
                throw (Exception) t;
            }
            return List.of(policy("p", allow("a", "true")));
        };
        PolicyEngine engine = PolicyEngine.builder(source).timeBudget(PATIENT).build();
        Decision d = engine.evaluate(WS, withdrawal(1).build());
        assertEquals(Outcome.DENY, d.outcome());
        assertEquals(FailureKind.LOAD, d.failure());
        assertEquals(true, d.error().startsWith("policies of workspace `" + WS + "` could not be loaded: "), d.error());
        failing.set(false);
        assertEquals(Outcome.ALLOW, engine.evaluate(WS, withdrawal(1).build()).outcome());
        assertEquals(2, loads.get());
    }

    @Test
    void anObserverThatThrowsChangesNoDecision() {
        PolicyEngine engine = PolicyEngine.builder(ws -> List.of(policy("p", allow("a", "true"))))
                .timeBudget(PATIENT)
                .observer(new EngineObserver() {
                    @Override
                    public void bundleLoaded(String workspaceId, List<BundleError> errors) {
                        throw new StackOverflowError();
                    }

                    @Override
                    public void loadFailed(String workspaceId, String message) {
                        throw new IllegalStateException();
                    }
                })
                .build();
        assertEquals(Outcome.ALLOW, engine.evaluate(WS, withdrawal(1).build()).outcome());
    }

    @Test
    void everySpellingOfAWorkspaceIsOneKeyForEvaluateInvalidateAndTheSource() {
        List<String> asked = new ArrayList<>();
        AtomicReference<List<Policy>> policies = new AtomicReference<>(List.of(policy("p", allow("a", "true"))));
        PolicyEngine engine = PolicyEngine.builder(ws -> {
            asked.add(ws);
            return policies.get();
        }).timeBudget(PATIENT).build();
        String upper = WS.toUpperCase(Locale.ROOT);
        assertEquals(Outcome.ALLOW, engine.evaluate(upper, withdrawal(1).workspaceId(null).build()).outcome());
        assertEquals(Outcome.ALLOW, engine.evaluate(WS, withdrawal(1).workspaceId(null).build()).outcome());
        policies.set(List.of(policy("p", deny("d", "true"))));
        engine.invalidate(" " + WS + " ");
        assertEquals(Outcome.DENY, engine.evaluate(upper, withdrawal(1).workspaceId(null).build()).outcome());
        assertEquals(List.of(WS, WS), asked);
    }

    /**
     * Many threads evaluate under random spellings while the policies are tightened and the workspace invalidated
     * under yet another spelling: every evaluation that starts after invalidate returned sees the new policies.
     */
    @Test
    void afterInvalidateReturnsNoSpellingUsesTheOldBundle() throws Exception {
        for (int round = 0; round < 20; round++) {
            AtomicReference<List<Policy>> policies = new AtomicReference<>(List.of(policy("p", allow("a", "true"))));
            PolicyEngine engine = PolicyEngine.builder(ws -> policies.get()).timeBudget(PATIENT).build();
            AtomicBoolean invalidated = new AtomicBoolean();
            AtomicBoolean stop = new AtomicBoolean();
            ConcurrentLinkedQueue<String> stale = new ConcurrentLinkedQueue<>();
            CountDownLatch started = new CountDownLatch(4);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                long seed = round * 31L + t;
                Thread th = new Thread(() -> {
                    Random random = new Random(seed);
                    started.countDown();
                    while (!stop.get()) {
                        String spelling = spell(random);
                        boolean after = invalidated.get();
                        Decision d = engine.evaluate(spelling, withdrawal(1).workspaceId(null).build());
                        if (after && d.outcome() != Outcome.DENY) {
                            stale.add(spelling + " -> " + d);
                        }
                    }
                });
                th.start();
                threads.add(th);
            }
            started.await();
            policies.set(List.of(policy("p", deny("d", "true"))));
            engine.invalidate(spell(new Random(round)));
            invalidated.set(true);
            for (int i = 0; i < 200; i++) {
                assertEquals(Outcome.DENY, engine.evaluate(spell(new Random(i)), withdrawal(1).workspaceId(null).build())
                        .outcome());
            }
            stop.set(true);
            for (Thread th : threads) {
                th.join();
            }
            assertEquals(List.of(), List.copyOf(stale), "round " + round);
        }
    }

    private static String spell(Random random) {
        StringBuilder s = new StringBuilder(WS.length());
        for (char c : WS.toCharArray()) {
            s.append(random.nextBoolean() ? Character.toUpperCase(c) : c);
        }
        return s.toString();
    }

    @Test
    void actionsWithoutAWorkspaceGetThePoliciesThatNameNone() {
        Policy everywhere = policy("everywhere", allow("a", "true"));
        Policy scoped = new Policy("scoped", "scoped policy", null, Fixtures.GROUP, List.of(),
                List.of(deny("d", "true")), null, null, WS, null);
        PolicyEngine engine = PolicyEngine.builder(ws -> PolicySource.NO_WORKSPACE.equals(ws) ? List.of(everywhere)
                : List.of(everywhere, scoped)).timeBudget(PATIENT).build();
        assertEquals(Outcome.ALLOW, engine.evaluate(withdrawal(1).workspaceId(null).build(), false).outcome());
        assertEquals(Outcome.DENY, engine.evaluate(withdrawal(1).workspaceId(WS.toUpperCase(Locale.ROOT)).build(), false)
                .outcome());
    }

    @Test
    void workspacesWithEqualPoliciesShareOneCompiledBundle() {
        List<List<BundleError>> loaded = new ArrayList<>();
        PolicyEngine engine = PolicyEngine.builder(ws -> List.of(policy("p", deny("d", "withdrawal.value_usdd > 1"))))
                .timeBudget(PATIENT)
                .observer(new EngineObserver() {
                    @Override
                    public void bundleLoaded(String workspaceId, List<BundleError> errors) {
                        loaded.add(errors);
                    }
                })
                .build();
        Decision a = engine.evaluate("a", withdrawal(1).workspaceId(null).build());
        Decision b = engine.evaluate("b", withdrawal(1).workspaceId(null).build());
        assertEquals(FailureKind.COMPILE, a.failure());
        assertEquals(a.error(), b.error());
        assertEquals(2, loaded.size());
        assertSame(loaded.get(0), loaded.get(1), "one compiled bundle, so one error list");
    }
}
