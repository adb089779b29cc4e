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
import java.util.List;
import java.util.Locale;

/**
 * One connection of the ledger and the SQL it runs: {@link #run} applies a list of operations in one transaction,
 * exactly as {@link VelocityLedger} applies the same calls in the same order (docs/design.md §9.3).
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
 * <p>Not thread-safe: one thread (the ledger's committer) uses it.
 */
final class LedgerConnection implements AutoCloseable {
    static final long LIMIT = 1L << 62;
    private static final long HOUR = Duration.ofHours(1).toNanos();
    private static final long[] OUTFLOW_WINDOWS = {HOUR, 6 * HOUR, 24 * HOUR};
    /** Expired rows are deleted when the watermark has moved this far since the last time. */
    private static final long EXPIRY_STEP = Duration.ofMinutes(1).toNanos();

    private final Connection c;
    private final Dialect dialect;
    private final long lateness;
    private final PreparedStatement[] figures = new PreparedStatement[4];
    private final PreparedStatement[] placement = new PreparedStatement[4];
    private final PreparedStatement readMeta;
    private final PreparedStatement writeMeta;
    private final PreparedStatement findAttempt;
    private final PreparedStatement insertAttemptId;
    private final PreparedStatement insertAttempt;
    private final PreparedStatement firstAttemptAfter;
    private final PreparedStatement shiftAttempts;
    private final PreparedStatement findSettlement;
    private final PreparedStatement insertSettlementId;
    private final PreparedStatement insertOutflow;
    private final PreparedStatement shiftOutflow;
    private final PreparedStatement rebaseOutflow;
    private final PreparedStatement[] expire;
    private long lastExpiry = Long.MIN_VALUE;

    // the ledger's state, read at the start of each transaction under its lock
    private long watermark;
    private long nextSeq;
    private long dropped;

    LedgerConnection(Connection c, Dialect dialect, Duration lateness) throws SQLException {
        this.c = c;
        this.dialect = dialect;
        this.lateness = lateness.toNanos();
        c.setAutoCommit(true); // SQLite changes its journal mode outside a transaction only
        dialect.configure(c);
        Schema.migrate(c, dialect); // leaves the connection in manual-commit mode
        readMeta = c.prepareStatement("SELECT name, value FROM velocity_meta");
        writeMeta = c.prepareStatement("UPDATE velocity_meta SET value = ? WHERE name = ?");
        findAttempt = c.prepareStatement("SELECT workspace_id, wallet_id, network_code, at, figures, refusal "
                + "FROM velocity_attempt_id WHERE id = ?");
        insertAttemptId = c.prepareStatement("INSERT INTO velocity_attempt_id (id, at, workspace_id, wallet_id, "
                + "network_code, figures, refusal) VALUES (?, ?, ?, ?, ?, ?, ?)");
        insertAttempt = c.prepareStatement("INSERT INTO velocity_attempt (k, at, seq, ord) VALUES (?, ?, ?, ?)");
        firstAttemptAfter = c.prepareStatement("SELECT ord FROM velocity_attempt WHERE k = ? AND at > ? "
                + "ORDER BY at, seq LIMIT 1");
        shiftAttempts = c.prepareStatement("UPDATE velocity_attempt SET ord = ord + 1 WHERE k = ? AND at > ?");
        findSettlement = c.prepareStatement("SELECT at FROM velocity_settlement_id WHERE id = ?");
        insertSettlementId = c.prepareStatement("INSERT INTO velocity_settlement_id (id, at) VALUES (?, ?)");
        insertOutflow = c.prepareStatement("INSERT INTO velocity_outflow (k, at, seq, micros, cum) VALUES (?, ?, ?, ?, ?)");
        shiftOutflow = c.prepareStatement("UPDATE velocity_outflow SET cum = cum + ? WHERE k = ? AND at > ?");
        rebaseOutflow = c.prepareStatement("UPDATE velocity_outflow SET cum = cum - ? WHERE k = ?");
        expire = new PreparedStatement[] {
            c.prepareStatement("DELETE FROM velocity_outflow WHERE at <= ?"),
            c.prepareStatement("DELETE FROM velocity_attempt WHERE at <= ?"),
            c.prepareStatement("DELETE FROM velocity_attempt_id WHERE at <= ?"),
            c.prepareStatement("DELETE FROM velocity_settlement_id WHERE at <= ?"),
        };
        for (int keys = 2; keys <= 3; keys++) {
            figures[keys] = c.prepareStatement(figuresSql(keys));
            placement[keys] = c.prepareStatement(placementSql(keys));
        }
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
        List<Outcome> out = new ArrayList<>(ops.size());
        for (Operation op : ops) {
            if (op instanceof Query q) {
                out.add(query(q.workspaceId(), q.walletId(), q.networkCode(), q.at()));
            } else if (op instanceof RecordAttempt a) {
                out.add(attempt(a));
            } else {
                out.add(settle(((RecordSettlement) op).settlement()));
            }
        }
        if (watermark != startWatermark) {
            meta("watermark", watermark);
        }
        if (nextSeq != startSeq) {
            meta("next_seq", nextSeq);
        }
        if (dropped != startDropped) {
            meta("dropped", dropped);
        }
        if (watermark != Long.MIN_VALUE && (lastExpiry == Long.MIN_VALUE || watermark - lastExpiry >= EXPIRY_STEP)) {
            expire();
            lastExpiry = watermark;
        }
        c.commit();
        return out;
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
            c.close();
        } catch (SQLException ignored) {
            // nothing to do about a connection that cannot even close
        }
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

