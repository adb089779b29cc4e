package dev.custody.velocity.jdbc;

import dev.custody.engine.velocity.VelocityException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;

/**
 * What differs between the two databases the ledger runs on: the schema's DDL, how a transaction takes the
 * ledger's one lock, and per-connection settings. Everything else (every query the ledger runs) is the same SQL on
 * both. Immutable and thread-safe.
 */
enum Dialect {
    /**
     * SQLite through sqlite-jdbc: WAL journal, {@code synchronous=FULL} (a commit is fsynced: it survives the
     * process's {@code kill -9} and the machine's power loss) or, when asked, {@code NORMAL} (a commit is written to
     * the operating system, fsynced at checkpoints: it survives {@code kill -9}, not a power loss), a 5 s busy
     * time-out for a second process on the same file. Tables are {@code WITHOUT ROWID}, so each is stored in the order of its primary key and a
     * lookup by key and instant reads one B-tree.
     */
    SQLITE("SQLite") {
        @Override
        void configure(Connection c, boolean powerLossSafe) throws SQLException {
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA journal_mode=WAL");
                s.execute(powerLossSafe ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL");
                s.execute("PRAGMA busy_timeout=5000");
            }
        }

        /**
         * The first statement of the transaction writes, so SQLite takes its write lock at once (the transaction
         * never reads before it holds the lock, so it cannot fail to upgrade a stale read snapshot).
         */
        @Override
        void lock(Connection c) throws SQLException {
            try (Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE velocity_meta SET value = value WHERE name = 'next_seq'");
            }
        }

        @Override
        String withoutRowid() {
            return " WITHOUT ROWID";
        }

        /** By primary key: the tables have no rowid, and SQLite looks each key up in the table's own B-tree. */
        @Override
        String expireSql(String table, String key, int rows) {
            String k = key.contains(",") ? "(" + key + ")" : key;
            return "DELETE FROM " + table + " WHERE " + k + " IN (SELECT " + key + " FROM " + table
                    + " WHERE at <= ? ORDER BY " + order(key) + " LIMIT " + rows + ")";
        }

        @Override
        String include(String columns) {
            return "";
        }
    },

    /**
     * PostgreSQL through pgjdbc: every transaction first takes one transaction-scoped advisory lock, so the
     * transactions of every replica on the database run one after the other, in one order, as one ledger
     * (docs/design.md §18); the primary keys include the running sums so lookups are index-only scans.
     */
    POSTGRESQL("PostgreSQL") {
        /**
         * READ COMMITTED and the server's {@code synchronous_commit} (on by default: a commit is on disk before it
         * returns), as they are; sequential scans off for this session. Every query of the ledger is an index seek by
         * design, but a table created a moment ago has no statistics, so the planner took it for a few pages and
         * chose sequential scans, and the prepared statements kept those plans while the table grew (measured: the id
         * lookup at 4-8 ms, the backend at a core). {@link #release} sets it back before the connection goes back
         * to its pool.
         */
        @Override
        void configure(Connection c, boolean powerLossSafe) throws SQLException {
            // the lock is taken by the transaction's first statement; under REPEATABLE READ or SERIALIZABLE (a server
            // default or a pool's setting) its snapshot would be older than the lock, so the ledger sets READ COMMITTED
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            try (Statement s = c.createStatement()) {
                s.execute("SET enable_seqscan = off");
            }
        }

        @Override
        void release(Connection c) throws SQLException {
            try (Statement s = c.createStatement()) {
                s.execute("RESET enable_seqscan");
            }
        }

        @Override
        void lock(Connection c) throws SQLException {
            try (Statement s = c.createStatement()) {
                s.execute("SELECT pg_advisory_xact_lock(" + LOCK_KEY + ")");
            }
        }

        @Override
        String withoutRowid() {
            return "";
        }

        /**
         * By tuple id: {@code ctid = ANY(ARRAY(...))} is a TID scan, where {@code (k, at, seq) IN (subquery)} was
         * planned as a hash semi-join over the whole table (measured: the backend at 80-100 % of a core).
         */
        @Override
        String expireSql(String table, String key, int rows) {
            return "DELETE FROM " + table + " WHERE ctid = ANY (ARRAY (SELECT ctid FROM " + table
                    + " WHERE at <= ? ORDER BY " + order(key) + " LIMIT " + rows + "))";
        }

        @Override
        String include(String columns) {
            return " INCLUDE (" + columns + ")";
        }
    };

