package dev.custody.cli.serve;

import static dev.custody.cli.serve.LedgerStreams.JSON;
import static dev.custody.cli.serve.ServeCommandTest.comparable;
import static dev.custody.cli.serve.ServeCommandTest.get;
import static dev.custody.cli.serve.ServeCommandTest.post;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.custody.cli.Cli;
import dev.custody.cli.ExitCode;
import dev.custody.engine.velocity.Velocity;
import dev.custody.velocity.jdbc.JdbcVelocityLedger;
import dev.custody.velocity.jdbc.testing.PostgresServer;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code custody serve --ledger} in process, on real SQLite and real PostgreSQL (issue 33, item 3): records equal
 * {@code custody replay --velocity derive}'s, retries count once, settlements, and a database that stops answering.
 */
class ServeLedgerTest {
    private static final String WALLET = "92e0490b-f666-47c5-8c1a-dd0688c6fc87";
    private static final String WORKSPACE = "00cd4ae6-310e-4566-99ae-1270f1ed5570";

    @TempDir
    Path dir;

    private final InProcessServers servers = new InProcessServers();

    @AfterEach
    void stopAll() throws Exception {
        servers.stopAll();
    }

    private ServeCommand.Running serve(String... args) throws Exception {
        return servers.start(args);
    }

    private Path tight() throws Exception {
        return Files.writeString(dir.resolve("tight-velocity.yaml"), LedgerStreams.TIGHT_VELOCITY);
    }

    private Path stream() throws Exception {
        return Files.write(dir.resolve("stream.jsonl"), LedgerStreams.strippedStream(), StandardCharsets.UTF_8);
    }

    /** replay --velocity derive on the stream: the records the server must give. */
    private List<String> replayed(Path stream) throws Exception {
        Cli.Result replay = Cli.run("replay", "--policies", "../examples/policies", tight().toString(), "--actions",
                stream.toString(), "--velocity", "derive", "--format", "jsonl");
        assertEquals(ExitCode.OK, replay.exit(), replay.err());
        return replay.outLines();
    }

    private static JsonNode probe(String url, Instant at) throws Exception {
        try (JdbcVelocityLedger ledger = JdbcVelocityLedger.builder(JdbcVelocityLedger.jdbcUrl(url))
                .lateness(Duration.ofHours(1)).build()) {
            Velocity v = ledger.velocity(WORKSPACE, WALLET, "ETHEREUM_MAINNET", at);
            return JSON.valueToTree(Map.of("wallet", v.walletSection(), "workspace", v.workspaceSection()));
        }
    }

    // ------------------------------------------------------------------ one meaning with replay

    @ParameterizedTest
    @EnumSource(LedgerStreams.Store.class)
    void aStreamSentInOrderGivesReplaysDerivedRecordsOneByOne(LedgerStreams.Store store) throws Exception {
        Path stream = stream();
        List<String> expected = replayed(stream);
        Map<String, Integer> rules = new HashMap<>();
        expected.forEach(r -> rules.merge(r.replaceAll(".*\"rule_id\":(\"[^\"]*\"|null).*", "$1")
                + r.replaceAll(".*\"failure\":(\"[^\"]*\"|null).*", "$1"), 1, Integer::sum));
        // the derived figures decide: the tight velocity rules fire, the late copies are refused
        assertTrue(rules.getOrDefault("\"wallet-burst-3\"null", 0) > 20, rules.toString());
        assertTrue(rules.getOrDefault("\"wallet-hourly-outflow\"null", 0) > 5, rules.toString());
        assertTrue(rules.getOrDefault("\"network-6h-outflow\"null", 0) > 5, rules.toString());
        long late = Files.readAllLines(stream).stream().filter(l -> l.contains("-late\"")).count();
        assertEquals(3, late);
        assertEquals(late, rules.getOrDefault("null\"malformed_action\"", 0).longValue(), rules.toString());

        ServeCommand.Running r = serve("--policies", "../examples/policies", tight().toString(), "--ledger",
                store.freshUrl(dir));
        int record = 0;
        for (String line : Files.readAllLines(stream)) {
            if (LedgerStreams.isSettlement(line)) {
                HttpResponse<String> res = post(r, "/v1/settlements", line);
                assertEquals(200, res.statusCode(), res.body());
                assertEquals(1, JSON.readTree(res.body()).get("recorded").asInt(), res.body());
            } else {
                HttpResponse<String> res = post(r, "/v1/decisions", line);
                assertEquals(200, res.statusCode(), res.body());
                assertEquals(comparable(expected.get(record)), comparable(res.body()), "record " + (record + 1));
                record++;
            }
        }
        assertEquals(expected.size(), record);
    }

