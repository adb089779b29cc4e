package dev.custody.engine.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.custody.engine.Fixtures;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.log.DecisionLog.NotDurableException;
import dev.custody.engine.log.DecisionLog.NotDurableException.Reason;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The durable decision log: back-pressure instead of drops, {@code awaitDurable} returns only after the record was
 * written and synced, group commit (one sync for the events queued meanwhile), and every way a decision can fail to
 * become durable reaches the thread that waits for it.
 */
class DurableDecisionLogTest {
    static final String WS = DecisionLogTest.WS;
    static final Duration LONG = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    /** A listener around a real sink that says what was written and what was synced, and can be held. */
    static final class Recording implements DecisionLog.Listener, AutoCloseable {
        final JsonLinesDecisionSink sink;
        final List<String> written = new CopyOnWriteArrayList<>();
        final AtomicInteger entered = new AtomicInteger();
        volatile int synced;
        final CountDownLatch release;

        Recording(JsonLinesDecisionSink sink, CountDownLatch release) {
            this.sink = sink;
            this.release = release;
        }

        @Override
        public void onDecision(DecisionLog.Event event) throws Exception {
            entered.incrementAndGet();
            release.await();
            sink.onDecision(event);
            written.add(event.action().id());
        }

        @Override
        public void sync() throws IOException {
            sink.sync();
            synced = written.size();
        }

        @Override
        public void close() throws IOException {
            sink.close();
        }
    }