    /** The advisory lock of the ledger's transactions on PostgreSQL ("custody" in ASCII). */
    static final long LOCK_KEY = 0x637573746f6479L;

    private final String productName;

    Dialect(String productName) {
        this.productName = productName;
    }

    /** Settings of a connection, applied once when the ledger takes it. */
    abstract void configure(Connection c, boolean powerLossSafe) throws SQLException;

    /** Undoes {@link #configure} before the connection goes back to its pool. */
    void release(Connection c) throws SQLException {
        // nothing by default
    }

    /** Takes the ledger's lock for the rest of the transaction: the first statement of every transaction. */
    abstract void lock(Connection c) throws SQLException;

    /**
     * The order expiry deletes in: a key's rows go in their {@code (at, seq)} order, so what is left of a key is always
     * a suffix of it (a row deleted from the middle of equal instants would break the running sums' differences).
     */
    private static String order(String key) {
        return key.contains("seq") ? "at, seq" : "at";
    }

    /** Deletes up to {@code rows} rows of a table at or before an instant (the parameter), oldest first. */
    abstract String expireSql(String table, String key, int rows);

    /** The table option of a clustered table, or nothing. */
    abstract String withoutRowid();

    /** An index's {@code INCLUDE} clause of these columns, or nothing. */
    abstract String include(String columns);

    /** The name the database gives itself in its JDBC metadata. */
    String productName() {
        return productName;
    }

    /** The dialect of a connection's database. */
    static Dialect of(Connection c) throws SQLException {
        String name = c.getMetaData().getDatabaseProductName();
        for (Dialect d : values()) {
            if (d.productName.equalsIgnoreCase(name)) {
                return d;
            }
        }
        throw new VelocityException("unsupported database `" + name + "`: the velocity ledger runs on SQLite and "
                + "PostgreSQL");
    }

    /** The statements of schema version 1 (docs/design.md §18 "Schema"). */
    List<String> version1() {
        String clustered = withoutRowid();
        return List.of(
                "CREATE TABLE velocity_meta (name VARCHAR(32) PRIMARY KEY, value BIGINT NOT NULL)" + clustered,
                "INSERT INTO velocity_meta (name, value) VALUES ('watermark', " + Long.MIN_VALUE + "), ('next_seq', 1), "
                        + "('dropped', 0)",
                // realized outflow entries per key: cum is the running sum of the key's micros through this row
                "CREATE TABLE velocity_outflow (k TEXT NOT NULL, at BIGINT NOT NULL, seq BIGINT NOT NULL, "
                        + "micros BIGINT NOT NULL, cum BIGINT NOT NULL, PRIMARY KEY (k, at, seq)" + include("micros, cum")
                        + ")" + clustered,
                "CREATE INDEX velocity_outflow_at ON velocity_outflow (at)",
                // attempt entries per key: ord is the row's 1-based position in the key, in (at, seq) order
                "CREATE TABLE velocity_attempt (k TEXT NOT NULL, at BIGINT NOT NULL, seq BIGINT NOT NULL, "
                        + "ord BIGINT NOT NULL, PRIMARY KEY (k, at, seq)" + include("ord") + ")" + clustered,
                "CREATE INDEX velocity_attempt_at ON velocity_attempt (at)",
                // attempts by action id, with the figures the first one was given (what a retry is answered with)
                "CREATE TABLE velocity_attempt_id (id TEXT PRIMARY KEY, at BIGINT NOT NULL, workspace_id TEXT NOT NULL, "
                        + "wallet_id TEXT NOT NULL, network_code TEXT, figures TEXT, refusal TEXT)" + clustered,
                "CREATE INDEX velocity_attempt_id_at ON velocity_attempt_id (at)",
                "CREATE TABLE velocity_settlement_id (id TEXT PRIMARY KEY, at BIGINT NOT NULL, content TEXT NOT NULL)"
                        + clustered,
                "CREATE INDEX velocity_settlement_id_at ON velocity_settlement_id (at)");
    }

    @Override
    public String toString() {
        return productName.toLowerCase(Locale.ROOT);
    }
}