    @ParameterizedTest
    @EnumSource(LedgerStreams.Store.class)
    void aStreamSentInBatchesGivesReplaysDerivedRecords(LedgerStreams.Store store) throws Exception {
        Path stream = stream();
        List<String> expected = replayed(stream);
        ServeCommand.Running r = serve("--policies", "../examples/policies", tight().toString(), "--ledger",
                store.freshUrl(dir));
        List<String> lines = Files.readAllLines(stream);
        List<String> got = new ArrayList<>();
        for (int i = 0; i < lines.size();) {
            if (LedgerStreams.isSettlement(lines.get(i))) {
                // consecutive settlements go as one array
                int j = i;
                while (j < lines.size() && LedgerStreams.isSettlement(lines.get(j))) {
                    j++;
                }
                HttpResponse<String> res = post(r, "/v1/settlements", "[" + String.join(",", lines.subList(i, j)) + "]");
                assertEquals(200, res.statusCode(), res.body());
                assertEquals(j - i, JSON.readTree(res.body()).get("recorded").asInt(), res.body());
                i = j;
            } else {
                int j = i;
                while (j < lines.size() && j - i < 40 && !LedgerStreams.isSettlement(lines.get(j))) {
                    j++;
                }
                HttpResponse<String> res = post(r, "/v1/decisions/batch", "[" + String.join(",", lines.subList(i, j))
                        + "]");
                assertEquals(200, res.statusCode(), res.body());
                for (JsonNode n : JSON.readTree(res.body())) {
                    ((ObjectNode) n).remove("decision_id");
                    got.add(JSON.writeValueAsString(n));
                }
                i = j;
            }
        }
        assertEquals(expected.size(), got.size());
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(comparable(expected.get(i)), comparable(got.get(i)), "record " + (i + 1));
        }
    }

    // ------------------------------------------------------------------ retries

    private static String withdrawal(String id, String at) {
        return "{\"id\": \"" + id + "\", \"action\": \"withdrawal.create\", \"wallet_id\": \"" + WALLET
                + "\", \"workspace_id\": \"" + WORKSPACE + "\", \"at\": \"" + at + "\", \"principal\": {\"role\": "
                + "\"signer\"}, \"withdrawal\": {\"amount\": 1, \"value_usd\": 5000, \"asset_symbol\": \"USDC\", "
                + "\"asset_is_native\": false, \"destination_address\": \"0xabc\", \"network_code\": "
                + "\"ETHEREUM_MAINNET\", \"is_whitelisted\": true, \"address_age_sec\": 999999}}";
    }

    @ParameterizedTest
    @EnumSource(LedgerStreams.Store.class)
    void aRetriedActionCountsOnceAndGetsItsDecisionAgainEvenConcurrently(LedgerStreams.Store store) throws Exception {
        String url = store.freshUrl(dir);
        ServeCommand.Running r = serve("--policies", tight().toString(), "--ledger", url);
        for (int i = 1; i <= 3; i++) {
            assertEquals(200, post(r, "/v1/decisions", withdrawal("w-" + i, "2026-11-02T10:0" + i + ":00Z")).statusCode());
        }
        // the fourth attempt of the hour is denied by the burst rule; its retries are denied alike, not counted again
        String third = withdrawal("w-4", "2026-11-02T10:04:00Z");
        String first = post(r, "/v1/decisions", third).body();
        assertTrue(first.contains("\"rule_id\":\"wallet-burst-3\""), first);
        assertEquals(comparable(first), comparable(post(r, "/v1/decisions", third).body()));
        assertEquals(comparable(first), comparable(post(r, "/v1/decisions/batch", "[" + third + "," + third + "]")
                .body().replaceAll("^\\[|,\\{.*$", "")));
        // sixteen requests of one new id at once: one attempt
        String fourth = withdrawal("w-5", "2026-11-02T10:05:00Z");
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<String>> answers = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                answers.add(pool.submit(() -> {
                    go.await();
                    HttpResponse<String> res = post(r, "/v1/decisions", fourth);
                    assertEquals(200, res.statusCode(), res.body());
                    return comparable(res.body());
                }));
            }
            go.countDown();
            String one = answers.get(0).get();
            for (Future<String> f : answers) {
                assertEquals(one, f.get());
            }
        } finally {
            pool.shutdownNow();
        }
        JsonNode figures = probe(url, Instant.parse("2026-11-02T10:06:00Z"));
        assertEquals(5, figures.get("wallet").get("withdrawal_count_1h").asLong(), figures.toString());
        assertEquals(5, figures.get("workspace").get("network_withdrawal_count_1h").asLong(), figures.toString());
        // an id reused for another withdrawal is refused, not counted
        // a retry later (a client that sends no `at` retries with a new instant) is still the same attempt
        assertEquals(comparable(post(r, "/v1/decisions", fourth).body()), comparable(post(r, "/v1/decisions",
                withdrawal("w-5", "2026-11-02T10:07:00Z")).body()));
        String reused = post(r, "/v1/decisions", withdrawal("w-5", "2026-11-02T10:09:00Z")
                .replace("ETHEREUM_MAINNET", "BASE_MAINNET")).body();
        assertTrue(reused.contains("\"failure\":\"malformed_action\"") && reused.contains("already recorded"), reused);
        assertEquals(5, probe(url, Instant.parse("2026-11-02T10:10:00Z")).get("wallet").get("withdrawal_count_1h")
                .asLong());
    }

    // ------------------------------------------------------------------ settlements

    private static String settlement(String id, String value, String at) {
        return "{\"event\": \"withdrawal.settled\"" + (id == null ? "" : ", \"id\": \"" + id + "\"")
                + ", \"wallet_id\": \"" + WALLET + "\", \"workspace_id\": \"" + WORKSPACE
                + "\", \"network_code\": \"ETHEREUM_MAINNET\", \"value_usd\": " + value
                + ", \"status\": \"executed\", \"at\": \"" + at + "\"}";
    }

    @Test
    void settlementsAreRecordedOnceByIdAndAMalformedOneRecordsNothing() throws Exception {
        String url = LedgerStreams.Store.SQLITE.freshUrl(dir);
        ServeCommand.Running r = serve("--policies", tight().toString(), "--ledger", url);
        HttpResponse<String> res = post(r, "/v1/settlements", "[" + settlement("s-1", "1000.5", "2026-11-02T10:00:00Z")
                + "," + settlement("s-1", "1000.5", "2026-11-02T10:00:00Z") + "," + settlement(null, "250",
                "2026-11-02T10:01:00Z") + "]");
        assertEquals(200, res.statusCode(), res.body());
        assertEquals("{\"recorded\":2,\"duplicates\":1,\"too_old\":0,\"refused\":0,\"conflicts\":0,\"settlements\":["
                + "{\"id\":\"s-1\",\"status\":\"recorded\"},{\"id\":\"s-1\",\"status\":\"duplicate\"},"
                + "{\"id\":null,\"status\":\"recorded\"}]}", res.body());
        assertEquals(200, post(r, "/v1/settlements", settlement("s-1", "1000.5", "2026-11-02T10:00:00Z")).statusCode());
        // the id again with other content (another value): a conflict, nothing recorded
        HttpResponse<String> other = post(r, "/v1/settlements", settlement("s-1", "99", "2026-11-02T10:00:00Z"));
        assertEquals(200, other.statusCode());
        assertTrue(other.body().startsWith("{\"recorded\":0,\"duplicates\":0,\"too_old\":0,\"refused\":0,"
                + "\"conflicts\":1,\"settlements\":[{\"id\":\"s-1\",\"status\":\"conflict\",\"error\":\"settlement id "
                + "`s-1` was already recorded with other content"), other.body());

        // one bad element: 400, and the good ones before it are not recorded either
        HttpResponse<String> bad = post(r, "/v1/settlements", "[" + settlement("s-2", "7", "2026-11-02T10:02:00Z")
                + "," + settlement("s-3", "\"seven\"", "2026-11-02T10:02:00Z") + "]");
        assertEquals(400, bad.statusCode(), bad.body());
        assertTrue(bad.body().startsWith("{\"error\":\"element 2: "), bad.body());
        HttpResponse<String> action = post(r, "/v1/settlements", withdrawal("w-1", "2026-11-02T10:00:00Z"));
        assertEquals(400, action.statusCode());
        assertEquals("{\"error\":\"an action is not a `withdrawal.settled` record: post it to /v1/decisions\"}",
                action.body());
        assertEquals(400, post(r, "/v1/settlements", "not json").statusCode());
        HttpResponse<String> inline = post(r, "/v1/decisions", settlement("s-9", "1", "2026-11-02T10:00:00Z"));
        assertEquals(400, inline.statusCode());
        assertTrue(inline.body().contains("post it to /v1/settlements"), inline.body());

        JsonNode figures = probe(url, Instant.parse("2026-11-02T10:30:00Z"));
        assertEquals(0, new java.math.BigDecimal("1250.5").compareTo(figures.get("wallet").get("outflow_1h")
                .decimalValue()), figures.toString());
    }

    @Test
    void withoutALedgerSettlementsAre501() throws Exception {
        ServeCommand.Running r = serve("--policies", tight().toString());
        HttpResponse<String> res = post(r, "/v1/settlements", settlement("s-1", "1", "2026-11-02T10:00:00Z"));
        assertEquals(501, res.statusCode());
        assertEquals("{\"error\":\"this server keeps no velocity ledger: start it with `--ledger` to record "
                + "settlements\"}", res.body());
    }

    @Test
    void badLedgerArgumentsAreUsageOrIoErrors() {
        Cli.Result mysql = Cli.run("serve", "--policies", "../examples/policies", "--ledger", "jdbc:mysql://db/x");
        assertEquals(ExitCode.USAGE, mysql.exit(), mysql.err());
        assertTrue(mysql.err().contains("unsupported ledger URL `jdbc:mysql://db/x`"), mysql.err());
        Cli.Result missing = Cli.run("serve", "--policies", "../examples/policies", "--ledger",
                dir.resolve("no/such/dir/v.db").toString());
        assertEquals(ExitCode.IO, missing.exit(), missing.err());
        assertTrue(missing.err().contains("no/such/dir"), missing.err());
        assertEquals(1, missing.err().lines().count(), missing.err());
    }

    // ------------------------------------------------------------------ the database stops answering

    @Test
    void aDatabaseThatStopsAnsweringDeniesWithinSecondsAndDecisionsResumeByThemselves() throws Exception {
        try (PostgresServer pg = PostgresServer.start()) {
            String url = pg.createDatabase("failover") + "?user=" + PostgresServer.USER;
            ServeCommand.Running r = serve("--policies", tight().toString(), "--ledger", url);
            ServeCommandTest.awaitTrue(() -> status(r, "/ready") == 200, "ready");
            HttpResponse<String> ok = post(r, "/v1/decisions", withdrawal("f-1", "2026-11-02T10:00:00Z"));
            assertTrue(ok.body().contains("\"fail_closed\":false"), ok.body());

            pg.pause();
            try {
                HttpResponse<String> denied = post(r, "/v1/decisions", withdrawal("f-2", "2026-11-02T10:01:00Z"));
                assertEquals(200, denied.statusCode());
                JsonNode d = JSON.readTree(denied.body());
                assertEquals("DENY", d.get("decision").asText(), denied.body());
                assertEquals("ledger", d.get("failure").asText(), denied.body());
                // the ledger's own 2 s time-out ended the wait (not a pool's 30 s one): the message says which, so
                // nothing is timed here
                assertTrue(d.get("error").asText().startsWith("the velocity ledger did not answer within 2000 ms"),
                        denied.body());
                HttpResponse<String> settle = post(r, "/v1/settlements", settlement("s-x", "5", "2026-11-02T10:01:00Z"));
                assertEquals(503, settle.statusCode(), settle.body());
                ServeCommandTest.awaitTrue(() -> status(r, "/ready") == 503, "not ready while the database is stopped");
                // a contract call needs no figures: decided as ever
                HttpResponse<String> call = post(r, "/v1/decisions", "{\"id\": \"c-1\", \"action\": "
                        + "\"web3.contract_call\", \"workspace_id\": \"" + WORKSPACE + "\", \"wallet_id\": \"" + WALLET
                        + "\", \"resource\": {\"network_code\": \"ETHEREUM_MAINNET\", \"contract_address\": \"0xa\", "
                        + "\"method_selector\": \"0xa9059cbb\", \"value_wei\": \"0\", \"gas_limit\": 21000, "
                        + "\"decoded_args\": {}}}");
                assertTrue(call.body().contains("\"decision\":\"NO_MATCH\""), call.body());
            } finally {
                pg.resume();
            }
            ServeCommandTest.awaitTrue(() -> status(r, "/ready") == 200, "ready again");
            HttpResponse<String> again = post(r, "/v1/decisions", withdrawal("f-3", "2026-11-02T10:02:00Z"));
            assertTrue(again.body().contains("\"fail_closed\":false"), again.body());

            pg.kill9();
            HttpResponse<String> down = post(r, "/v1/decisions", withdrawal("f-4", "2026-11-02T10:03:00Z"));
            assertTrue(down.body().contains("\"failure\":\"ledger\""), down.body());
            pg.restart();
            ServeCommandTest.awaitTrue(() -> status(r, "/ready") == 200, "ready after the database restarted");
            HttpResponse<String> back = post(r, "/v1/decisions", withdrawal("f-5", "2026-11-02T10:04:00Z"));
            assertTrue(back.body().contains("\"fail_closed\":false"), back.body());
        }
    }

    private static int status(ServeCommand.Running r, String path) {
        try {
            return get(r, path).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }
}