    static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + LONG.toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            Thread.sleep(5);
        }
    }

    static List<String> ids(Path file) throws IOException {
        return Files.readAllLines(file).stream().map(l -> {
            int at = l.indexOf("\"decision\":{\"id\":\"") + "\"decision\":{\"id\":\"".length();
            return l.substring(at, l.indexOf('"', at));
        }).toList();
    }

    @Test
    void awaitDurableReturnsOnlyOnceTheRecordIsInTheFileAndSynced() throws Exception {
        Path file = dir.resolve("d.jsonl");
        Recording listener = new Recording(JsonLinesDecisionSink.builder(file).build(), new CountDownLatch(0));
        try (DecisionLog log = DecisionLog.durable(listener)) {
            assertTrue(log.isDurable());
            PolicyEngine engine = DecisionLogTest.engine().observer(log).build();
            for (int i = 0; i < 50; i++) {
                engine.evaluate(WS, Fixtures.withdrawal(i).id("a" + i).build());
                log.awaitDurable(LONG);
                // read right after it returned: the record is there, and a sync came after its write
                List<String> ids = ids(file);
                assertEquals("a" + i, ids.get(ids.size() - 1));
                assertEquals(i + 1, ids.size());
                assertEquals(i + 1, listener.synced);
            }
            assertEquals(0, log.dropped());
            assertEquals(50, log.syncs(), "one decision at a time: a sync each");
        }
    }

    @Test
    void aThreadWithNothingHandedDoesNotWait() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        try (DecisionLog log = DecisionLog.durable(new Recording(JsonLinesDecisionSink.builder(dir.resolve("d.jsonl"))
                .build(), never))) {
            log.awaitDurable(Duration.ZERO);
            never.countDown();
        }
    }

    /**
     * Group commit: while the first event is held in the listener, seven more threads decide and wait; they are all
     * queued behind it, so the worker delivers them as one batch with one sync.
     */
    @Test
    void threadsThatDecideWhileASyncRunsShareTheNextSync() throws Exception {
        Path file = dir.resolve("d.jsonl");
        CountDownLatch release = new CountDownLatch(1);
        Recording listener = new Recording(JsonLinesDecisionSink.builder(file).build(), release);
        DecisionLog log = DecisionLog.durable(listener);
        PolicyEngine engine = DecisionLogTest.engine().observer(log).build();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            String id = "t" + t;
            threads.add(new Thread(() -> {
                try {
                    engine.evaluate(WS, Fixtures.withdrawal(1).id(id).build());
                    log.awaitDurable(LONG);
                    assertTrue(ids(file).contains(id), id + " is in the file once its wait returned");
                } catch (Throwable e) {
                    errors.add(e);
                }
            }));
        }
        threads.get(0).start();
        awaitTrue(() -> listener.entered.get() == 1, "the first event to reach the listener");
        for (Thread t : threads.subList(1, 8)) {
            t.start();
        }
        awaitTrue(() -> threads.stream().filter(t -> LockSupport.getBlocker(t) == log).count() == 8,
                "all eight threads to wait on the log");
        assertEquals(0, listener.written.size(), "nothing is durable yet");
        release.countDown();
        for (Thread t : threads) {
            t.join(LONG.toMillis());
        }
        assertEquals(List.of(), errors);
        log.close();
        assertEquals(2, log.syncs(), "the held event's sync, then one for the seven queued behind it");
        assertEquals(8, ids(file).size());
        assertEquals(8, log.delivered());
    }

    /**
     * Back-pressure: with a queue of 2 and the listener held, eight threads deciding 100 actions each are held
     * back instead of dropping; released, every decision is in the file, each thread's in its order.
     */
    @Test
    void aFullQueueHoldsTheDecidersBackAndDropsNothing() throws Exception {
        Path file = dir.resolve("d.jsonl");
        CountDownLatch release = new CountDownLatch(1);
        DecisionLog log = DecisionLog.durable(new Recording(JsonLinesDecisionSink.builder(file).build(), release), 2);
        PolicyEngine engine = DecisionLogTest.engine().observer(log).build();
        AtomicInteger decided = new AtomicInteger();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            int thread = t;
            threads.add(new Thread(() -> {
                try {
                    for (int i = 0; i < 100; i++) {
                        engine.evaluate(WS, Fixtures.withdrawal(i).id("t" + thread + "-" + i).build());
                        decided.incrementAndGet();
                        if (thread % 2 == 0) {
                            log.awaitDurable(LONG); // half wait for each decision, half never do
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }));
        }
        threads.forEach(Thread::start);
        // one event in the listener, two queued: every thread is then held in the engine's call to the log
        awaitTrue(() -> threads.stream().allMatch(t -> t.getState() == Thread.State.TIMED_WAITING
                || t.getState() == Thread.State.WAITING), "every thread to be held back");
        // at most a batch being delivered (the one polled, and the capacity drained with it) and a full queue
        assertTrue(decided.get() <= 1 + 2 + 2, decided.get() + " decisions returned while the log could take 5");
        assertEquals(0, log.dropped());
        release.countDown();
        for (Thread t : threads) {
            t.join(LONG.toMillis());
        }
        assertEquals(List.of(), errors);
        log.close();
        List<String> ids = ids(file);
        assertEquals(800, ids.size());
        assertEquals(800, new HashSet<>(ids).size());
        for (int t = 0; t < 8; t++) {
            String prefix = "t" + t + "-";
            List<String> mine = ids.stream().filter(id -> id.startsWith(prefix)).toList();
            assertEquals(java.util.stream.IntStream.range(0, 100).mapToObj(i -> prefix + i).toList(), mine);
        }
        assertEquals(0, log.dropped());
        assertEquals(0, log.failed());
    }

    @Test
    void aListenerThatThrowsFailsThatDecisionsWaitAndNoOther() throws Exception {
        List<String> logged = new CopyOnWriteArrayList<>();
        try (DecisionLog log = DecisionLog.durable(e -> {
            if (e.action().id().equals("bad")) {
                throw new IOException("no space left on device\nsecond line");
            }
            logged.add(e.action().id());
        })) {
            PolicyEngine engine = DecisionLogTest.engine().observer(log).build();
            engine.evaluate(WS, Fixtures.withdrawal(1).id("good-1").build());
            log.awaitDurable(LONG);
            engine.evaluate(WS, Fixtures.withdrawal(1).id("bad").build());
            NotDurableException e = assertThrows(NotDurableException.class, () -> log.awaitDurable(LONG));
            assertEquals(Reason.LISTENER_FAILED, e.reason());
            assertEquals("the decision log could not write the decision: no space left on device", e.getMessage());
            // the failure was this wait's: the next decision's wait succeeds
            engine.evaluate(WS, Fixtures.withdrawal(1).id("good-2").build());
            log.awaitDurable(LONG);
            assertEquals(List.of("good-1", "good-2"), logged);
            assertEquals(1, log.failed());
        }
    }

    /** A failed sync fails its batch and, since what reached the disk is then unknown, every later decision. */
    @Test
    void aFailedSyncFailsItsBatchAndEveryLaterDecision() throws Exception {
        AtomicInteger syncs = new AtomicInteger();
        try (DecisionLog log = DecisionLog.durable(new DecisionLog.Listener() {
            @Override
            public void onDecision(DecisionLog.Event event) {
            }

            @Override
            public void sync() throws IOException {
                if (syncs.incrementAndGet() == 2) {
                    throw new IOException("Input/output error");
                }
            }
        })) {
            PolicyEngine engine = DecisionLogTest.engine().observer(log).build();
            engine.evaluate(WS, Fixtures.withdrawal(1).id("a1").build());
            log.awaitDurable(LONG);
            engine.evaluate(WS, Fixtures.withdrawal(1).id("a2").build());
            NotDurableException e = assertThrows(NotDurableException.class, () -> log.awaitDurable(LONG));
            assertEquals(Reason.SYNC_FAILED, e.reason());
            assertEquals("the decision log could not force its file to disk: Input/output error", e.getMessage());
            for (int i = 3; i <= 5; i++) {
                engine.evaluate(WS, Fixtures.withdrawal(1).id("a" + i).build());
                assertEquals(Reason.SYNC_FAILED, assertThrows(NotDurableException.class,
                        () -> log.awaitDurable(LONG)).reason());
            }
            assertEquals(2, syncs.get(), "no sync is tried after a failed one");
            assertEquals(1, log.syncs());
            assertEquals(4, log.failed());
        }
    }

    /** The real sink on a full disk ({@code /dev/full} answers every write with ENOSPC). */
    @Test
    void theSinkOnAFullDiskFailsTheWait() throws Exception {
        Path full = Path.of("/dev/full");
        assumeTrue(Files.isWritable(full), "/dev/full (Linux)");
        try (DecisionLog log = DecisionLog.durable(JsonLinesDecisionSink.builder(full).build())) {
            PolicyEngine engine = DecisionLogTest.engine().observer(log).build();
            engine.evaluate(WS, Fixtures.withdrawal(1).id("a1").build());
            NotDurableException e = assertThrows(NotDurableException.class, () -> log.awaitDurable(LONG));
            assertEquals(Reason.LISTENER_FAILED, e.reason());
            assertEquals("the decision log could not write the decision: No space left on device", e.getMessage());
        }
    }

    @Test
    void aWaitThatRunsOutSaysSoAndTheNextWaitsOnlyForItsOwn() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Path file = dir.resolve("d.jsonl");
        try (DecisionLog log = DecisionLog.durable(new Recording(JsonLinesDecisionSink.builder(file).build(), release))) {
            PolicyEngine engine = DecisionLogTest.engine().observer(log).build();
            engine.evaluate(WS, Fixtures.withdrawal(1).id("a1").build());
            NotDurableException e = assertThrows(NotDurableException.class,
                    () -> log.awaitDurable(Duration.ofMillis(50)));
            assertEquals(Reason.TIMED_OUT, e.reason());
            assertEquals("the decision log did not sync the decision within 50 ms", e.getMessage());
            release.countDown();
            engine.evaluate(WS, Fixtures.withdrawal(1).id("a2").build());
            log.awaitDurable(LONG);
            assertEquals(List.of("a1", "a2"), ids(file));
        }
    }

    @Test
    void aDecisionAfterCloseIsNotDeliveredAndItsWaitSaysSo() throws Exception {
        DecisionLog log = DecisionLog.durable(e -> { }, 16, Clock.systemUTC());
        PolicyEngine engine = DecisionLogTest.engine().observer(log).build();
        log.close();
        engine.evaluate(WS, Fixtures.withdrawal(1).id("late").build());
        NotDurableException e = assertThrows(NotDurableException.class, () -> log.awaitDurable(LONG));
        assertEquals(Reason.NOT_DELIVERED, e.reason());
        assertEquals("the decision log was closed before the decision was queued", e.getMessage());
        assertEquals(1, log.dropped());
        log.awaitDurable(LONG); // reported once
    }

    @Test
    void onlyADurableLogCanBeWaitedFor() throws Exception {
        try (DecisionLog log = DecisionLog.of(e -> { })) {
            assertEquals(false, log.isDurable());
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> log.awaitDurable(LONG));
            assertEquals("the decision log is not durable: make it with DecisionLog.durable", e.getMessage());
            assertEquals(0, log.syncs());
        }
    }

    /** keepAll: rotating many times deletes and overwrites nothing; the numbered files then NAME hold every record in order. */
    @Test
    void keepAllRotationNeverDeletesAndTheFilesReadInOrder() throws Exception {
        Path file = dir.resolve("d.jsonl");
        // files of the other retention and an earlier numbered one are left alone; numbering goes on after it
        Files.writeString(dir.resolve("d.jsonl.3"), "keep's\n");
        Files.writeString(dir.resolve("d.jsonl.000007"), "earlier\n");
        JsonLinesDecisionSink sink = JsonLinesDecisionSink.builder(file).maxBytes(2000).keepAll().build();
        // a name taken after the sink counted is skipped, never overwritten
        Files.writeString(dir.resolve("d.jsonl.000009"), "taken\n");
        try (DecisionLog log = DecisionLog.durable(sink)) {
            PolicyEngine engine = DecisionLogTest.engine().observer(log).build();
            for (int i = 0; i < 60; i++) {
                engine.evaluate(WS, Fixtures.withdrawal(i).id("x" + i).build());
            }
            log.awaitDurable(LONG);
        }
        assertEquals("keep's\n", Files.readString(dir.resolve("d.jsonl.3")));
        assertEquals("earlier\n", Files.readString(dir.resolve("d.jsonl.000007")));
        assertEquals("taken\n", Files.readString(dir.resolve("d.jsonl.000009")));
        List<Path> numbered;
        try (var files = Files.list(dir)) {
            numbered = files.filter(p -> p.getFileName().toString().matches("d\\.jsonl\\.\\d{6}"))
                    .filter(p -> !Set.of("d.jsonl.000007", "d.jsonl.000009").contains(p.getFileName().toString()))
                    .sorted().toList();
        }
        assertTrue(numbered.size() >= 10, numbered.size() + " rotations");
        assertEquals(List.of("d.jsonl.000008", "d.jsonl.000010", "d.jsonl.000011"),
                numbered.subList(0, 3).stream().map(p -> p.getFileName().toString()).toList());
        List<String> ids = new ArrayList<>();
        for (Path p : numbered) {
            assertTrue(Files.size(p) <= 2000, p + " is " + Files.size(p) + " bytes");
            ids.addAll(ids(p));
        }
        ids.addAll(ids(file));
        assertEquals(java.util.stream.IntStream.range(0, 60).mapToObj(i -> "x" + i).toList(), ids);
    }
}
