package dev.custody.velocity.jdbc;

import dev.custody.engine.schema.Uuids;
import dev.custody.engine.velocity.Settlement;
import dev.custody.engine.velocity.Velocity;
import dev.custody.engine.velocity.VelocityLedger;
import dev.custody.velocity.jdbc.JdbcVelocityLedger.Attempted;
import dev.custody.velocity.jdbc.JdbcVelocityLedger.Figures;
import dev.custody.velocity.jdbc.JdbcVelocityLedger.Operation;
import dev.custody.velocity.jdbc.JdbcVelocityLedger.Outcome;
import dev.custody.velocity.jdbc.JdbcVelocityLedger.Query;
import dev.custody.velocity.jdbc.JdbcVelocityLedger.RecordAttempt;
import dev.custody.velocity.jdbc.JdbcVelocityLedger.RecordSettlement;
import dev.custody.velocity.jdbc.JdbcVelocityLedger.Settled;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One connection of the ledger and the SQL it runs: {@link #run} applies a list of operations in one transaction,
 * exactly as {@link VelocityLedger} applies the same calls in the same order (docs/design.md §18).
 *
 * <h2>Running sums</h2>
 * Each key (a wallet; a workspace; a workspace on a network) has its entries in {@code velocity_outflow} and
 * {@code velocity_attempt}, ordered by {@code (at, seq)} ({@code seq} is the ledger's global recording order). An
 * outflow row carries {@code cum}, the key's running sum of micro-dollars through the row; an attempt row carries
 * {@code ord}, its position in the key. The sum over the window {@code (t - W, t]} is then the {@code cum} of the
 * key's last row at or before {@code t} minus the {@code cum - micros} of its first row after {@code t - W}: two
 * index seeks, whatever the number of rows in the window (and the difference is zero when no row lies in it, since
 * the first row after {@code t - W} then directly follows the last row at or before {@code t}). Deleting expired rows
 * from the front of a key changes no other row, so the differences stay exact. A row recorded late (before rows
 * already there) shifts the {@code cum} or {@code ord} of the key's later rows: it costs their number, as a late
 * record costs the in-memory ledger the entries after it.
 *
 * <p>Running sums are kept below {@link #LIMIT} (2<sup>62</sup> micro-dollars, 4.6 trillion USD): past it the key
 * is rebased (every row's {@code cum} lowered by the sum before its first row, which changes no difference), and a
 * key whose retained rows alone would pass it refuses the settlement, where the in-memory ledger sums in 128 bits.
 *
 * <h2>A transaction in a few round trips</h2>
 * A transaction does not go to the database once per operation. Under the lock it reads, in one query each, the
 * ids of the batch that are already recorded and, for every operation's keys and instant, the facts the figures and
 * the placement of new rows need (the seeks above, as of the state before the batch). It then applies the operations
 * in order in memory: each one's figures are the database's part plus the rows the batch added before it in the same
 * windows, each new row's running sum is the database's part plus the batch's rows before it. The writes go out in
 * the order they were made, consecutive inserts as JDBC batches; a shift of later rows (a late record) or a rebase
 * first sends what is pending, so every statement meets the rows it would meet one operation at a time. The
 * differential tests run the same streams one operation a transaction and hundreds a transaction, against the
 * in-memory ledger.
 *
 * <p>Not thread-safe: one thread (the ledger's committer) uses it.
 */
final class LedgerConnection implements AutoCloseable {
    static final long LIMIT = 1L << 62;
    private static final long HOUR = Duration.ofHours(1).toNanos();
    private static final long[] OUTFLOW_WINDOWS = {HOUR, 6 * HOUR, 24 * HOUR};
    /** Expired rows are deleted when the watermark has moved this far since the last time. */
    private static final long EXPIRY_STEP = Duration.ofMinutes(1).toNanos();
    /** The most rows of one table one transaction deletes as expired. */
    static final int EXPIRY_ROWS = 2048;
    /** The most rows of one facts query, and of one id lookup. */
    private static final int CHUNK = 512;

    private final Connection c;
    private final Dialect dialect;
    private final long lateness;
    private final Map<Integer, PreparedStatement> factsQueries = new HashMap<>();
    private final Map<Integer, PreparedStatement> attemptIdQueries = new HashMap<>();
    private final Map<Integer, PreparedStatement> settlementIdQueries = new HashMap<>();
    private final PreparedStatement readMeta;
    private final PreparedStatement writeMeta;
    private final PreparedStatement insertAttemptId;
    private final PreparedStatement insertAttempt;
    private final PreparedStatement shiftAttempts;
    private final PreparedStatement insertSettlementId;
    private final PreparedStatement insertOutflow;
    private final PreparedStatement shiftOutflow;
    private final PreparedStatement rebaseOutflow;
    private final PreparedStatement lastCum;
    private final PreparedStatement firstBase;
    private final PreparedStatement[] expire;
    private long lastExpiry = Long.MIN_VALUE;
    /** Whether the last expiry stopped at its row limit: the next transaction goes on with it. */
    private boolean expiryBacklog;

    // the ledger's state, read at the start of each transaction under its lock
    private long watermark;
    private long nextSeq;
    private long dropped;

    LedgerConnection(Connection c, Dialect dialect, Duration lateness, boolean powerLossSafe) throws SQLException {
        this.c = c;
        this.dialect = dialect;
        this.lateness = lateness.toNanos();
        c.setAutoCommit(true); // SQLite changes its journal mode outside a transaction only
        dialect.configure(c, powerLossSafe);
        Schema.migrate(c, dialect, this.lateness); // leaves the connection in manual-commit mode
        readMeta = c.prepareStatement("SELECT name, value FROM velocity_meta");
        writeMeta = c.prepareStatement("UPDATE velocity_meta SET value = ? WHERE name = ?");
        insertAttemptId = c.prepareStatement("INSERT INTO velocity_attempt_id (id, at, workspace_id, wallet_id, "
                + "network_code, figures, refusal) VALUES (?, ?, ?, ?, ?, ?, ?)");
        insertAttempt = c.prepareStatement("INSERT INTO velocity_attempt (k, at, seq, ord) VALUES (?, ?, ?, ?)");
        shiftAttempts = c.prepareStatement("UPDATE velocity_attempt SET ord = ord + 1 WHERE k = ? AND at > ?");
        insertSettlementId = c.prepareStatement("INSERT INTO velocity_settlement_id (id, at, content) VALUES (?, ?, ?)");
        insertOutflow = c.prepareStatement("INSERT INTO velocity_outflow (k, at, seq, micros, cum) VALUES (?, ?, ?, ?, ?)");
        shiftOutflow = c.prepareStatement("UPDATE velocity_outflow SET cum = cum + ? WHERE k = ? AND at > ?");
        rebaseOutflow = c.prepareStatement("UPDATE velocity_outflow SET cum = cum - ? WHERE k = ?");
        lastCum = c.prepareStatement("SELECT cum FROM velocity_outflow WHERE k = ? ORDER BY at DESC, seq DESC LIMIT 1");
        firstBase = c.prepareStatement("SELECT cum - micros FROM velocity_outflow WHERE k = ? ORDER BY at, seq LIMIT 1");
        // at most EXPIRY_ROWS rows of a table a transaction, oldest first: a backlog (a ledger that was idle for a day)
        // is worked off over the next transactions instead of stalling one
        expire = new PreparedStatement[] {
            c.prepareStatement(dialect.expireSql("velocity_outflow", "k, at, seq", EXPIRY_ROWS)),
            c.prepareStatement(dialect.expireSql("velocity_attempt", "k, at, seq", EXPIRY_ROWS)),
            c.prepareStatement(dialect.expireSql("velocity_attempt_id", "id", EXPIRY_ROWS)),
            c.prepareStatement(dialect.expireSql("velocity_settlement_id", "id", EXPIRY_ROWS)),
        };
    }

    Dialect dialect() {
        return dialect;
    }

    /** A round trip that proves the connection works. */
    void ping() throws SQLException {
        try (ResultSet r = readMeta.executeQuery()) {
            while (r.next()) {
                // read to the end
            }
        }
        c.rollback();
    }

    /** The state as of the last committed transaction: watermark, dropped records. */
    long[] state() throws SQLException {
        readState();
        c.rollback();
        return new long[] {watermark, dropped};
    }

    /** Rows held in the entry tables (outflow and attempt rows), for measurements and tests. */
    long retainedEntries() throws SQLException {
        long n = 0;
        for (String table : List.of("velocity_outflow", "velocity_attempt")) {
            try (PreparedStatement p = c.prepareStatement("SELECT COUNT(*) FROM " + table);
                    ResultSet r = p.executeQuery()) {
                r.next();
                n += r.getLong(1);
            }
        }
        c.rollback();
        return n;
    }

    /** Rolls back what the current transaction did, ignoring a failure to (the connection is closed next). */
    void rollbackQuietly() {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the connection is discarded
        }
    }

    @Override
    public void close() {
        try {
            c.rollback();
            dialect.release(c);
            c.commit();
        } catch (SQLException ignored) {
            // a broken connection: the pool discards it
        }
        try {
            c.close();
        } catch (SQLException ignored) {
            // nothing to do about a connection that cannot even close
        }
    }

    // ---- one transaction ---------------------------------------------------------------------------------------

    /** What the database held for one key before the batch, as seen from one instant {@code t}. */
    private record Facts(Long outflowUpper, Long outflowAfter, Long[] outflowLower, Long attemptUpper,
            Long attemptAfter, Long attemptLower) {}

    /** A row the batch added to a key: its instant and value (micro-dollars; 0 for attempts). */
    private record Row(long at, long micros) {}

    /** What the batch did to one key so far. */
    private static final class KeyState {
        final List<Row> outflow = new ArrayList<>();
        final List<Row> attempts = new ArrayList<>();
        /** What rebases lowered the key's running sums by (zero or negative). */
        long offset;
    }

    /** A write, in the order the operations made it. */
    private record Write(PreparedStatement statement, Object[] params) {}

    /**
     * Applies the operations in order in one transaction and commits it. On an exception the transaction is rolled
     * back (nothing of it is recorded) and this connection must be closed.
     */
    List<Outcome> run(List<Operation> ops) throws SQLException {
        dialect.lock(c);
        readState();
        long startWatermark = watermark;
        long startSeq = nextSeq;
        long startDropped = dropped;
        Batch batch = new Batch(ops);
        List<Outcome> out = new ArrayList<>(ops.size());
        for (int i = 0; i < ops.size(); i++) {
            Operation op = ops.get(i);
            if (op instanceof Query q) {
                out.add(batch.query(i, q.at()));
            } else if (op instanceof RecordAttempt a) {
                out.add(batch.attempt(i, a));
            } else {
                out.add(batch.settle(i, ((RecordSettlement) op).settlement()));
            }
        }
        batch.flush();
        boolean changed = false;
        if (watermark != startWatermark) {
            changed |= meta("watermark", watermark);
        }
        if (nextSeq != startSeq) {
            changed |= meta("next_seq", nextSeq);
        }
        if (dropped != startDropped) {
            changed |= meta("dropped", dropped);
        }
        if (changed) {
            writeMeta.executeBatch();
        }
        if (watermark != Long.MIN_VALUE
                && (expiryBacklog || lastExpiry == Long.MIN_VALUE || watermark - lastExpiry >= EXPIRY_STEP)) {
            expiryBacklog = expire();
            lastExpiry = watermark;
        }
        c.commit();
        return out;
    }

    /** The work of one transaction: what was read before it, what it added, what it will write. */
    private final class Batch {
        private final List<Operation> ops;
        /** Per operation: its keys (null when it has none to read) and its instant. */
        private final String[][] keys;
        private final long[] instants;
        /** Per operation and key: the database's facts. */
        private final Facts[][] facts;
        private final Map<String, KeyState> state = new HashMap<>();
        /** Attempt ids recorded before the batch: id → the row's columns. */
        private final Map<String, Object[]> storedAttempts;
        /** Settlement ids recorded before the batch: id → the content recorded. */
        private final Map<String, String> storedSettlements;
        /** Ids the batch recorded: attempt id → the row's columns; settlement ids. */
        private final Map<String, Object[]> newAttempts = new HashMap<>();
        private final Map<String, String> newSettlements = new HashMap<>();
        private final List<Write> writes = new ArrayList<>();

        Batch(List<Operation> ops) throws SQLException {
            this.ops = ops;
            int n = ops.size();
            keys = new String[n][];
            instants = new long[n];
            facts = new Facts[n][];
            List<String> attemptIds = new ArrayList<>();
            List<String> settlementIds = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Operation op = ops.get(i);
                Instant at;
                if (op instanceof Query q) {
                    keys[i] = keys(q.workspaceId(), q.walletId(), q.networkCode());
                    at = q.at();
                } else if (op instanceof RecordAttempt a) {
                    keys[i] = keys(a.workspaceId(), a.walletId(), a.networkCode());
                    at = a.at();
                    if (a.actionId() != null) {
                        attemptIds.add(a.actionId());
                    }
                } else {
                    Settlement s = ((RecordSettlement) op).settlement();
                    keys[i] = keys(s.workspaceId(), s.walletId(), s.networkCode());
                    at = s.at();
                    if (s.id() != null) {
                        settlementIds.add(s.id());
                    }
                }
                try {
                    instants[i] = VelocityLedger.epochNanos(at);
                } catch (IllegalArgumentException e) {
                    keys[i] = null; // out of range: nothing to read, the operation is refused
                }
                if (op instanceof RecordAttempt a && (a.actionId() != null && LedgerText.problem(a.actionId()) != null
                        || keyProblem(keys[i]) != null)) {
                    keys[i] = null; // refused below, before any statement could fail the whole transaction
                    if (a.actionId() != null) {
                        attemptIds.remove(a.actionId());
                    }
                }
            }
            storedAttempts = storedAttempts(attemptIds);
            storedSettlements = storedSettlements(settlementIds);
            readFacts();
        }

        // ---- operations

        Figures query(int i, Instant at) {
            if (keys[i] == null) {
                return Figures.refused(rangeMessage(at));
            }
            long t = instants[i];
            if (watermark != Long.MIN_VALUE && t < watermark - lateness) {
                return Figures.refused("velocity as of `" + at + "` is unavailable: the ledger has already seen `"
                        + Instant.EPOCH.plusNanos(watermark) + "`, more than " + Duration.ofNanos(lateness)
                        .toString().substring(2).toLowerCase(Locale.ROOT) + " later");
            }
            advance(t);
            return Figures.of(figures(i));
        }

        Attempted attempt(int i, RecordAttempt a) throws SQLException {
            String bad = a.actionId() == null ? null : LedgerText.problem(a.actionId());
            if (bad == null) {
                bad = keyProblem(keys(a.workspaceId(), a.walletId(), a.networkCode()));
            }
            if (bad != null) {
                return new Attempted(false, null, bad, false); // not recordable as given: the action is denied
            }
            if (a.actionId() != null) {
                Object[] row = newAttempts.containsKey(a.actionId()) ? newAttempts.get(a.actionId())
                        : storedAttempts.get(a.actionId());
                if (row != null) {
                    return retry(a, row);
                }
            }
            if (keys[i] == null) {
                // as the in-memory ledger: neither a figure nor an attempt for an instant out of range
                return new Attempted(false, Figures.refused(rangeMessage(a.at())), null, false);
            }
            long t = instants[i];
            Figures before = query(i, a.at()); // the figures before the attempt: an action never counts itself
            advance(t);
            boolean recorded = t > watermark - lateness - HOUR;
            if (recorded) {
                long seq = nextSeq++;
                for (int k = 0; k < keys[i].length; k++) {
                    String key = keys[i][k];
                    KeyState ks = state(key);
                    Facts f = facts[i][k];
                    long base = f.attemptUpper() != null ? f.attemptUpper()
                            : f.attemptAfter() != null ? f.attemptAfter() : 0;
                    long ord = base + countAtOrBefore(ks.attempts, t) + 1;
                    if (after(f.attemptAfter() != null, ks.attempts, t)) {
                        update(shiftAttempts, key, t);
                    }
                    write(insertAttempt, key, t, seq, ord);
                    ks.attempts.add(new Row(t, 0));
                }
            } else {
                dropped++;
            }
            if (a.actionId() != null) {
                Object[] row = {Uuids.lowerCase(a.workspaceId()), Uuids.lowerCase(a.walletId()), a.networkCode(), t,
                    before.refused() ? null : FiguresText.write(before.velocity()), before.refusal()};
                newAttempts.put(a.actionId(), row);
                write(insertAttemptId, a.actionId(), t, row[0], row[1], row[2], row[4], row[5]);
            }
            return new Attempted(false, before, null, recorded);
        }

        Settled settle(int i, Settlement s) throws SQLException {
            String content = content(s);
            if (s.id() != null) {
                String recorded = newSettlements.containsKey(s.id()) ? newSettlements.get(s.id())
                        : storedSettlements.get(s.id());
                if (recorded != null) {
                    // the same record again is a duplicate; other content under the id is refused, never ignored
                    // (a `failed` then `executed` under one id must not leave the outflow uncounted unseen)
                    return recorded.equals(content) ? new Settled(Settled.Status.DUPLICATE, null)
                            : new Settled(Settled.Status.CONFLICT, "settlement id `" + s.id() + "` was already "
                                    + "recorded with other content (" + recorded + "); an id names one settlement");
                }
            }
            long t = instants[i]; // the instant and the value were checked before the transaction
            long micros = VelocityLedger.microDollars(s.valueUsd());
            advance(t);
            Settled.Status status = Settled.Status.RECORDED;
            if (s.status().realized()) {
                if (t <= watermark - lateness - 24 * HOUR) {
                    dropped++;
                    status = Settled.Status.TOO_OLD;
                } else {
                    String refusal = insertOutflow(i, t, micros);
                    if (refusal != null) {
                        return new Settled(Settled.Status.REFUSED, refusal);
                    }
                }
            }
            if (s.id() != null) {
                newSettlements.put(s.id(), content);
                write(insertSettlementId, s.id(), t, content);
            }
            return new Settled(status, null);
        }

        /** Adds one realized entry to each key; or adds nothing and says why when a running sum would overflow. */
        private String insertOutflow(int i, long t, long micros) throws SQLException {
            String[] ks = keys[i];
            long[] maxAfter = new long[ks.length];
            long[] rebase = new long[ks.length];
            for (int k = 0; k < ks.length; k++) {
                Facts f = facts[i][k];
                KeyState st = state(ks[k]);
                // the key's largest running sum now: its last row's
                long max;
                if (f.outflowAfter() == null) {
                    // the database had no row after t: its last row was the last at or before t
                    max = (f.outflowUpper() == null ? 0 : f.outflowUpper()) + st.offset + sum(st.outflow);
                } else {
                    flush();
                    max = current(lastCum, ks[k]);
                }
                if (micros > LIMIT - max) {
                    flush();
                    rebase[k] = current(firstBase, ks[k]);
                    if (micros > LIMIT - (max - rebase[k])) {
                        return "the realized outflow retained for `" + ks[k].substring(2) + "` would pass 2^62 "
                                + "micro-dollars, the most the ledger sums";
                    }
                } else {
                    rebase[k] = 0;
                }
                maxAfter[k] = max;
            }
            long seq = nextSeq++;
            for (int k = 0; k < ks.length; k++) {
                String key = ks[k];
                KeyState st = state(key);
                Facts f = facts[i][k];
                if (rebase[k] > 0) {
                    flush();
                    rebaseOutflow.setLong(1, rebase[k]);
                    rebaseOutflow.setString(2, key);
                    rebaseOutflow.executeUpdate();
                    st.offset -= rebase[k];
                }
                long base = (f.outflowUpper() != null ? f.outflowUpper()
                        : f.outflowAfter() != null ? f.outflowAfter() : 0) + st.offset;
                long cum = base + sumAtOrBefore(st.outflow, t) + micros;
                if (after(f.outflowAfter() != null, st.outflow, t)) {
                    flush();
                    shiftOutflow.setLong(1, micros);
                    shiftOutflow.setString(2, key);
                    shiftOutflow.setLong(3, t);
                    shiftOutflow.executeUpdate();
                }
                write(insertOutflow, key, t, seq, micros, cum);
                st.outflow.add(new Row(t, micros));
            }
            return null;
        }

        /** The figures of operation {@code i}'s keys as of its instant: the database's, plus the batch's rows. */
        private Velocity figures(int i) {
            long t = instants[i];
            Velocity.Figures[] out = new Velocity.Figures[3];
            for (int k = 0; k < keys[i].length; k++) {
                Facts f = facts[i][k];
                KeyState st = state.get(keys[i][k]);
                BigDecimal[] sums = new BigDecimal[3];
                for (int w = 0; w < 3; w++) {
                    Long lower = f.outflowLower()[w];
                    long sum = f.outflowUpper() == null || lower == null ? 0 : f.outflowUpper() - lower;
                    if (st != null) {
                        for (Row r : st.outflow) {
                            if (r.at() > t - OUTFLOW_WINDOWS[w] && r.at() <= t) {
                                sum += r.micros();
                            }
                        }
                    }
                    sums[w] = BigDecimal.valueOf(sum, 6);
                }
                long count = f.attemptUpper() == null || f.attemptLower() == null ? 0
                        : f.attemptUpper() - f.attemptLower();
                if (st != null) {
                    for (Row r : st.attempts) {
                        if (r.at() > t - HOUR && r.at() <= t) {
                            count++;
                        }
                    }
                }
                out[k] = new Velocity.Figures(sums[0], sums[1], sums[2], count);
            }
            if (keys[i].length == 2) {
                out[2] = new Velocity.Figures(BigDecimal.valueOf(0, 6), BigDecimal.valueOf(0, 6),
                        BigDecimal.valueOf(0, 6), 0);
            }
            return new Velocity(out[0], out[1], out[2]);
        }

        private KeyState state(String key) {
            return state.computeIfAbsent(key, x -> new KeyState());
        }

        // ---- writes

        private void write(PreparedStatement p, Object... params) {
            writes.add(new Write(p, params));
        }

        /** A shift of a key's later attempts: sends what is pending first, so the shift meets every earlier row. */
        private void update(PreparedStatement p, String key, long t) throws SQLException {
            flush();
            p.setString(1, key);
            p.setLong(2, t);
            p.executeUpdate();
        }

        /**
         * Sends the pending inserts, one JDBC batch per table. Inserts carry all their values, so their order does not
         * matter; what matters is that each is sent before the next shift or rebase, which calls this first.
         */
        void flush() throws SQLException {
            Map<PreparedStatement, Boolean> batched = new java.util.LinkedHashMap<>();
            for (Write w : writes) {
                PreparedStatement p = w.statement();
                Object[] params = w.params();
                for (int k = 0; k < params.length; k++) {
                    Object v = params[k];
                    if (v == null) {
                        p.setNull(k + 1, Types.VARCHAR);
                    } else if (v instanceof Long l) {
                        p.setLong(k + 1, l);
                    } else {
                        p.setString(k + 1, (String) v);
                    }
                }
                p.addBatch();
                batched.put(p, Boolean.TRUE);
            }
            for (PreparedStatement p : batched.keySet()) {
                p.executeBatch();
            }
            writes.clear();
        }

        // ---- reads before the batch

        private Map<String, Object[]> storedAttempts(List<String> ids) throws SQLException {
            Map<String, Object[]> out = new HashMap<>();
            List<String> distinct = new ArrayList<>(new LinkedHashSet<>(ids));
            for (int from = 0; from < distinct.size(); from += CHUNK) {
                List<String> chunk = distinct.subList(from, Math.min(distinct.size(), from + CHUNK));
                PreparedStatement p = idQuery(attemptIdQueries, chunk.size(), "SELECT id, workspace_id, wallet_id, "
                        + "network_code, at, figures, refusal FROM velocity_attempt_id WHERE id IN ");
                bindIds(p, chunk);
                try (ResultSet r = p.executeQuery()) {
                    while (r.next()) {
                        out.put(r.getString(1), new Object[] {r.getString(2), r.getString(3), r.getString(4),
                            r.getLong(5), r.getString(6), r.getString(7)});
                    }
                }
            }
            return out;
        }

        private Map<String, String> storedSettlements(List<String> ids) throws SQLException {
            Map<String, String> out = new HashMap<>();
            List<String> distinct = new ArrayList<>(new LinkedHashSet<>(ids));
            for (int from = 0; from < distinct.size(); from += CHUNK) {
                List<String> chunk = distinct.subList(from, Math.min(distinct.size(), from + CHUNK));
                PreparedStatement p = idQuery(settlementIdQueries, chunk.size(),
                        "SELECT id, content FROM velocity_settlement_id WHERE id IN ");
                bindIds(p, chunk);
                try (ResultSet r = p.executeQuery()) {
                    while (r.next()) {
                        out.put(r.getString(1), r.getString(2));
                    }
                }
            }
            return out;
        }

        /** The facts of every (operation, key), in queries of up to {@link #CHUNK} rows. */
        private void readFacts() throws SQLException {
            List<int[]> rows = new ArrayList<>();
            for (int i = 0; i < keys.length; i++) {
                if (keys[i] != null) {
                    facts[i] = new Facts[keys[i].length];
                    for (int k = 0; k < keys[i].length; k++) {
                        rows.add(new int[] {i, k});
                    }
                }
            }
            for (int from = 0; from < rows.size(); from += CHUNK) {
                List<int[]> chunk = rows.subList(from, Math.min(rows.size(), from + CHUNK));
                int size = bucket(chunk.size());
                PreparedStatement p = factsQueries.get(size);
                if (p == null) {
                    p = c.prepareStatement(factsSql(size));
                    factsQueries.put(size, p);
                }
                int param = 1;
                for (int r = 0; r < size; r++) {
                    int[] row = r < chunk.size() ? chunk.get(r) : null;
                    p.setInt(param++, r);
                    p.setString(param++, row == null ? "" : keys[row[0]][row[1]]);
                    p.setLong(param++, row == null ? 0 : instants[row[0]]);
                }
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        int r = rs.getInt(1);
                        if (r >= chunk.size()) {
                            continue;
                        }
                        int[] row = chunk.get(r);
                        facts[row[0]][row[1]] = new Facts(longOrNull(rs, 2), longOrNull(rs, 3),
                                new Long[] {longOrNull(rs, 4), longOrNull(rs, 5), longOrNull(rs, 6)},
                                longOrNull(rs, 7), longOrNull(rs, 8), longOrNull(rs, 9));
                    }
                }
            }
        }

        private PreparedStatement idQuery(Map<Integer, PreparedStatement> cache, int n, String prefix)
                throws SQLException {
            int size = bucket(n);
            PreparedStatement p = cache.get(size);
            if (p == null) {
                p = c.prepareStatement(prefix + "(" + "?, ".repeat(size - 1) + "?)");
                cache.put(size, p);
            }
            return p;
        }

        private void bindIds(PreparedStatement p, List<String> ids) throws SQLException {
            int size = bucket(ids.size());
            for (int k = 0; k < size; k++) {
                p.setString(k + 1, ids.get(Math.min(k, ids.size() - 1))); // padded with the last id
            }
        }
    }

    /** What identifies a settlement's content: its keys, value, status and instant, as the ledger holds them. */
    private static String content(Settlement s) {
        return Uuids.lowerCase(s.workspaceId()) + " " + Uuids.lowerCase(s.walletId()) + " " + s.networkCode() + " "
                + VelocityLedger.microDollars(s.valueUsd()) + " " + s.status().wireName() + " " + s.at();
    }

    /**
     * A retried attempt: the first one's figures, or a conflict when the id was used for another withdrawal (another
     * workspace, wallet or network). The instant may differ: a retry comes later, and one whose instant is the
     * caller's clock (an action without {@code at}) has a new one each time; it is answered as of the first.
     */
    private static Attempted retry(RecordAttempt a, Object[] row) {
        String workspace = (String) row[0];
        String wallet = (String) row[1];
        String network = (String) row[2];
        String text = (String) row[4];
        String refusal = (String) row[5];
        boolean same = workspace.equals(Uuids.lowerCase(a.workspaceId()))
                && wallet.equals(Uuids.lowerCase(a.walletId())) && Objects.equals(network, a.networkCode());
        if (!same) {
            return new Attempted(true, null, "action id `" + a.actionId() + "` was already recorded for wallet `"
                    + wallet + "` of workspace `" + workspace + "` on `" + network + "`; an id names one withdrawal",
                    false);
        }
        return new Attempted(true, refusal != null ? Figures.refused(refusal) : Figures.of(FiguresText.read(text)),
                null, false);
    }

    /** Why one of a withdrawal's keys cannot be held (see {@link LedgerText}), or null. */
    private static String keyProblem(String[] keys) {
        if (keys == null) {
            return null;
        }
        for (String k : keys) {
            String p = LedgerText.problem(k);
            if (p != null) {
                return p;
            }
        }
        return null;
    }

    /** The facts query of {@code rows} rows {@code (i, k, t)}: per row, the seeks of {@link Facts}. */
    private static String factsSql(int rows) {
        StringBuilder b = new StringBuilder("WITH q (i, k, t) AS (VALUES ");
        for (int r = 0; r < rows; r++) {
            b.append(r == 0 ? "(?, ?, ?)" : ", (?, ?, ?)");
        }
        b.append(") SELECT q.i, ");
        b.append(last("velocity_outflow", "cum", "AND at <= q.t")).append(", ");
        b.append(first("velocity_outflow", "cum - micros", "AND at > q.t")).append(", ");
        for (long w : OUTFLOW_WINDOWS) {
            b.append(first("velocity_outflow", "cum - micros", "AND at > q.t - " + w)).append(", ");
        }
        b.append(last("velocity_attempt", "ord", "AND at <= q.t")).append(", ");
        b.append(first("velocity_attempt", "ord - 1", "AND at > q.t")).append(", ");
        b.append(first("velocity_attempt", "ord - 1", "AND at > q.t - " + HOUR));
        // the padding rows of a smaller batch have the empty key: filtered out before their seeks run
        return b.append(" FROM q WHERE q.k <> ''").toString();
    }

    /** A column of a key's last row (in {@code (at, seq)} order) meeting a condition. */
    private static String last(String table, String column, String condition) {
        return "(SELECT " + column + " FROM " + table + " x WHERE x.k = q.k " + condition
                + " ORDER BY x.at DESC, x.seq DESC LIMIT 1)";
    }

    /** A column of a key's first row meeting a condition. */
    private static String first(String table, String column, String condition) {
        return "(SELECT " + column + " FROM " + table + " x WHERE x.k = q.k " + condition
                + " ORDER BY x.at, x.seq LIMIT 1)";
    }

    /** The prepared size for {@code n} rows: the next power of two, so a few statements serve every size. */
    private static int bucket(int n) {
        return n <= 1 ? 1 : Integer.highestOneBit(n - 1) << 1;
    }

    /** A key's value as the database holds it now (pending writes sent): the last row's sum, or the first's base. */
    private static long current(PreparedStatement p, String key) throws SQLException {
        p.setString(1, key);
        try (ResultSet r = p.executeQuery()) {
            return r.next() ? r.getLong(1) : 0;
        }
    }

    private static long countAtOrBefore(List<Row> rows, long t) {
        long n = 0;
        for (Row r : rows) {
            if (r.at() <= t) {
                n++;
            }
        }
        return n;
    }

    private static long sumAtOrBefore(List<Row> rows, long t) {
        long n = 0;
        for (Row r : rows) {
            if (r.at() <= t) {
                n += r.micros();
            }
        }
        return n;
    }

    private static long sum(List<Row> rows) {
        long n = 0;
        for (Row r : rows) {
            n += r.micros();
        }
        return n;
    }

    /** Whether the key has a row after {@code t}: in the database before the batch, or added by it. */
    private static boolean after(boolean inDatabase, List<Row> rows, long t) {
        if (inDatabase) {
            return true;
        }
        for (Row r : rows) {
            if (r.at() > t) {
                return true;
            }
        }
        return false;
    }

    private static String rangeMessage(Instant at) {
        try {
            VelocityLedger.epochNanos(at);
            return "instant `" + at + "` is out of range";
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    private static Long longOrNull(ResultSet r, int col) throws SQLException {
        long v = r.getLong(col);
        return r.wasNull() ? null : v;
    }

    private void readState() throws SQLException {
        try (ResultSet r = readMeta.executeQuery()) {
            while (r.next()) {
                switch (r.getString(1)) {
                    case "watermark" -> watermark = r.getLong(2);
                    case "next_seq" -> nextSeq = r.getLong(2);
                    case "dropped" -> dropped = r.getLong(2);
                    default -> { }
                }
            }
        }
    }

    private boolean meta(String name, long value) throws SQLException {
        writeMeta.setLong(1, value);
        writeMeta.setString(2, name);
        writeMeta.addBatch();
        return true;
    }

    /** Deletes expired rows, at most {@link #EXPIRY_ROWS} a table; whether a table had more. */
    private boolean expire() throws SQLException {
        long earliestQuery = watermark - lateness;
        long[] bounds = {earliestQuery - 24 * HOUR, earliestQuery - HOUR, earliestQuery - 24 * HOUR,
            earliestQuery - 24 * HOUR};
        boolean more = false;
        for (int i = 0; i < expire.length; i++) {
            expire[i].setLong(1, bounds[i]);
            more |= expire[i].executeUpdate() >= EXPIRY_ROWS;
        }
        return more;
    }


    private void advance(long t) {
        if (t > watermark) {
            watermark = t;
        }
    }

    /**
     * The keys of a withdrawal: its wallet (unique across workspaces), its workspace, and the workspace on its
     * network when it has one. Wallet and workspace ids are matched without regard to case (UUIDs), networks exactly;
     * the workspace's length prefixes the network key, so no id can run into a network code.
     */
    static String[] keys(String workspaceId, String walletId, String networkCode) {
        String ws = Uuids.lowerCase(workspaceId);
        String wallet = "w:" + Uuids.lowerCase(walletId);
        String workspace = "s:" + ws;
        if (networkCode == null) {
            return new String[] {wallet, workspace};
        }
        return new String[] {wallet, workspace, "n:" + ws.length() + ":" + ws + networkCode};
    }
}