    private void meta(String name, long value) throws SQLException {
        writeMeta.setLong(1, value);
        writeMeta.setString(2, name);
        writeMeta.executeUpdate();
    }

    private void expire() throws SQLException {
        long earliestQuery = watermark - lateness;
        long[] bounds = {earliestQuery - 24 * HOUR, earliestQuery - HOUR, earliestQuery - 24 * HOUR,
            earliestQuery - 24 * HOUR};
        for (int i = 0; i < expire.length; i++) {
            expire[i].setLong(1, bounds[i]);
            expire[i].executeUpdate();
        }
    }

    // ---- queries -------------------------------------------------------------------------------------------------

    /** The figures as of {@code at}, or the refusal {@link VelocityLedger#velocity} would throw. */
    private Figures query(String workspaceId, String walletId, String networkCode, Instant at) throws SQLException {
        long t;
        try {
            t = VelocityLedger.epochNanos(at);
        } catch (IllegalArgumentException e) {
            return Figures.refused(e.getMessage());
        }
        if (watermark != Long.MIN_VALUE && t < watermark - lateness) {
            return Figures.refused("velocity as of `" + at + "` is unavailable: the ledger has already seen `"
                    + Instant.EPOCH.plusNanos(watermark) + "`, more than " + Duration.ofNanos(lateness)
                    .toString().substring(2).toLowerCase(Locale.ROOT) + " later");
        }
        advance(t);
        return Figures.of(figures(keys(workspaceId, walletId, networkCode), t).velocity);
    }

    /** What one figures query read: the velocity, and per key the attempt placement facts. */
    private record Read(Velocity velocity, Long[] attemptUpper, Long[] attemptLast) {}

