package dev.custody.cli.command;

/**
 * Latencies in nanoseconds, in log-linear buckets: exact below 64 ns, then 64 buckets per power of two, so a
 * percentile is within 1.6% of the true value, in constant memory (32 KiB) however many values are recorded.
 * Count, sum (for the mean) and maximum are exact. Not thread-safe.
 */
final class Histogram {
    private static final int SUB_BITS = 6;
    private static final int SUB = 1 << SUB_BITS;

    private final long[] counts = new long[64 * SUB];
    private long count;
    private long sum;
    private long max;

    void record(long nanos) {
        long v = Math.max(0, nanos);
        counts[index(v)]++;
        count++;
        sum += v;
        if (v > max) {
            max = v;
        }
    }

    long count() {
        return count;
    }

    long max() {
        return max;
    }

    double mean() {
        return count == 0 ? 0 : sum / (double) count;
    }

    /** The value below or at which a fraction {@code p} (0–1) of the values lie; its bucket's upper bound, capped at the maximum. */
    long percentile(double p) {
        if (count == 0) {
            return 0;
        }
        long target = Math.max(1, (long) Math.ceil(p * count));
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= target) {
                return Math.min(max, highest(i));
            }
        }
        return max;
    }

    static int index(long v) {
        if (v < SUB) {
            return (int) v;
        }
        int magnitude = 63 - Long.numberOfLeadingZeros(v);
        int shift = magnitude - SUB_BITS;
        int sub = (int) (v >>> shift) - SUB;
        return (magnitude - SUB_BITS + 1) * SUB + sub;
    }

    static long lowest(int index) {
        if (index < SUB) {
            return index;
        }
        int magnitude = index / SUB + SUB_BITS - 1;
        int sub = index % SUB;
        return (long) (SUB + sub) << (magnitude - SUB_BITS);
    }

    static long highest(int index) {
        if (index < SUB) {
            return index;
        }
        int magnitude = index / SUB + SUB_BITS - 1;
        return lowest(index) + (1L << (magnitude - SUB_BITS)) - 1;
    }
}
