package dev.custody.engine.velocity;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import dev.custody.engine.schema.Uuids;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An in-memory {@link VelocitySource}: exact sliding windows of realized outflow (1 h, 6 h, 24 h) and of
 * withdrawal attempts (1 h), per wallet, per workspace and per (workspace, network).
 *
 * <h2>What it counts</h2>
 * <ul>
 *   <li>{@link #recordAttempt} adds one attempt to the wallet, the workspace and the (workspace, network)
 *       1-hour counts. Every attempt counts, whatever its decision or fate.
 *   <li>{@link #recordSettlement} adds realized outflow when the status is {@code executed} or
 *       {@code success}; a {@code failed} settlement counts nothing.
 * </ul>
 *
 * <h2>Window bounds and self-counting</h2>
 * The window of length {@code W} as of instant {@code t} holds the entries with a time in
 * {@code (t - W, t]}: an entry exactly {@code W} old has left it, an entry at {@code t} is in it. An
 * action does not count itself: its figures are read before its decision and its attempt is recorded
 * after (see {@code dev.custody.engine.replay.StreamLedger}), so {@code withdrawal_count_1h} is the number of <em>earlier</em>
 * attempts, and two attempts at the same instant see each other in recording order.
 *
 * <h2>Exact arithmetic</h2>
 * USD values are rounded once, on the way in, to micro-dollars (6 decimal places, half-even) and held as
 * {@code long}; window sums are 128-bit integers, so they neither drift (as {@code double} sums do when
 * values are added and later subtracted) nor overflow. A single value must be below 2<sup>63</sup>
 * micro-dollars (about 9.2 trillion USD). Figures come out as {@link BigDecimal} with scale 6.
 *
 * <h2>Time and out-of-order records</h2>
 * The ledger's time (its <em>watermark</em>) is the latest instant it has seen, in a record or a query;
 * it never goes back, and it is driven by the data, not by a wall clock. Records and queries may come out
 * of order:
 * <ul>
 *   <li>a late record (earlier than entries already recorded) is inserted in time order and is counted
 *       exactly by every later query; its cost is the number of entries of its key after it;
 *   <li>a record at or before {@code watermark - lateness - W} (W = 24 h for outflow, 1 h for attempts) can
 *       no longer fall in any window the ledger answers for, and is dropped ({@link #droppedRecords()});
 *   <li>a query at {@code t >= watermark - lateness} is answered exactly; when {@code t} is earlier than
 *       the key's newest entry, by correcting the running sums with the entries less than
 *       {@code newest - t} from either edge of each window (so it costs the records of the lateness span,
 *       not a day's worth);
 *   <li>a query at {@code t < watermark - lateness} throws {@link VelocityException}: the data it needs
 *       may be evicted, and an undercount would let a limit pass, so the caller denies fail-closed.
 * </ul>
 * The lateness tolerance is {@link #DEFAULT_LATENESS} (5 minutes) unless set with
 * {@link Builder#lateness(Duration)}. Instants must lie between 1970 and 2200 (they are held as epoch
 * nanoseconds). A far-future record moves the watermark far ahead; with real clocks this does not
 * happen, in a replay it is an input error.
 *
 * <h2>Cost and memory</h2>
 * Each key keeps its entries in a ring buffer of primitive arrays sorted by time, with one head index and
 * one running sum per window. Moving a window forward only advances its head, so recording and reading
 * are O(1) amortized per entry (a late record also pays for the entries it is inserted before). Expired
 * entries are evicted whenever a key is touched, and a sweep over all keys, run after as many operations
 * as there are keys (at least 1024), evicts the entries of keys that went quiet and forgets empty keys.
 * Memory is therefore bounded by the entries of the last {@code 24 h + lateness} (1 h + lateness for
 * attempts) plus at most one sweep interval of records: 16 bytes per outflow entry and 8 per attempt
 * entry, three keys per record, plus the ring buffers' slack (capacities are powers of two, halved when a
 * quarter full). {@code VelocityLedgerMeasure} (in the tests) measured about 24 bytes per outflow entry
 * all included, i.e. about 7 MB per 100,000 realized settlements within 24 h, and a few hundred
 * nanoseconds per record or query.
 *
 * <h2>Keys</h2>
 * A wallet id is unique across workspaces, so the wallet key is the wallet alone; the workspace and
 * (workspace, network) keys carry the workspace. Wallet and workspace ids are matched without regard to
 * case (UUIDs); network codes exactly.
 *
 * <h2>Thread-safety</h2>
 * One {@link ReentrantLock} guards all state; every public method holds it for its whole, short, O(1)
 * amortized run, so a query sees the three keys of a withdrawal in one consistent state and a recording is
 * atomic across them. Reads take the lock too (they move heads and evict). A service with heavy load from
 * many workspaces can shard by workspace: ledgers are independent.
 */
public final class VelocityLedger implements VelocitySource {
    /** The default lateness tolerance for out-of-order records and queries. */
    public static final Duration DEFAULT_LATENESS = Duration.ofMinutes(5);

    static final long HOUR = Duration.ofHours(1).toNanos();
    private static final long[] OUTFLOW_WINDOWS = {HOUR, 6 * HOUR, 24 * HOUR};
    private static final long[] ATTEMPT_WINDOWS = {HOUR};
    private static final Instant MIN_INSTANT = Instant.EPOCH;
    private static final Instant MAX_INSTANT = Instant.parse("2200-01-01T00:00:00Z");
    private static final BigDecimal MAX_MICROS = BigDecimal.valueOf(Long.MAX_VALUE);
    private static final int MIN_SWEEP_INTERVAL = 1024;

    private enum Scope { WALLET, WORKSPACE, NETWORK }

    private record Key(Scope scope, String workspace, String id) {}

    private static final class Series {
        WindowSeries outflow;
        WindowSeries attempts;
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Map<Key, Series> keys = new HashMap<>();
    private final long lateness;
    private long watermark = Long.MIN_VALUE;
    private long opsSinceSweep;
    private long dropped;

    private VelocityLedger(Duration lateness) {
        this.lateness = lateness.toNanos();
    }

    /** A ledger with the default lateness tolerance. */
    public static VelocityLedger create() {
        return builder().build();
    }

    /** A builder for the lateness tolerance. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Records one withdrawal attempt at {@code at}.
     *
     * @param networkCode the withdrawal's network; null records no per-network attempt
     * @throws IllegalArgumentException when {@code at} is outside 1970–2200
     */
    public void recordAttempt(String workspaceId, String walletId, String networkCode, Instant at) {
        Objects.requireNonNull(workspaceId, "workspaceId");
        Objects.requireNonNull(walletId, "walletId");
        long t = nanos(at);
        lock.lock();
        try {
            advance(t);
            boolean kept = false;
            for (Key k : keys(workspaceId, walletId, networkCode)) {
                Series s = keys.computeIfAbsent(k, x -> new Series());
                if (s.attempts == null) {
                    s.attempts = new WindowSeries(ATTEMPT_WINDOWS, false);
                }
                touch(s.attempts);
                kept |= s.attempts.add(t, 0);
            }
            if (!kept) {
                dropped++;
            }
            afterOperation();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Records that a withdrawal reached a terminal state at {@code at}. {@code executed} and
     * {@code success} add {@code valueUsd} (rounded to micro-dollars, half-even) to the realized outflow of
     * the wallet, the workspace and the (workspace, network); {@code failed} adds nothing.
     *
     * @param networkCode the withdrawal's network; null records no per-network outflow
     * @throws IllegalArgumentException when {@code valueUsd} is negative or 2<sup>63</sup> micro-dollars or
     *     more, or {@code at} is outside 1970–2200
     */
    public void recordSettlement(String workspaceId, String walletId, String networkCode, BigDecimal valueUsd,
            SettlementStatus status, Instant at) {
        Objects.requireNonNull(workspaceId, "workspaceId");
        Objects.requireNonNull(walletId, "walletId");
        Objects.requireNonNull(status, "status");
        long micros = micros(valueUsd);
        long t = nanos(at);
        lock.lock();
        try {
            advance(t);
            if (status.realized()) {
                boolean kept = false;
                for (Key k : keys(workspaceId, walletId, networkCode)) {
                    Series s = keys.computeIfAbsent(k, x -> new Series());
                    if (s.outflow == null) {
                        s.outflow = new WindowSeries(OUTFLOW_WINDOWS, true);
                    }
                    touch(s.outflow);
                    kept |= s.outflow.add(t, micros);
                }
                if (!kept) {
                    dropped++;
                }
            }
            afterOperation();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The figures as of {@code at}, over the windows {@code (at - W, at]}.
     *
     * @throws VelocityException when {@code at} is more than the lateness tolerance before the watermark
     * @throws IllegalArgumentException when {@code at} is outside 1970–2200
     */
    @Override
    public Velocity velocity(String workspaceId, String walletId, String networkCode, Instant at) {
        Objects.requireNonNull(workspaceId, "workspaceId");
        Objects.requireNonNull(walletId, "walletId");
        Objects.requireNonNull(networkCode, "networkCode");
        long t = nanos(at);
        lock.lock();
        try {
            if (watermark != Long.MIN_VALUE && t < watermark - lateness) {
                throw new VelocityException("velocity as of `" + at + "` is unavailable: the ledger has already seen `"
                        + Instant.EPOCH.plusNanos(watermark) + "`, more than " + Duration.ofNanos(lateness)
                        .toString().substring(2).toLowerCase(Locale.ROOT) + " later");
            }
            advance(t);
            Key[] k = keys(workspaceId, walletId, networkCode);
            Velocity v = new Velocity(figures(k[0], t), figures(k[1], t), figures(k[2], t));
            afterOperation();
            return v;
        } finally {
            lock.unlock();
        }
    }

    /** Records dropped because they were too old to fall in any window the ledger still answers for. */
    public long droppedRecords() {
        lock.lock();
        try {
            return dropped;
        } finally {
            lock.unlock();
        }
    }

    /** The latest instant seen in a record or a query, or empty before the first one. */
    public Optional<Instant> watermark() {
        lock.lock();
        try {
            return watermark == Long.MIN_VALUE ? Optional.empty()
                    : Optional.of(Instant.EPOCH.plusNanos(watermark));
        } finally {
            lock.unlock();
        }
    }

    /** Entries held over all keys (outflow and attempt entries), for measurements and tests. */
    public long retainedEntries() {
        lock.lock();
        try {
            long n = 0;
            for (Series s : keys.values()) {
                n += s.outflow == null ? 0 : s.outflow.size();
                n += s.attempts == null ? 0 : s.attempts.size();
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** Evicts what has expired as of the watermark in every key, and forgets empty keys. */
    public void sweep() {
        lock.lock();
        try {
            sweepLocked();
        } finally {
            lock.unlock();
        }
    }

    private Velocity.Figures figures(Key k, long t) {
        Series s = keys.get(k);
        if (s == null) {
            return Velocity.Figures.ZERO;
        }
        BigDecimal[] sums = {BigDecimal.ZERO, BigDecimal.ZERO, BigDecimal.ZERO};
        if (s.outflow != null) {
            WindowSeries o = s.outflow;
            touch(o);
            if (t >= o.anchor()) {
                o.slideTo(t);
                for (int w = 0; w < 3; w++) {
                    sums[w] = o.sum(w);
                }
            } else {
                o.asOf(t, new long[3], sums);
            }
        }
        long count = 0;
        if (s.attempts != null) {
            WindowSeries a = s.attempts;
            touch(a);
            if (t >= a.anchor()) {
                a.slideTo(t);
                count = a.count(0);
            } else {
                long[] counts = new long[1];
                a.asOf(t, counts, null);
                count = counts[0];
            }
        }
        return new Velocity.Figures(sums[0], sums[1], sums[2], count);
    }

    /** Moves the watermark forward; keys are brought up to it lazily ({@link #touch}) and by sweeps. */
    private void advance(long t) {
        if (t > watermark) {
            watermark = t;
        }
    }

    /**
     * Slides a series to the earliest instant a query may still ask about, {@code watermark - lateness},
     * and evicts what no such query can need: entries at or before that instant minus the widest window.
     */
    private void touch(WindowSeries s) {
        long earliestQuery = watermark - lateness;
        s.slideTo(earliestQuery);
        s.evictThrough(earliestQuery - s.widest());
    }

    private void afterOperation() {
        if (++opsSinceSweep >= Math.max(MIN_SWEEP_INTERVAL, keys.size())) {
            sweepLocked();
        }
    }

    private void sweepLocked() {
        opsSinceSweep = 0;
        if (watermark == Long.MIN_VALUE) {
            return;
        }
        for (Iterator<Series> it = keys.values().iterator(); it.hasNext();) {
            Series s = it.next();
            if (s.outflow != null) {
                touch(s.outflow);
                if (s.outflow.isEmpty()) {
                    s.outflow = null;
                }
            }
            if (s.attempts != null) {
                touch(s.attempts);
                if (s.attempts.isEmpty()) {
                    s.attempts = null;
                }
            }
            if (s.outflow == null && s.attempts == null) {
                it.remove();
            }
        }
    }

    private static Key[] keys(String workspaceId, String walletId, String networkCode) {
        String ws = Uuids.lowerCase(workspaceId);
        Key wallet = new Key(Scope.WALLET, null, Uuids.lowerCase(walletId));
        Key workspace = new Key(Scope.WORKSPACE, ws, null);
        if (networkCode == null) {
            return new Key[] {wallet, workspace};
        }
        return new Key[] {wallet, workspace, new Key(Scope.NETWORK, ws, networkCode)};
    }

    /**
     * The instant as epoch nanoseconds, as every ledger holds it (this one and the JDBC ledger of
     * {@code custody-velocity-jdbc}): one rule for the supported range.
     *
     * @throws IllegalArgumentException when {@code at} is outside 1970–2200
     */
    public static long epochNanos(Instant at) {
        return nanos(at);
    }

    /**
     * A USD value as the integer micro-dollars every ledger holds: rounded once, half-even, to 6 decimal places.
     *
     * @throws IllegalArgumentException when the value is negative or 2<sup>63</sup> micro-dollars or more
     */
    public static long microDollars(BigDecimal valueUsd) {
        return micros(valueUsd);
    }

    static long nanos(Instant at) {
        Objects.requireNonNull(at, "at");
        if (at.isBefore(MIN_INSTANT) || !at.isBefore(MAX_INSTANT)) {
            throw new IllegalArgumentException("instant `" + at + "` is outside the supported range 1970 to 2200");
        }
        return at.getEpochSecond() * 1_000_000_000L + at.getNano();
    }

    static long micros(BigDecimal valueUsd) {
        Objects.requireNonNull(valueUsd, "valueUsd");
        if (valueUsd.signum() < 0) {
            throw new IllegalArgumentException("`value_usd` must not be negative, got " + valueUsd);
        }
        if (valueUsd.precision() - valueUsd.scale() > 19) {
            throw new IllegalArgumentException("`value_usd` " + valueUsd + " is too large");
        }
        BigDecimal micros = valueUsd.setScale(6, RoundingMode.HALF_EVEN).movePointRight(6);
        if (micros.compareTo(MAX_MICROS) > 0) {
            throw new IllegalArgumentException("`value_usd` " + valueUsd.toPlainString() + " is too large");
        }
        return micros.longValueExact();
    }

    /** Builds a {@link VelocityLedger}. Not thread-safe; the ledger it builds is. */
    public static final class Builder {
        private Duration lateness = DEFAULT_LATENESS;

        private Builder() {}

        /**
         * How far before the watermark a record is still counted exactly and a query still answered;
         * zero or positive, at most 24 hours. Memory grows with it (entries are kept for 24 h + lateness).
         */
        public Builder lateness(Duration lateness) {
            Objects.requireNonNull(lateness, "lateness");
            if (lateness.isNegative() || lateness.compareTo(Duration.ofHours(24)) > 0) {
                throw new IllegalArgumentException("lateness must be between 0 and 24 hours, got " + lateness);
            }
            this.lateness = lateness;
            return this;
        }

        public VelocityLedger build() {
            return new VelocityLedger(lateness);
        }
    }
}
