package dev.custody.engine.compile;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The clock of the wall-clock backstop (docs/design.md §7.10), in nanoseconds: the CPU time of the current
 * thread where the JVM measures it (HotSpot on Linux, macOS and Windows does), else {@link System#nanoTime()}.
 *
 * <p>CPU time, because the backstop must not depend on load either: a thread waiting for a processor on a busy
 * host, or stopped for a garbage collection, spends no CPU time, so only the work of the evaluation itself
 * counts against the backstop. Reading it costs a system call (a fraction of a microsecond), which is why the
 * engine reads it only around and inside rules that may run long. Values are only meaningful as differences
 * on one thread. Thread-safe.
 */
public final class ThreadClock {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final boolean CPU = cpuTimeWorks();

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

    /** Now, on this thread's clock: its CPU time, or {@link System#nanoTime()} where that is not measured. */
    public static long now() {
        return CPU ? THREADS.getCurrentThreadCpuTime() : System.nanoTime();
    }

    /** Whether {@link #now()} is the thread's CPU time (false: the wall clock). */
    public static boolean measuresCpuTime() {
        return CPU;
    }
}
