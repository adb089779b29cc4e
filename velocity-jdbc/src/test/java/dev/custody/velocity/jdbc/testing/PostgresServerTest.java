package dev.custody.velocity.jdbc.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The PostgreSQL fixture itself: a real server, durable (a committed row survives SIGKILL), loopback only, run as
 * an unprivileged user, that can be frozen and resumed, with independent databases. The class starts its own server
 * since it kills and pauses it; the shared one is only asked for its identity and a database.
 */
@Timeout(60)
class PostgresServerTest {

    private static PostgresServer server;

    @BeforeAll
    static void start() throws IOException {
        server = PostgresServer.start();
    }

    @AfterAll
    static void close() throws IOException {
        if (server != null) {
            server.close();
            assertFalse(Files.exists(server.dataDirectory()), "close deletes the cluster");
        }
    }

    @Test
    void servesItsDatabaseOnLoopbackWithDurabilityOn() throws Exception {
        assertEquals("jdbc:postgresql://127.0.0.1:" + server.port() + "/custody", server.jdbcUrl());
        assertEquals("custody", server.user());
        try (Connection connection = connect(server.jdbcUrl())) {
            assertEquals("on", query(connection, "SHOW fsync").get(0));
            assertEquals("on", query(connection, "SHOW synchronous_commit").get(0));
            assertEquals("127.0.0.1", query(connection, "SHOW listen_addresses").get(0));
            assertEquals(Integer.toString(server.port()), query(connection, "SHOW port").get(0));
            assertEquals("UTF8", query(connection, "SHOW server_encoding").get(0));
            assertEquals("custody", query(connection, "SELECT current_database()").get(0));
            assertTrue(query(connection, "SELECT version()").get(0).startsWith("PostgreSQL "));
        }
        // PostgreSQL does not run as root: when the tests do, the server runs as another user
        String owner = ProcessHandle.of(server.pid()).orElseThrow().info().user().orElse("?");
        assertNotEquals("root", owner, "the postmaster's user");
        assertTrue(Files.isDirectory(server.dataDirectory().resolve("base")), "the data directory is the cluster's");
        assertTrue(server.logTail(50).contains("database system is ready to accept connections"),
                () -> "the log: " + server.logTail(50));
    }

    @Test
    void aCommittedRowSurvivesKill9() throws Exception {
        try (Connection connection = connect(server.jdbcUrl()); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE durable (id integer PRIMARY KEY, note text)");
            statement.execute("INSERT INTO durable VALUES (1, 'committed before the crash')");
        }
        long killed = server.pid();

        server.kill9();
        assertFalse(server.isRunning());
        assertFalse(ProcessHandle.of(killed).map(ProcessHandle::isAlive).orElse(false), "the postmaster is gone");
        assertThrows(SQLException.class, () -> connect(server.jdbcUrl()).close(), "nothing listens after kill9");

        server.restart();
        assertTrue(server.isRunning());
        assertNotEquals(killed, server.pid(), "a new postmaster");
        try (Connection connection = connect(server.jdbcUrl())) {
            assertEquals(List.of("committed before the crash"), query(connection, "SELECT note FROM durable"));
        }
        assertTrue(server.logTail(200).contains("database system was interrupted"),
                () -> "crash recovery ran; the log: " + server.logTail(50));
    }

    @Test
    void pauseHangsTheServerAndResumeLetsItGoOn() throws Exception {
        try (Connection connection = connect(server.jdbcUrl() + "?socketTimeout=1")) {
            assertEquals(List.of("1"), query(connection, "SELECT 1"));
            server.pause();
            try {
                // the driver's socket time-out ends the wait (its cause says so); 60 s bounds a hang
                SQLException e = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                        java.time.Duration.ofSeconds(60), () -> assertThrows(SQLException.class,
                                () -> query(connection, "SELECT 1"), "a paused server answers"));
                Throwable cause = e;
                while (cause != null && !(cause instanceof java.net.SocketTimeoutException)) {
                    cause = cause.getCause();
                }
                assertTrue(cause != null, () -> "not the socket time-out: " + e);
            } finally {
                server.resume();
            }
        }
        try (Connection connection = connect(server.jdbcUrl() + "?socketTimeout=5")) {
            assertEquals(List.of("1"), query(connection, "SELECT 1"));
        }
    }

    @Test
    void stopThenRestartKeepsTheDataAndThePort() throws Exception {
        try (Connection connection = connect(server.jdbcUrl()); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE kept (id integer)");
            statement.execute("INSERT INTO kept VALUES (7)");
        }
        int port = server.port();
        server.stop();
        assertFalse(server.isRunning());
        server.stop(); // a second stop does nothing
        assertThrows(IllegalStateException.class, server::pause, "a stopped server cannot be paused");
        server.restart();
        assertEquals(port, server.port());
        try (Connection connection = connect(server.jdbcUrl())) {
            assertEquals(List.of("7"), query(connection, "SELECT id FROM kept"));
        }
    }

    @Test
    void createDatabaseGivesAFreshIndependentDatabase() throws Exception {
        String first = server.createDatabase("fixture_first");
        String second = server.createDatabase("fixture_second");
        assertEquals("jdbc:postgresql://127.0.0.1:" + server.port() + "/fixture_first", first);
        try (Connection connection = connect(first); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE only_in_first (id integer)");
        }
        try (Connection connection = connect(second)) {
            assertEquals(List.of("0"), query(connection,
                    "SELECT count(*) FROM information_schema.tables WHERE table_name = 'only_in_first'"));
        }
        Connection open = connect(first);
        try {
            assertEquals(first, server.createDatabase("fixture_first"), "again: dropped (its connections too)");
        } finally {
            open.close();
        }
        try (Connection connection = connect(first)) {
            assertEquals(List.of("0"), query(connection,
                    "SELECT count(*) FROM information_schema.tables WHERE table_name = 'only_in_first'"));
        }
        for (String bad : new String[] {"", "Upper", "semi;colon", "postgres", "template1", "a-b"}) {
            assertThrows(IllegalArgumentException.class, () -> server.createDatabase(bad), bad);
        }
    }

    @Test
    void theSharedServerIsOnePerJvm() throws Exception {
        PostgresServer shared = PostgresServer.shared();
        assertSame(shared, PostgresServer.shared());
        assertNotEquals(server.port(), shared.port());
        try (Connection connection = connect(shared.createDatabase("fixture_shared"))) {
            assertEquals(List.of("fixture_shared"), query(connection, "SELECT current_database()"));
        }
    }

    private static Connection connect(String url) throws SQLException {
        return DriverManager.getConnection(url, server.user(), "");
    }

    private static List<String> query(Connection connection, String sql) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            while (rows.next()) {
                values.add(rows.getString(1));
            }
        }
        return values;
    }
}
