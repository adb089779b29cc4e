package dev.custody.engine.velocity;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;

/**
 * The time-ordered entries of one ledger key, with exact sliding-window counts and sums.
 *
 * <p>Entries live in a ring buffer of primitive arrays ({@code times} in epoch nanoseconds, {@code values}
 * in micro-dollars), addressed by ever-growing logical indices {@code [start, end)}. For each window
 * {@code W} the series keeps the logical index {@code heads[w]} of its first entry with
 * {@code time > anchor - W} and the exact sum of the values from there to the end, so the figures
 * "as of {@code anchor}" are ready without a scan. Moving the anchor forward only moves heads forward,
 * which is what makes the cost O(1) amortized per entry.
 *
 * <p>Invariants: entries are sorted by time (ties keep insertion order); every entry is at or before
 * {@code anchor}; entries at or before the eviction {@code floor} are gone, and the floor is at or before
 * {@code anchor - widest window}, so evicted entries are outside every window. The ledger sets the floor
 * (to its watermark minus lateness minus the widest window), so a late query still finds what it needs.
 *
 * <p>Sums are 128-bit ({@code sumHi:sumLo}, the low word unsigned): each value is below 2<sup>63</sup>,
 * so no realistic number of entries can overflow them, and they stay exact under add and subtract.
 *
 * <p>Not thread-safe: {@link VelocityLedger} guards every series with its lock.
 */
final class WindowSeries {
    private static final int MIN_CAPACITY = 8;

    private final long[] windows;
    private final boolean valued;
    private long[] times;
    private long[] values;
    private int mask;
    private long start;
    private long end;
    private final long[] heads;
    private final long[] sumLo;
    private final long[] sumHi;
    private long anchor = Long.MIN_VALUE;
    private long floor = Long.MIN_VALUE;

    /**
     * @param windows window lengths in nanoseconds, ascending
     * @param valued whether entries carry a value (outflow) or only count (attempts)
     */
    WindowSeries(long[] windows, boolean valued) {
        this.windows = windows.clone();
        this.valued = valued;
        this.times = new long[MIN_CAPACITY];
        this.values = valued ? new long[MIN_CAPACITY] : null;
        this.mask = MIN_CAPACITY - 1;
        this.heads = new long[windows.length];
        this.sumLo = new long[windows.length];
        this.sumHi = new long[windows.length];
    }

    boolean isEmpty() {
        return start == end;
    }

    int size() {
        return (int) (end - start);
    }

    int capacity() {
        return times.length;
    }

    long anchor() {
        return anchor;
    }

    /** Moves the anchor forward to {@code t} (no-op when it is already there or later). */
    void slideTo(long t) {
        if (t <= anchor) {
            return;
        }
        anchor = t;
        for (int w = 0; w < windows.length; w++) {
            long bound = t - windows[w];
            long h = heads[w];
            while (h < end && times[phys(h)] <= bound) {
                if (valued) {
                    subtract(w, values[phys(h)]);
                }
                h++;
            }
            heads[w] = h;
        }
    }

    /**
     * Forgets the entries at or before {@code bound}, and drops from now on any entry that would land
     * there. {@code bound} must be at or before {@code anchor - widest window}, so that every evicted entry
     * has already left every window.
     */
    void evictThrough(long bound) {
        if (bound <= floor) {
            return;
        }
        floor = bound;
        while (start < end && times[phys(start)] <= bound) {
            start++;
        }
        if (times.length > MIN_CAPACITY && size() < times.length / 4) {
            resize(times.length / 2);
        }
    }

    /** The widest window, in nanoseconds. */
    long widest() {
        return windows[windows.length - 1];
    }

