package dev.custody.engine.compile;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The clock of the wall-clock backstop (docs/design.md §3.15, §10.6), in nanoseconds: the CPU time of the current
 * thread where the JVM measures it (HotSpot on Linux, macOS and Windows does), else {@link System#nanoTime()}.
 *
 * <p>CPU time, because the backstop must not depend on load either: a thread waiting for a processor on a busy
 * host, or stopped for a garbage collection, spends no CPU time, so only the work of the evaluation itself
 * counts against the backstop. Values are only meaningful as differences on one thread. Thread-safe.
 *
 * <h2>Reading it cheaply</h2>
 * Reading a thread's CPU time is a system call: about 1.4 µs on the reference machine, more than a whole
 * compiled decision. So the engine sets deadlines with {@link #deadline} and checks them with {@link #passed},
 * which read the wall clock ({@code System.nanoTime()}, about 30 ns) and the CPU clock only when they must. Each
 * thread remembers its CPU time at its last reading ({@code cpu}) and the wall-clock instant of that reading
 * ({@code wall}); as a thread never spends more CPU time than wall-clock time, {@code cpu + (nanoTime() - wall)}
 * is an upper bound of its CPU time now. {@link #passed} answers false while that bound is before the deadline
 * and reads the CPU clock only after, so it answers exactly what a reading would. {@link #deadline} starts from
 * the bound, reading the CPU clock first when the last reading is more than {@value #RESYNC_NANOS} ns old, so a
 * deadline may give an evaluation up to that much more than its budget (1 % of the default one second).
 */
public final class ThreadClock {
    /** How old (in wall-clock nanoseconds) a thread's last CPU reading may be when a deadline is set from it. */
    static final long RESYNC_NANOS = 10_000_000L;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final boolean CPU = cpuTimeWorks();
    /** Per thread: {CPU time at the last reading, nanoTime just before it}. */
    private static final ThreadLocal<long[]> LAST = ThreadLocal.withInitial(() -> new long[] {0, Long.MIN_VALUE});

    private ThreadClock() {}

    private static boolean cpuTimeWorks() {
        try {
            if (!THREADS.isCurrentThreadCpuTimeSupported()) {
                return false;
            }
            if (!THREADS.isThreadCpuTimeEnabled()) {
                THREADS.setThreadCpuTimeEnabled(true);
            }
            return THREADS.getCurrentThreadCpuTime() >= 0;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Now, on this thread's clock: its CPU time (a system call), or {@link System#nanoTime()} where that is not measured. */
    public static long now() {
        if (!CPU) {
            return System.nanoTime();
        }
        return read(LAST.get(), System.nanoTime());
    }

    /**
     * A deadline {@code budgetNanos} from now on this thread's clock, for {@link #passed}: from the upper bound of
     * the class comment, so it may be up to {@value #RESYNC_NANOS} ns later than {@code now() + budgetNanos}.
     */
    public static long deadline(long budgetNanos) {
        if (!CPU) {
            return System.nanoTime() + budgetNanos;
        }
        long[] last = LAST.get();
        long wall = System.nanoTime();
        if (wall - last[1] > RESYNC_NANOS || last[1] == Long.MIN_VALUE) {
            return read(last, wall) + budgetNanos;
        }
        return last[0] + (wall - last[1]) + budgetNanos;
    }

    /**
     * Whether this thread's clock is past {@code deadline} (a {@link #now()} or {@link #deadline} value): exactly
     * {@code now() - deadline > 0}, reading the CPU clock only once the cheap upper bound is past the deadline.
     */
    public static boolean passed(long deadline) {
        if (!CPU) {
            return System.nanoTime() - deadline > 0;
        }
        long[] last = LAST.get();
        long wall = System.nanoTime();
        if (last[1] != Long.MIN_VALUE && last[0] + (wall - last[1]) - deadline <= 0) {
            return false;
        }
        return read(last, wall) - deadline > 0;
    }

    /** Reads the CPU clock, remembering it with {@code wall}, a nanoTime taken just before. */
    private static long read(long[] last, long wall) {
        long cpu = THREADS.getCurrentThreadCpuTime();
        last[0] = cpu;
        last[1] = wall;
        return cpu;
    }

    /** Whether {@link #now()} is the thread's CPU time (false: the wall clock). */
    public static boolean measuresCpuTime() {
        return CPU;
    }
}