    private Read figures(String[] keys, long t) throws SQLException {
        PreparedStatement p = figures[keys.length];
        int i = 1;
        for (String k : keys) {
            i = bind(p, i, k, t);
            for (long w : OUTFLOW_WINDOWS) {
                i = bind(p, i, k, t - w);
            }
            i = bind(p, i, k, t);
            i = bind(p, i, k, t - HOUR);
            p.setString(i++, k);
        }
        Velocity.Figures[] f = new Velocity.Figures[3];
        Long[] upper = new Long[keys.length];
        Long[] last = new Long[keys.length];
        try (ResultSet r = p.executeQuery()) {
            r.next();
            int col = 1;
            for (int k = 0; k < keys.length; k++) {
                Long u = nullableLong(r, col++);
                BigDecimal[] sums = new BigDecimal[3];
                for (int w = 0; w < 3; w++) {
                    Long l = nullableLong(r, col++);
                    sums[w] = BigDecimal.valueOf(u == null || l == null ? 0 : u - l, 6);
                }
                Long au = nullableLong(r, col++);
                Long al = nullableLong(r, col++);
                upper[k] = au;
                last[k] = nullableLong(r, col++);
                f[k] = new Velocity.Figures(sums[0], sums[1], sums[2], au == null || al == null ? 0 : au - al);
            }
        }
        Velocity.Figures zero = new Velocity.Figures(BigDecimal.valueOf(0, 6), BigDecimal.valueOf(0, 6),
                BigDecimal.valueOf(0, 6), 0);
        return new Read(new Velocity(f[0], f[1], keys.length == 3 ? f[2] : zero), upper, last);
    }

    /** The figures query of 2 or 3 keys: per key 4 outflow seeks, 2 attempt seeks, the key's last attempt. */
    private static String figuresSql(int keys) {
        StringBuilder b = new StringBuilder("SELECT ");
        for (int k = 0; k < keys; k++) {
            if (k > 0) {
                b.append(", ");
            }
            b.append(upper("velocity_outflow", "cum")).append(", ");
            for (int w = 0; w < 3; w++) {
                b.append(lower("velocity_outflow", "cum - micros")).append(", ");
            }
            b.append(upper("velocity_attempt", "ord")).append(", ");
            b.append(lower("velocity_attempt", "ord - 1")).append(", ");
            b.append("(SELECT at FROM velocity_attempt WHERE k = ? ORDER BY at DESC, seq DESC LIMIT 1)");
        }
        return b.toString();
    }

    /** The settlement placement query of 2 or 3 keys: per key the facts {@link #settle} needs. */
    private static String placementSql(int keys) {
        StringBuilder b = new StringBuilder("SELECT ");
        for (int k = 0; k < keys; k++) {
            if (k > 0) {
                b.append(", ");
            }
            b.append(upper("velocity_outflow", "cum")).append(", ");
            b.append(lower("velocity_outflow", "cum - micros")).append(", ");
            b.append("(SELECT cum FROM velocity_outflow WHERE k = ? ORDER BY at DESC, seq DESC LIMIT 1), ");
            b.append("(SELECT at FROM velocity_outflow WHERE k = ? ORDER BY at DESC, seq DESC LIMIT 1), ");
            b.append("(SELECT cum - micros FROM velocity_outflow WHERE k = ? ORDER BY at, seq LIMIT 1)");
        }
        return b.toString();
    }

    /** The column of a key's last row at or before an instant. */
    private static String upper(String table, String column) {
        return "(SELECT " + column + " FROM " + table + " WHERE k = ? AND at <= ? ORDER BY at DESC, seq DESC LIMIT 1)";
    }

    /** The column of a key's first row after an instant. */
    private static String lower(String table, String column) {
        return "(SELECT " + column + " FROM " + table + " WHERE k = ? AND at > ? ORDER BY at, seq LIMIT 1)";
    }

    private static int bind(PreparedStatement p, int i, String k, long t) throws SQLException {
        p.setString(i, k);
        p.setLong(i + 1, t);
        return i + 2;
    }

    private static Long nullableLong(ResultSet r, int col) throws SQLException {
        long v = r.getLong(col);
        return r.wasNull() ? null : v;
    }

    // ---- attempts ------------------------------------------------------------------------------------------------

