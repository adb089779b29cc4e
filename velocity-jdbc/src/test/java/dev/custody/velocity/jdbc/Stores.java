package dev.custody.velocity.jdbc;

import dev.custody.velocity.jdbc.testing.PostgresServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** The two real databases the tests run the ledger on: a fresh SQLite file, a fresh PostgreSQL database. */
enum Stores {
    SQLITE, POSTGRESQL;

    private static final AtomicInteger DATABASES = new AtomicInteger();

    /** The JDBC URL of a new, empty database of this store. */
    String freshUrl() {
        try {
            if (this == SQLITE) {
                Path dir = Files.createTempDirectory("velocity-sqlite");
                dir.toFile().deleteOnExit();
                return "jdbc:sqlite:" + dir.resolve("ledger.db");
            }
            return PostgresServer.shared().createDatabase("ledger_" + ProcessHandle.current().pid() + "_"
                    + DATABASES.incrementAndGet()) + "?user=" + PostgresServer.USER;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A ledger over a new, empty database of this store. */
    JdbcVelocityLedger fresh(Duration lateness) {
        return open(freshUrl(), lateness);
    }

    static JdbcVelocityLedger open(String url, Duration lateness) {
        return JdbcVelocityLedger.builder(url).lateness(lateness).timeout(Duration.ofSeconds(60)).build();
    }
}
