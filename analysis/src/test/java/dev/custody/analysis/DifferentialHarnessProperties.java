package dev.custody.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.properties.DifferentialHarness;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * The one differential harness (docs/design.md §10.2) with all five parts: cel-java, the compiled path, the branch
 * probe, the solver's formulas ({@link Z3Part}) and the cost estimate, on generated conditions times generated
 * actions ({@link DifferentialHarness#cases}). No part may disagree with cel-java on any pair.
 *
 * <p>{@link #everyPartAgreesWithCelJava} runs {@value #TRIES} conditions times {@value DifferentialHarness#PAYLOADS}
 * actions in {@code verify} and prints the harness's figures at the end. The long run, outside {@code verify}:
 * <pre>
 * ./mvnw -B -pl engine-schema,engine-core,analysis test -Dtest='DifferentialHarnessProperties#longRun' \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Ddifferential.pairs=1000000
 * </pre>
 * runs {@link #longRun} until that many pairs have run ({@code -Ddifferential.threads=2} threads, a harness and a
 * solver context each; {@code -Ddifferential.payloads=40} actions per condition), collecting every disagreement
 * instead of stopping at the first, prints the summary (pairs, per part agreed/skipped/disagreed with the time
 * spent, skips by reason, the first disagreements) and fails if there was any disagreement.
 */
class DifferentialHarnessProperties {
    /**
     * Conditions in verify, each on {@value DifferentialHarness#PAYLOADS} actions; about one generated condition in
     * six does not compile (no pairs), so some 21,000 pairs. (Filtering on compiling inside the generator made jqwik
     * compile every edge case of every try.)
     */
    static final int TRIES = 2_500;

    private static final Z3Part Z3 = new Z3Part();
    private static final DifferentialHarness HARNESS = harness(Z3);
    private static long started;
    private static long startedCpu;
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();

    /** The harness with every real part and {@code z3} as the solver's part. */
    static DifferentialHarness harness(DifferentialHarness.Part z3) {
        return new DifferentialHarness(DifferentialHarness.celJava(), harnessParts(z3));
    }

    /** The engine-core parts (compiled path, probe, cost) and {@code z3}, in the order the summary lists them. */
    static List<DifferentialHarness.Part> harnessParts(DifferentialHarness.Part z3) {
        List<DifferentialHarness.Part> parts = new ArrayList<>(DifferentialHarness.engineParts());
        parts.add(2, z3);
        return parts;
    }

    @Provide
    Arbitrary<DifferentialHarness.Case> cases() {
        return DifferentialHarness.cases();
    }

    @Property(tries = TRIES, shrinking = ShrinkingMode.OFF)
    void everyPartAgreesWithCelJava(@ForAll("cases") DifferentialHarness.Case c) {
        if (started == 0) {
            started = System.nanoTime();
            startedCpu = OS.getProcessCpuTime();
        }
        List<DifferentialHarness.Disagreement> found = HARNESS.check(c);
        assertEquals(List.of(), found, () -> found.get(0).toString());
    }

    @AfterContainer
    static void figures() {
        if (HARNESS.pairs() > 0) {
            System.out.print(HARNESS.summary());
            System.out.printf("differential harness in verify: %.1f s, %.1f s of CPU on its thread, %.1f s of the JVM's"
                    + " CPU (JIT and GC included)%n", (System.nanoTime() - started) / 1e9, HARNESS.cpuNanos() / 1e9,
                    (OS.getProcessCpuTime() - startedCpu) / 1e9);
        }
        Z3.close();
    }

    /** The long run, when {@code -Ddifferential.pairs=N} is set (see the class comment). */
    @Example
    void longRun() throws Exception {
        long want = Long.getLong("differential.pairs", 0);
        if (want == 0) {
            return;
        }
        int threads = Integer.getInteger("differential.threads", 2);
        int payloads = Integer.getInteger("differential.payloads", 40);
        long start = System.nanoTime();
        // jqwik generates only on its own thread: this one generates, the workers check
        java.util.concurrent.BlockingQueue<DifferentialHarness.Case> queue = new java.util.concurrent.ArrayBlockingQueue<>(64);
        DifferentialHarness.Case end = new DifferentialHarness.Case(null, null, List.of());
        java.util.concurrent.atomic.AtomicLong done = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong found = new java.util.concurrent.atomic.AtomicLong();
        long reportEvery = Math.max(10_000, want / 20);
        List<DifferentialHarness> harnesses = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        List<Throwable> crashes = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < threads; t++) {
            Thread w = new Thread(() -> {
                try (Z3Part z3 = new Z3Part()) {
                    DifferentialHarness h = harness(z3);
                    synchronized (harnesses) {
                        harnesses.add(h);
                    }
                    for (DifferentialHarness.Case c = queue.take(); c != end; c = queue.take()) {
                        long before = h.pairs();
                        List<DifferentialHarness.Disagreement> d = h.check(c);
                        if (!d.isEmpty() && found.getAndAdd(d.size()) < 20) {
                            System.out.println("disagreement: " + d.get(0)); // as found, not only in the summary
                        }
                        long now = done.addAndGet(h.pairs() - before);
                        if (now / reportEvery != (now - (h.pairs() - before)) / reportEvery) {
                            System.out.printf("... %d pairs, %d disagreements, %.0f s%n", now, found.get(),
                                    (System.nanoTime() - start) / 1e9);
                        }
                    }
                } catch (Throwable e) {
                    crashes.add(e);
                }
            }, "differential-" + t);
            workers.add(w);
            w.start();
        }
        net.jqwik.api.RandomGenerator<DifferentialHarness.Case> cases = DifferentialHarness.cases(payloads).generator(1000);
        java.util.Random random = new java.util.Random(Long.getLong("differential.seed", 23));
        while (done.get() < want && crashes.isEmpty()) {
            queue.put(cases.next(random).value());
        }
        for (int t = 0; t < threads; t++) {
            queue.put(end);
        }
        for (Thread w : workers) {
            w.join();
        }
        assertEquals(List.of(), crashes);
        DifferentialHarness all = harnesses.get(0);
        harnesses.subList(1, harnesses.size()).forEach(all::add);
        System.out.print(all.summary());
        System.out.printf("differential long run: %d pairs (%d actions per condition) on %d threads in %.1f s%n", all.pairs(),
                payloads, threads, (System.nanoTime() - start) / 1e9);
        assertTrue(all.pairs() >= want);
        assertEquals(0, all.disagreements(), all::summary);
    }
}