    private Attempted attempt(RecordAttempt a) throws SQLException {
        if (a.actionId() != null) {
            findAttempt.setString(1, a.actionId());
            try (ResultSet r = findAttempt.executeQuery()) {
                if (r.next()) {
                    return retry(a, r);
                }
            }
        }
        long t;
        try {
            t = VelocityLedger.epochNanos(a.at());
        } catch (IllegalArgumentException e) {
            // as the in-memory ledger: neither a figure nor an attempt for an instant out of range
            return new Attempted(false, Figures.refused(e.getMessage()), null, false);
        }
        String[] keys = keys(a.workspaceId(), a.walletId(), a.networkCode());
        // the figures before the attempt (an action never counts itself), then the attempt
        Figures before;
        Read read = null;
        if (watermark != Long.MIN_VALUE && t < watermark - lateness) {
            before = query(a.workspaceId(), a.walletId(), a.networkCode(), a.at()); // the refusal, as the ledger words it
        } else {
            advance(t);
            read = figures(keys, t);
            before = Figures.of(read.velocity);
        }
        advance(t);
        boolean recorded = t > watermark - lateness - HOUR;
        if (recorded) {
            long seq = nextSeq++;
            for (int k = 0; k < keys.length; k++) {
                Long upper = read == null ? null : read.attemptUpper[k];
                Long last = read == null ? null : read.attemptLast[k];
                if (read == null) {
                    // a late attempt whose figures were refused: its placement facts were not read
                    Read late = figures(keys, t);
                    upper = late.attemptUpper[k];
                    last = late.attemptLast[k];
                }
                long ord;
                if (last == null || last <= t) {
                    ord = (upper == null ? 0 : upper) + 1;
                } else {
                    ord = upper != null ? upper + 1 : firstAttemptOrdAfter(keys[k], t);
                    shiftAttempts.setString(1, keys[k]);
                    shiftAttempts.setLong(2, t);
                    shiftAttempts.executeUpdate();
                }
                insertAttempt.setString(1, keys[k]);
                insertAttempt.setLong(2, t);
                insertAttempt.setLong(3, seq);
                insertAttempt.setLong(4, ord);
                insertAttempt.executeUpdate();
            }
        } else {
            dropped++;
        }
        if (a.actionId() != null) {
            insertAttemptId.setString(1, a.actionId());
            insertAttemptId.setLong(2, t);
            insertAttemptId.setString(3, Uuids.lowerCase(a.workspaceId()));
            insertAttemptId.setString(4, Uuids.lowerCase(a.walletId()));
            if (a.networkCode() == null) {
                insertAttemptId.setNull(5, Types.VARCHAR);
            } else {
                insertAttemptId.setString(5, a.networkCode());
            }
            if (before.refused()) {
                insertAttemptId.setNull(6, Types.VARCHAR);
                insertAttemptId.setString(7, before.refusal());
            } else {
                insertAttemptId.setString(6, FiguresText.write(before.velocity()));
                insertAttemptId.setNull(7, Types.VARCHAR);
            }
            insertAttemptId.executeUpdate();
        }
        return new Attempted(false, before, null, recorded);
    }

    private long firstAttemptOrdAfter(String key, long t) throws SQLException {
        firstAttemptAfter.setString(1, key);
        firstAttemptAfter.setLong(2, t);
        try (ResultSet r = firstAttemptAfter.executeQuery()) {
            r.next();
            return r.getLong(1);
        }
    }

    /** A retried attempt: the first one's figures, or a conflict when the id was used for another withdrawal. */
    private static Attempted retry(RecordAttempt a, ResultSet r) throws SQLException {
        String workspace = r.getString(1);
        String wallet = r.getString(2);
        String network = r.getString(3);
        long at = r.getLong(4);
        String text = r.getString(5);
        String refusal = r.getString(6);
        boolean same = workspace.equals(Uuids.lowerCase(a.workspaceId()))
                && wallet.equals(Uuids.lowerCase(a.walletId()))
                && java.util.Objects.equals(network, a.networkCode())
                && at == VelocityLedger.epochNanos(a.at());
        if (!same) {
            return new Attempted(true, null, "action id `" + a.actionId() + "` was already recorded for wallet `"
                    + wallet + "` on `" + network + "` at `" + Instant.EPOCH.plusNanos(at) + "`; an id names one "
                    + "withdrawal", false);
        }
        return new Attempted(true, refusal != null ? Figures.refused(refusal) : Figures.of(FiguresText.read(text)),
                null, false);
    }