    /**
     * Adds an entry. An entry at or after the anchor moves the anchor to it; an earlier one is inserted
     * in time order (cost: the number of entries after it). An entry at or before the eviction floor
     * ({@link #evictThrough}) can no longer be in any window the ledger answers for, and is dropped.
     *
     * @return false when the entry was dropped
     */
    boolean add(long t, long value) {
        if (t <= floor) {
            return false;
        }
        if (t >= anchor) {
            slideTo(t);
        }
        if (size() == times.length) {
            resize(times.length * 2);
        }
        long p = end;
        while (p > start && times[phys(p - 1)] > t) {
            times[phys(p)] = times[phys(p - 1)];
            if (valued) {
                values[phys(p)] = values[phys(p - 1)];
            }
            p--;
        }
        times[phys(p)] = t;
        if (valued) {
            values[phys(p)] = value;
        }
        end++;
        for (int w = 0; w < windows.length; w++) {
            if (t > anchor - windows[w]) {
                // at or after the head: inside the window as of the anchor
                if (valued) {
                    add(w, value);
                }
            } else {
                // before the head: the head's entry moved one slot to the right
                heads[w]++;
            }
        }
        return true;
    }

    /** Entries in window {@code w} as of the anchor: {@code (anchor - W, anchor]}. */
    long count(int w) {
        return end - heads[w];
    }

    /** Sum of window {@code w} as of the anchor, in micro-units. */
    BigDecimal sum(int w) {
        return micros(sumHi[w], sumLo[w]);
    }

    /**
     * Counts and sums as of an instant {@code t} before the anchor, derived from the running figures: for
     * each window, take away the entries in {@code (t, anchor]} and add back those in
     * {@code (t - W, anchor - W]}. Both ranges are {@code anchor - t} long (at most the ledger's lateness),
     * so the cost is the number of entries that recent, not a day's worth. Exact as long as
     * {@code t - widest window >= floor} (nothing it needs has been evicted).
     *
     * @param counts receives the count of each window
     * @param sums receives the sum of each window, or null for an unvalued series
     */
    void asOf(long t, long[] counts, BigDecimal[] sums) {
        for (int w = 0; w < windows.length; w++) {
            long lo = sumLo[w];
            long hi = sumHi[w];
            long count = end - heads[w];
            for (long i = end - 1; i >= heads[w] && times[phys(i)] > t; i--) {
                count--;
                if (valued) {
                    long v = values[phys(i)];
                    if (Long.compareUnsigned(lo, v) < 0) {
                        hi--;
                    }
                    lo -= v;
                }
            }
            long lower = t - windows[w];
            for (long i = heads[w] - 1; i >= start && times[phys(i)] > lower; i--) {
                if (times[phys(i)] <= t) {
                    count++;
                    if (valued) {
                        long r = lo + values[phys(i)];
                        if (Long.compareUnsigned(r, lo) < 0) {
                            hi++;
                        }
                        lo = r;
                    }
                }
            }
            counts[w] = count;
            if (sums != null) {
                sums[w] = micros(hi, lo);
            }
        }
    }

    private void add(int w, long v) {
        long r = sumLo[w] + v;
        if (Long.compareUnsigned(r, sumLo[w]) < 0) {
            sumHi[w]++;
        }
        sumLo[w] = r;
    }

    private void subtract(int w, long v) {
        if (Long.compareUnsigned(sumLo[w], v) < 0) {
            sumHi[w]--;
        }
        sumLo[w] -= v;
    }

    private int phys(long logical) {
        return (int) (logical & mask);
    }

    private void resize(int capacity) {
        long[] t = new long[capacity];
        long[] v = valued ? new long[capacity] : null;
        int m = capacity - 1;
        for (long i = start; i < end; i++) {
            t[(int) (i & m)] = times[phys(i)];
            if (valued) {
                v[(int) (i & m)] = values[phys(i)];
            }
        }
        times = t;
        values = v;
        mask = m;
    }

    static BigDecimal micros(long hi, long lo) {
        if (hi == 0 && lo >= 0) {
            return BigDecimal.valueOf(lo, 6);
        }
        BigInteger unsignedLo = new BigInteger(1, longBytes(lo));
        return new BigDecimal(BigInteger.valueOf(hi).shiftLeft(64).add(unsignedLo), 6);
    }

    private static byte[] longBytes(long v) {
        byte[] b = new byte[8];
        for (int i = 7; i >= 0; i--) {
            b[i] = (byte) v;
            v >>>= 8;
        }
        return b;
    }

    @Override
    public String toString() {
        return "WindowSeries" + Arrays.toString(windows) + " size=" + size() + " anchor=" + anchor;
    }
}
