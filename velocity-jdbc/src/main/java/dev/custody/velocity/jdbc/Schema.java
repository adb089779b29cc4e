package dev.custody.velocity.jdbc;

import dev.custody.engine.velocity.VelocityException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;

/**
 * The ledger's schema and its migrations, in the manner of Flyway without Flyway: a history table
 * {@code velocity_schema} holds one row per applied version ({@code version}, {@code description},
 * {@code applied_at}); on first use the ledger takes its lock, reads the highest version, and applies the missing
 * versions' statements in order in the same transaction, each followed by its history row. A database whose version
 * is newer than the library's is refused (an older library must not write a layout it does not know). Versions are
 * append-only: a released version's statements never change, a change is a new version.
 */
final class Schema {
    /** The version this library writes and reads. */
    static final int LATEST = 1;

    private record Migration(int version, String description, Function<Dialect, List<String>> statements) {}

    private static final List<Migration> MIGRATIONS = List.of(
            new Migration(1, "outflow and attempt entries with running sums; ids of attempts and settlements",
                    Dialect::version1));

    private static final String HISTORY = "CREATE TABLE IF NOT EXISTS velocity_schema (version INTEGER PRIMARY KEY, "
            + "description TEXT NOT NULL, applied_at TEXT NOT NULL)";

    private Schema() {}

    /**
     * The lateness is the database's, not a connection's: expiry deletes what no query within the lateness can reach,
     * so a ledger with a larger lateness on the same database would get windows with rows missing (an undercount).
     * The first ledger records its lateness; one built with another is refused.
     */
    private static void keepLateness(Connection c, long lateness) throws SQLException {
        try (java.sql.PreparedStatement p = c.prepareStatement("SELECT value FROM velocity_meta WHERE name = 'lateness'")) {
            try (ResultSet r = p.executeQuery()) {
                if (r.next()) {
                    long kept = r.getLong(1);
                    if (kept != lateness) {
                        c.rollback();
                        throw new VelocityException("the velocity ledger in this database keeps a lateness of "
                                + human(kept) + ", this one was built with " + human(lateness) + ": every ledger "
                                + "(every replica) on one database needs the same lateness");
                    }
                    return;
                }
            }
        }
        try (java.sql.PreparedStatement p = c.prepareStatement(
                "INSERT INTO velocity_meta (name, value) VALUES ('lateness', ?)")) {
            p.setLong(1, lateness);
            p.executeUpdate();
        }
    }

    private static String human(long nanos) {
        return java.time.Duration.ofNanos(nanos).toString().substring(2).toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * Brings the database to {@link #LATEST}, in one transaction; leaves the
     * connection in manual-commit mode.
     *
     * @return the version found before migrating (0 for an empty database)
     * @throws VelocityException when the database's version is newer than this library's
     */
    static int migrate(Connection c, Dialect dialect, long lateness) throws SQLException {
        if (dialect == Dialect.SQLITE) {
            // SQLite: the history table first, on its own (idempotent); then the transaction's first statement writes,
            // so SQLite takes its write lock before any read of the history
            c.setAutoCommit(true);
            try (Statement s = c.createStatement()) {
                s.execute(HISTORY);
            }
        }
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            if (dialect == Dialect.POSTGRESQL) {
                // PostgreSQL: the lock before anything, even the history table: two replicas starting on a fresh
                // database would otherwise both create it (CREATE TABLE IF NOT EXISTS races there on pg_type)
                dialect.lock(c);
                s.execute(HISTORY);
            } else {
                s.executeUpdate("DELETE FROM velocity_schema WHERE version < 0");
            }
            int found;
            try (ResultSet r = s.executeQuery("SELECT COALESCE(MAX(version), 0) FROM velocity_schema")) {
                r.next();
                found = r.getInt(1);
            }
            if (found > LATEST) {
                c.rollback();
                throw new VelocityException("the velocity ledger's schema is version " + found + ", newer than this "
                        + "library's " + LATEST + ": upgrade the library");
            }
            for (Migration m : MIGRATIONS) {
                if (m.version() <= found) {
                    continue;
                }
                for (String sql : m.statements().apply(dialect)) {
                    s.execute(sql);
                }
                try (PreparedStatement p = c.prepareStatement(
                        "INSERT INTO velocity_schema (version, description, applied_at) VALUES (?, ?, ?)")) {
                    p.setInt(1, m.version());
                    p.setString(2, m.description());
                    p.setString(3, Instant.now().toString());
                    p.executeUpdate();
                }
            }
            keepLateness(c, lateness);
            c.commit();
            return found;
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }
}