    // ---- settlements ---------------------------------------------------------------------------------------------

    private Settled settle(Settlement s) throws SQLException {
        if (s.id() != null) {
            findSettlement.setString(1, s.id());
            try (ResultSet r = findSettlement.executeQuery()) {
                if (r.next()) {
                    return new Settled(Settled.Status.DUPLICATE, null);
                }
            }
        }
        long t = VelocityLedger.epochNanos(s.at()); // checked before the transaction
        long micros = VelocityLedger.microDollars(s.valueUsd());
        advance(t);
        Settled.Status status = Settled.Status.RECORDED;
        if (s.status().realized()) {
            if (t <= watermark - lateness - 24 * HOUR) {
                dropped++;
                status = Settled.Status.TOO_OLD;
            } else {
                String refusal = insertOutflow(keys(s.workspaceId(), s.walletId(), s.networkCode()), t, micros);
                if (refusal != null) {
                    return new Settled(Settled.Status.REFUSED, refusal);
                }
            }
        }
        if (s.id() != null) {
            insertSettlementId.setString(1, s.id());
            insertSettlementId.setLong(2, t);
            insertSettlementId.executeUpdate();
        }
        return new Settled(status, null);
    }

    /** Inserts one realized entry in each key; or writes nothing and says why when a running sum would overflow. */
    private String insertOutflow(String[] keys, long t, long micros) throws SQLException {
        PreparedStatement p = placement[keys.length];
        int i = 1;
        for (String k : keys) {
            i = bind(p, i, k, t);
            i = bind(p, i, k, t);
            p.setString(i++, k);
            p.setString(i++, k);
            p.setString(i++, k);
        }
        long[] prev = new long[keys.length];
        boolean[] late = new boolean[keys.length];
        long[] base = new long[keys.length];
        long[] last = new long[keys.length];
        try (ResultSet r = p.executeQuery()) {
            r.next();
            int col = 1;
            for (int k = 0; k < keys.length; k++) {
                Long upper = nullableLong(r, col++);
                Long after = nullableLong(r, col++);
                Long lastCum = nullableLong(r, col++);
                Long lastAt = nullableLong(r, col++);
                Long first = nullableLong(r, col++);
                prev[k] = upper != null ? upper : after != null ? after : 0;
                late[k] = lastAt != null && lastAt > t;
                last[k] = lastCum == null ? 0 : lastCum;
                base[k] = first == null ? 0 : first;
            }
        }
        for (int k = 0; k < keys.length; k++) {
            if (micros > LIMIT - last[k]) {
                if (micros > LIMIT - (last[k] - base[k])) {
                    return "the realized outflow retained for `" + keys[k].substring(2) + "` would pass 2^62 "
                            + "micro-dollars, the most the ledger sums";
                }
            }
        }
        for (int k = 0; k < keys.length; k++) {
            if (micros > LIMIT - last[k] && base[k] > 0) {
                rebaseOutflow.setLong(1, base[k]);
                rebaseOutflow.setString(2, keys[k]);
                rebaseOutflow.executeUpdate();
                prev[k] -= base[k];
            }
            if (late[k]) {
                shiftOutflow.setLong(1, micros);
                shiftOutflow.setString(2, keys[k]);
                shiftOutflow.setLong(3, t);
                shiftOutflow.executeUpdate();
            }
        }
        long seq = nextSeq++;
        for (int k = 0; k < keys.length; k++) {
            insertOutflow.setString(1, keys[k]);
            insertOutflow.setLong(2, t);
            insertOutflow.setLong(3, seq);
            insertOutflow.setLong(4, micros);
            insertOutflow.setLong(5, prev[k] + micros);
            insertOutflow.executeUpdate();
        }
        return null;
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
