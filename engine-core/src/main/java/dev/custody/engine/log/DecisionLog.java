package dev.custody.engine.log;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Carries decisions from deciding threads to a {@link DecisionListener}, off the hot path.
 *
 * <h2>Design</h2>
 * Deciding threads only {@link #offer} an event to a bounded queue: a non-blocking call that never waits, so a
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
public final class DecisionLog implements AutoCloseable {
    /** The default queue capacity. */
    public static final int DEFAULT_CAPACITY = 8192;

    /** How long the worker sleeps when the queue is empty: the most a decision waits to reach the listener. */
    private static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** At most this many events are taken from the queue at once. */
    private static final int BATCH = 256;

    private final BlockingQueue<DecisionEvent> queue;
    private final DecisionListener listener;
    private final Thread worker;
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong delivered = new AtomicLong();
    private volatile boolean closed;

    private DecisionLog(DecisionListener listener, int capacity) {
        this.listener = Objects.requireNonNull(listener, "listener");
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
        }
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.worker = new Thread(this::run, "custody-decision-log");
        worker.setDaemon(true);
        worker.start();
    }

    /** A log that delivers to {@code listener} through a queue of {@link #DEFAULT_CAPACITY} events. */
    public static DecisionLog of(DecisionListener listener) {
        return new DecisionLog(listener, DEFAULT_CAPACITY);
    }

    /** A log that delivers to {@code listener} through a queue of {@code capacity} events. */
    public static DecisionLog of(DecisionListener listener, int capacity) {
        return new DecisionLog(listener, capacity);
    }

    /** Queues an event without waiting; drops and counts it when the queue is full or the log closed. */
    public void offer(DecisionEvent event) {
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
        List<DecisionEvent> batch = new ArrayList<>(BATCH);
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
            for (DecisionEvent e : batch) {
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
}
