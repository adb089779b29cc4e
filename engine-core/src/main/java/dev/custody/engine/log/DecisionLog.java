package dev.custody.engine.log;

import dev.custody.engine.Decision;
import dev.custody.engine.EngineObserver;
import dev.custody.engine.payload.Action;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
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
 * Deciding threads only {@link #offer} an event (from {@link #decided}: the workspace, the action, the decision
 * and the log's clock's instant) to a bounded queue: a non-blocking call that never waits, so a
 * decision never waits for the log. One daemon thread takes events in order and calls the listener. When the queue
 * is full (the listener cannot keep up), the event is dropped and {@link #dropped()} counts it, because delaying a
 * withdrawal for its log line is worse than a gap the count reports. The thread never waits on the queue itself:
 * it takes what is queued in batches and, when the queue is empty, sleeps 1 ms, so an offer never has a waiting
 * consumer to wake (waking one costs a system call, more than a decision: see engine-core/BENCHMARKS.md); an event
 * reaches the listener at most about 1 ms after it was queued when the log is idle. {@link #close()} stops taking
 * new events, delivers what is queued (waiting up to the given time) and stops the thread.
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

    private final BlockingQueue<Event> queue;
    private final Listener listener;
    private final Clock clock;
    private final Thread worker;
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong delivered = new AtomicLong();
    private volatile boolean closed;

    private DecisionLog(Listener listener, int capacity, Clock clock) {
        this.listener = Objects.requireNonNull(listener, "listener");
        this.clock = Objects.requireNonNull(clock, "clock");
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.worker = new Thread(this::run, "custody-decision-log");
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
     * Queues the decision, stamped with this log's clock, without waiting (see {@link #offer}). Called by the
     * engine on the deciding thread; never throws for a full queue.
     */
    @Override
    public void decided(String workspaceId, Action action, Decision decision, long nanos) {
        offer(new Event(workspaceId, action, decision, clock.instant()));
    }

    /** Queues an event without waiting; drops and counts it when the queue is full or the log closed. */
    public void offer(Event event) {
        if (closed || !queue.offer(event)) {
            dropped.incrementAndGet();
        }
    }

    /** Events dropped because the queue was full or the log closed. */
    public long dropped() {
        return dropped.get();
    }

    /** Events the listener threw on. */
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
     * it, one event at a time, in the order the events were queued, so a slow or failing listener never delays,
     * blocks or changes a decision (when the queue is full the event is dropped and counted, see
     * {@link DecisionLog#dropped()}). An exception it throws is counted ({@link DecisionLog#failed()}) and ignored.
     * A listener that is {@link AutoCloseable} is closed when the log is.
     */
    @FunctionalInterface
    public interface Listener {
        /** One decision. */
        void onDecision(Event event) throws Exception;
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
