package dev.custody.engine.log;

import dev.custody.engine.Decision;
import dev.custody.engine.EngineObserver;
import dev.custody.engine.payload.Action;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The decision log: an {@link EngineObserver} that carries every decision an engine takes from the deciding threads
 * to a {@link Listener} (such as {@link JsonLinesDecisionSink}), off the hot path. Register it with
 * {@code PolicyEngine.Builder.observer}; the caller owns it and closes it.
 *
 * <pre>{@code
 * DecisionLog log = DecisionLog.of(JsonLinesDecisionSink.builder(file).build());
 * PolicyEngine engine = PolicyEngine.builder(source).observer(log).build();
 * ...
 * log.close(); // delivers what is queued
 * }</pre>
 *
 * <h2>Design</h2>
 * In the default mode ({@link #of}), deciding threads only {@link #offer} an event (from {@link #decided}: the workspace, the action, the decision
 * and the log's clock's instant) to a bounded queue: a non-blocking call that never waits, so a
 * decision never waits for the log. One daemon thread takes events in order and calls the listener. When the queue
 * is full (the listener cannot keep up), the event is dropped and {@link #dropped()} counts it, because delaying a
 * withdrawal for its log line is worse than a gap the count reports. The thread never waits on the queue itself:
 * it takes what is queued in batches and, when the queue is empty, sleeps 1 ms, so an offer never has a waiting
 * consumer to wake (waking one costs a system call, more than a decision: see engine-core/BENCHMARKS.md); an event
 * reaches the listener at most about 1 ms after it was queued when the log is idle. {@link #close()} stops taking
 * new events, delivers what is queued (waiting up to the given time) and stops the thread.
 *
 * <h2>Durable mode</h2>
 * A log made by {@link #durable(Listener)} promises more, at a price: nothing is dropped, and a caller can wait
 * until its decisions are on disk before it acts on them (a server before it answers). It differs in three ways.
 * <ul>
 *   <li><b>Back-pressure, not loss.</b> {@link #decided} waits for room while the queue is full, so a listener that
 *       cannot keep up slows the deciding threads down instead of losing their events.
 *   <li><b>Group commit.</b> The worker takes every queued event, hands each to the listener, then calls
 *       {@link Listener#sync()} once (for {@link JsonLinesDecisionSink}: {@code FileChannel.force(false)}, an
 *       fdatasync), and only then marks the batch durable and wakes the threads that wait on it. Events queued
 *       while a sync runs form the next batch, so concurrent deciders share one sync: the more of them, the larger
 *       the batches, at about one sync's latency each.
 *   <li><b>{@link #awaitDurable(Duration)}</b> waits until every decision the calling thread handed to the log
 *       since its last {@code awaitDurable} (the engine calls {@link #decided} on the thread that called
 *       {@code evaluate}) has been delivered and synced, and throws {@link NotDurableException} when one of them
 *       was not: the listener threw on it, a sync failed, the log closed first, or the time ran out.
 * </ul>
 * A failed sync leaves the log failed for good: every later decision's wait throws
 * ({@link NotDurableException.Reason#SYNC_FAILED}) until a new log is made. After a failed {@code fsync} the
 * kernel may already have dropped the unwritten pages and a retried one can succeed without writing them (the
 * lesson PostgreSQL drew in 2018), so only a fresh start can tell what is on disk. A listener that throws on one
 * event fails that event alone. The worker blocks on the queue instead of sleeping between polls: each sync costs
 * far more than the wake-up.
 *
 * <p>Thread-safe.
 */
public final class DecisionLog implements EngineObserver, AutoCloseable {
    /** The default queue capacity. */
    public static final int DEFAULT_CAPACITY = 8192;

    /** How long the worker sleeps when the queue is empty: the most a decision waits to reach the listener. */
    private static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** At most this many events are taken from the queue at once. */
    private static final int BATCH = 256;
    /** Durable mode: the longest a worker or a waiter parks before it looks at the log's state again. */
    private static final long PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final BlockingQueue<Event> queue;
    private final Listener listener;
    private final Clock clock;
    private final Thread worker;
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong delivered = new AtomicLong();
    private volatile boolean closed;
    /** Durable mode only: the queue of tickets (event and waiting thread), else null. */
    private final BlockingQueue<Ticket> tickets;
    /** Durable mode only: each deciding thread's account of what it handed and what is durable. */
    private final ThreadLocal<Waiter> waiters;
    private final AtomicLong syncs = new AtomicLong();
    /** Durable mode: set when a sync failed; every later event fails with it. Written by the worker only. */
    private volatile NotDurableException broken;
    /** Durable mode: set when the worker has stopped; a ticket still queued then is never delivered. */
    private volatile boolean stopped;

    private DecisionLog(Listener listener, int capacity, Clock clock) {
        this(listener, capacity, clock, false);
    }

    private DecisionLog(Listener listener, int capacity, Clock clock, boolean durable) {
        this.listener = Objects.requireNonNull(listener, "listener");
        this.clock = Objects.requireNonNull(clock, "clock");
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        if (durable) {
            this.queue = null;
            this.tickets = new ArrayBlockingQueue<>(capacity);
            this.waiters = ThreadLocal.withInitial(Waiter::new);
        } else {
            this.queue = new ArrayBlockingQueue<>(capacity);
            this.tickets = null;
            this.waiters = null;
        }
        this.worker = new Thread(durable ? this::runDurable : this::run, "custody-decision-log");
        worker.setDaemon(true);
        worker.start();
    }

    /**
     * A log that delivers to {@code listener} through a queue of {@link #DEFAULT_CAPACITY} events, stamping each
     * decision with the system UTC clock.
     */
    public static DecisionLog of(Listener listener) {
        return new DecisionLog(listener, DEFAULT_CAPACITY, Clock.systemUTC());
    }

    /** A log that delivers to {@code listener} through a queue of {@code capacity} events (system UTC clock). */
    public static DecisionLog of(Listener listener, int capacity) {
        return new DecisionLog(listener, capacity, Clock.systemUTC());
    }

    /**
     * A log that delivers to {@code listener} through a queue of {@code capacity} events and stamps each decision
     * with {@code clock}'s instant ({@link Event#decidedAt}).
     */
    public static DecisionLog of(Listener listener, int capacity, Clock clock) {
        return new DecisionLog(listener, capacity, clock);
    }

    /**
     * A durable log (see "Durable mode" above) that delivers to {@code listener} through a queue of
     * {@link #DEFAULT_CAPACITY} events, stamping each decision with the system UTC clock.
     */
    public static DecisionLog durable(Listener listener) {
        return new DecisionLog(listener, DEFAULT_CAPACITY, Clock.systemUTC(), true);
    }

    /** A durable log (see "Durable mode" above) through a queue of {@code capacity} events (system UTC clock). */
    public static DecisionLog durable(Listener listener, int capacity) {
        return new DecisionLog(listener, capacity, Clock.systemUTC(), true);
    }

    /**
     * A durable log (see "Durable mode" above) that delivers to {@code listener} through a queue of {@code capacity}
     * events and stamps each decision with {@code clock}'s instant. The capacity bounds the events waiting for the
     * listener, and so how long a deciding thread can be held back: past it, {@link #decided} waits.
     */
    public static DecisionLog durable(Listener listener, int capacity, Clock clock) {
        return new DecisionLog(listener, capacity, clock, true);
    }

    /** Whether this log was made by {@link #durable}: it never drops, and {@link #awaitDurable} can be called. */
    public boolean isDurable() {
        return tickets != null;
    }

    /**
     * Queues the decision, stamped with this log's clock (see {@link #offer}). Called by the engine on the deciding
     * thread; never throws. A log made by {@link #of} never waits (it drops when full); a durable log waits for room.
     */
    @Override
    public void decided(String workspaceId, Action action, Decision decision, long nanos) {
        offer(new Event(workspaceId, action, decision, clock.instant()));
    }

    /**
     * Queues an event. A log made by {@link #of} never waits: it drops and counts the event when the queue is full
     * or the log closed. A durable log waits while the queue is full and ties the event to the calling thread for
     * {@link #awaitDurable}; it drops (and counts) only an event offered after {@link #close} or while the thread is
     * interrupted, and that thread's next {@code awaitDurable} throws.
     */
    public void offer(Event event) {
        if (tickets != null) {
            put(event);
            return;
        }
        if (closed || !queue.offer(event)) {
            dropped.incrementAndGet();
        }
    }

    private void put(Event event) {
        Waiter w = waiters.get();
        Ticket t = new Ticket(event, w, w.handed + 1);
        try {
            boolean queued = !closed && tickets.offer(t);
            while (!queued && !closed) {
                queued = tickets.offer(t, 10, TimeUnit.MILLISECONDS); // back-pressure instead of a dropped event
            }
            if (queued) {
                // if close raced this offer and the worker has already stopped, the wait sees the stop
                w.handed = t.seq;
            } else {
                lost(w, "the decision log was closed before the decision was queued");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            lost(w, "the deciding thread was interrupted while waiting for room in the decision log's queue");
        }
    }

    private void lost(Waiter w, String message) {
        dropped.incrementAndGet();
        if (w.lost == null) {
            w.lost = new NotDurableException(NotDurableException.Reason.NOT_DELIVERED, message, null);
        }
    }

    /**
     * Waits until every decision the calling thread handed to this durable log since its previous
     * {@code awaitDurable} (or since it started) has been delivered to the listener and synced
     * ({@link Listener#sync()} returned after it), waiting at most {@code timeout}. Returns at once when the thread
     * handed none. Whatever it throws, the next call waits only for decisions handed after this one.
     *
     * @throws NotDurableException when one of those decisions is not known to be durable: the listener threw on it,
     *     a sync failed (this batch's or an earlier one), the log was closed before delivering it, or
     *     {@code timeout} passed (the decision may still be written later)
     * @throws InterruptedException when the thread is interrupted while waiting
     * @throws IllegalStateException when this log is not durable (made by {@link #of})
     */
    public void awaitDurable(Duration timeout) throws NotDurableException, InterruptedException {
        if (tickets == null) {
            throw new IllegalStateException("the decision log is not durable: make it with DecisionLog.durable");
        }
        Objects.requireNonNull(timeout, "timeout");
        long deadline = System.nanoTime() + timeout.toNanos(); // wraps for huge timeouts; differences stay right
        Waiter w = waiters.get();
        long target = w.handed;
        try {
            while (w.done < target) {
                if (stopped && w.done < target) {
                    throw new NotDurableException(NotDurableException.Reason.NOT_DELIVERED,
                            "the decision log was closed before it delivered the decision", null);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new NotDurableException(NotDurableException.Reason.TIMED_OUT,
                            "the decision log did not sync the decision within " + timeout.toMillis() + " ms", null);
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                // the worker unparks this thread once its batch is synced; the slice bounds a missed stop
                LockSupport.parkNanos(this, Math.min(left, PARK_NANOS));
            }
            if (w.failedAt > w.awaited) {
                NotDurableException f = w.failure; // shared by the batch's threads: each throws its own
                throw new NotDurableException(f.reason(), f.getMessage(), f.getCause());
            }
            if (w.lost != null) {
                throw w.lost;
            }
        } finally {
            w.awaited = target;
            w.lost = null;
        }
    }

    /** {@link #awaitDurable(Duration)} with no limit but the log's own end ({@link #close}). */
    public void awaitDurable() throws NotDurableException, InterruptedException {
        awaitDurable(Duration.ofNanos(Long.MAX_VALUE));
    }

    /**
     * Events dropped: in a log made by {@link #of}, because the queue was full or the log closed; in a durable log,
     * only those offered after {@link #close} or by an interrupted thread.
     */
    public long dropped() {
        return dropped.get();
    }

    /** Syncs a durable log has made ({@link Listener#sync()} calls, one per batch); 0 for a log made by {@link #of}. */
    public long syncs() {
        return syncs.get();
    }

    /** Events the listener threw on (in a durable log, also those of a failed sync and every one after it). */
    public long failed() {
        return failed.get();
    }

    /** Events handed to the listener (including those it threw on). */
    public long delivered() {
        return delivered.get();
    }

    private void run() {
        List<Event> batch = new ArrayList<>(BATCH);
        while (!Thread.currentThread().isInterrupted()) {
            // never waits on the queue: a consumer parked in take() or poll(timeout) would make every offer
            // that finds it waiting pay for waking it (measured: the hand-off then cost more than the decision)
            if (queue.drainTo(batch, BATCH) == 0) {
                if (closed) {
                    return;
                }
                LockSupport.parkNanos(IDLE_NANOS);
                continue;
            }
            for (Event e : batch) {
                try {
                    listener.onDecision(e);
                } catch (Exception | Error ex) {
                    failed.incrementAndGet();
                }
                delivered.incrementAndGet();
            }
            batch.clear();
        }
    }

    /**
     * The durable worker: blocks for an event, takes every queued one with it, delivers them, syncs once, then marks
     * them durable and wakes their threads (group commit).
     */
    private void runDurable() {
        List<Ticket> batch = new ArrayList<>();
        try {
            while (true) {
                Ticket first = tickets.poll(PARK_NANOS, TimeUnit.NANOSECONDS);
                if (first == null) {
                    if (closed) {
                        return;
                    }
                    continue;
                }
                batch.add(first);
                tickets.drainTo(batch);
                commit(batch);
                batch.clear();
            }
        } catch (InterruptedException e) {
            // close gave up waiting: what is still queued is never delivered, and its waits say so
        } finally {
            stopped = true;
        }
    }

    private void commit(List<Ticket> batch) {
        NotDurableException failure = broken;
        int ok = 0;
        if (failure == null) {
            for (Ticket t : batch) {
                try {
                    listener.onDecision(t.event);
                    ok++;
                } catch (Exception | Error ex) {
                    t.failure = new NotDurableException(NotDurableException.Reason.LISTENER_FAILED,
                            "the decision log could not write the decision: " + oneLine(ex), ex);
                    failed.incrementAndGet();
                }
                delivered.incrementAndGet();
            }
            try {
                listener.sync();
                syncs.incrementAndGet();
            } catch (Exception | Error ex) {
                failure = new NotDurableException(NotDurableException.Reason.SYNC_FAILED,
                        "the decision log could not force its file to disk: " + oneLine(ex), ex);
                broken = failure;
                failed.addAndGet(ok);
            }
        } else {
            failed.addAndGet(batch.size());
        }
        for (Ticket t : batch) {
            Waiter w = t.waiter;
            NotDurableException f = t.failure != null ? t.failure : failure; // its own failure came first
            if (f != null) {
                w.failure = f;
                w.failedAt = t.seq;
            }
            w.done = t.seq; // after the failure: a waiter that sees done sees the failure too
        }
        Set<Waiter> woken = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Ticket t : batch) {
            if (woken.add(t.waiter)) { // once per thread: a batch request hands many decisions
                LockSupport.unpark(t.waiter.thread);
            }
        }
    }

    private static String oneLine(Throwable t) {
        String m = t.getMessage();
        String text = m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
        return text.lines().findFirst().orElse(text);
    }

    /** Stops taking events and delivers what is queued, waiting at most {@code millis} for it. */
    public void close(long millis) throws InterruptedException {
        closed = true;
        worker.join(millis);
        if (worker.isAlive()) {
            worker.interrupt();
        }
        if (listener instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception e) {
                failed.incrementAndGet();
            }
        }
    }

    /** {@link #close(long)} with 10 seconds to deliver what is queued. */
    @Override
    public void close() throws InterruptedException {
        close(10_000);
    }

    /**
     * Told about every decision a log carries: for an audit file ({@link JsonLinesDecisionSink}), an event bus, a
     * data warehouse. Never called on a deciding thread: one background thread of the {@link DecisionLog} calls
     * it, one event at a time, in the order the events were queued. In a log made by {@link DecisionLog#of}, a slow
     * or failing listener never delays, blocks or changes a decision (when the queue is full the event is dropped
     * and counted, see {@link DecisionLog#dropped()}); in a {@link DecisionLog#durable durable} one, a slow listener
     * holds the deciding threads back once the queue is full. An exception it throws is counted
     * ({@link DecisionLog#failed()}) and otherwise ignored (a durable log's waits report it).
     * A listener that is {@link AutoCloseable} is closed when the log is.
     *
     * <p>In a {@link DecisionLog#durable durable} log, the same thread calls {@link #sync()} after each batch of
     * events, and a decision counts as durable only once {@code sync} returned after its {@code onDecision} did.
     */
    @FunctionalInterface
    public interface Listener {
        /** One decision. */
        void onDecision(Event event) throws Exception;

        /**
         * Makes every decision given to {@link #onDecision} so far durable: written out and forced to stable
         * storage, so that it survives the process's death and the machine's loss of power. Throws when it cannot
         * say so. Called only by a durable log, after each batch. The default does nothing: right for a listener
         * whose {@code onDecision} is durable when it returns (a synchronous database commit), wrong for one that
         * buffers or writes to a file, which must override it ({@link JsonLinesDecisionSink} does).
         */
        default void sync() throws Exception {
        }
    }

    /**
     * A decision that a durable log cannot say is durable, thrown by {@link DecisionLog#awaitDurable}: whoever
     * waited must not act as if it were logged (a server answers an error instead of the decision). The
     * {@link #reason()} says why; the message is one line for people.
     */
    public static final class NotDurableException extends IOException {
        private static final long serialVersionUID = 1L;

        /** Why a decision is not known to be durable. */
        public enum Reason {
            /** The listener threw on the decision: it may be missing from the log. */
            LISTENER_FAILED,
            /** A sync failed, for the decision's batch or an earlier one: the log fails every decision since. */
            SYNC_FAILED,
            /** The wait ran out first; the decision may still become durable later. */
            TIMED_OUT,
            /**
             * The log was closed before it delivered the decision, or the deciding thread was interrupted while it
             * waited for room in the queue.
             */
            NOT_DELIVERED
        }

        private final Reason reason;

        NotDurableException(Reason reason, String message, Throwable cause) {
            super(message, cause);
            this.reason = reason;
        }

        /** Why the decision is not known to be durable. */
        public Reason reason() {
            return reason;
        }
    }

    /** One deciding thread's account with a durable log. */
    private static final class Waiter {
        final Thread thread = Thread.currentThread();
        /** The number of the last event this thread queued (its own count). Read and written by the thread only. */
        long handed;
        /** {@link #handed} when its last {@link DecisionLog#awaitDurable} ended. The thread only. */
        long awaited;
        /** The first event of this thread not queued since its last wait (closed, interrupted). The thread only. */
        NotDurableException lost;
        /** The number of this thread's last event the worker has finished with. Written by the worker. */
        volatile long done;
        /** The number of this thread's last event that failed, and its failure. Written by the worker. */
        volatile long failedAt;
        volatile NotDurableException failure;
    }

    /** An event in a durable log's queue, with the thread that waits for it and its number in that thread's count. */
    private static final class Ticket {
        final Event event;
        final Waiter waiter;
        final long seq;
        /** Set by the worker when the listener threw on the event. */
        NotDurableException failure;

        Ticket(Event event, Waiter waiter, long seq) {
            this.event = event;
            this.waiter = waiter;
            this.seq = seq;
        }
    }

    /**
     * One decision as a decision log records it: what was decided, for which workspace, on what, when, and under
     * which policies ({@link Decision#bundleRevision()}). Immutable and thread-safe.
     *
     * @param workspaceId the workspace the engine decided under (canonical, lower case; empty for actions without
     *     one)
     * @param action the action as decided
     * @param decision the decision
     * @param decidedAt when it was decided (the log's clock, read on the deciding thread)
     */
    public record Event(String workspaceId, Action action, Decision decision, Instant decidedAt) {
        public Event {
            Objects.requireNonNull(workspaceId, "workspaceId");
            Objects.requireNonNull(action, "action");
            Objects.requireNonNull(decision, "decision");
            Objects.requireNonNull(decidedAt, "decidedAt");
        }
    }
}
