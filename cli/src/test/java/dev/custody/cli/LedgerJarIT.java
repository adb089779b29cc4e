package dev.custody.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.custody.engine.velocity.Settlement;
import dev.custody.engine.velocity.SettlementStatus;
import dev.custody.engine.velocity.Velocity;
import dev.custody.engine.velocity.VelocityLedger;
import dev.custody.velocity.jdbc.JdbcVelocityLedger;
import dev.custody.velocity.jdbc.testing.PostgresServer;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code custody serve --ledger} as real processes of the packaged jar (issue 33, items 4 and 5): a server killed
 * with {@code kill -9} under load keeps every acknowledged attempt and settlement, and two replicas on one PostgreSQL
 * count a stream spread over both, retries included, exactly once.
 */
class LedgerJarIT {
    private static final Pattern LISTENING = Pattern.compile("custody serve: listening on (http://127\\.0\\.0\\.1:\\d+) .*");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private static final String[] WORKSPACES = {"5b9a3c1e-0000-4000-8000-000000000001",
        "5b9a3c1e-0000-4000-8000-000000000002"};
    private static final String[] NETWORKS = {"ETHEREUM_MAINNET", "BASE_MAINNET"};
    private static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");

    @TempDir
    Path dir;

    /** One event of the stream: an attempt (a withdrawal without velocity sections) or a settlement. */
    private record Event(String id, boolean settlement, int workspace, int wallet, int network, Instant at,
            BigDecimal value) {
        String body() {
            String ws = WORKSPACES[workspace];
            String wl = LedgerJarIT.wallet(workspace, wallet);
            if (settlement) {
                return "{\"event\": \"withdrawal.settled\", \"id\": \"" + id + "\", \"wallet_id\": \"" + wl
                        + "\", \"workspace_id\": \"" + ws + "\", \"network_code\": \"" + NETWORKS[network]
                        + "\", \"value_usd\": " + value.toPlainString() + ", \"status\": \"executed\", \"at\": \"" + at
                        + "\"}";
            }
            return "{\"id\": \"" + id + "\", \"action\": \"withdrawal.create\", \"wallet_id\": \"" + wl
                    + "\", \"workspace_id\": \"" + ws + "\", \"at\": \"" + at + "\", \"principal\": {\"role\": "
                    + "\"signer\"}, \"withdrawal\": {\"amount\": 1, \"value_usd\": " + value.toPlainString()
                    + ", \"asset_symbol\": \"USDC\", \"asset_is_native\": false, \"destination_address\": \"0xabc\", "
                    + "\"network_code\": \"" + NETWORKS[network] + "\", \"is_whitelisted\": true, "
                    + "\"address_age_sec\": 999999}}";
        }

        String path() {
            return settlement ? "/v1/settlements" : "/v1/decisions";
        }
    }

    private static String wallet(int workspace, int wallet) {
        return String.format(Locale.ROOT, "7c0ffee0-%04d-4000-8000-0000000000%02d", workspace, wallet);
    }

    /** {@code n} events over 30 minutes (well within the 1 h lateness: the final figures do not depend on order). */
    private static List<Event> events(int n, long seed) {
        Random r = new Random(seed);
        List<Event> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            boolean settlement = r.nextInt(3) == 0;
            out.add(new Event((settlement ? "s-" : "a-") + seed + "-" + i, settlement, r.nextInt(2), r.nextInt(4),
                    r.nextInt(2), T0.plusMillis(i * 1800_000L / n), BigDecimal.valueOf(r.nextInt(5_000_000) + 1, 2)));
        }
        return out;
    }

    private static final String POLICY = """
            id: burst
            name: Burst limit
            approval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf
            rules:
              - rule_id: burst
                trigger_action: withdrawal.create
                effect: DENY
                description: too many attempts from one wallet in an hour
                condition: wallet.withdrawal_count_1h >= 100 || workspace.network_outflow_1h > 1000000000
            """;

    /** A running server process and its base URI. */
    private record Server(Process process, URI uri) {}

    private Server start(String ledger, String name) throws Exception {
        Path policy = dir.resolve("burst.yaml");
        if (!Files.exists(policy)) {
            Files.writeString(policy, POLICY);
        }
        Path err = dir.resolve(name + "-err.txt");
        Process p = new ProcessBuilder(CustodyJarIT.command("serve", "--policies", policy.toString(), "--addr", "127.0.0.1:0",
                "--ledger", ledger)).redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(err.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            List<String> lines = Files.exists(err) ? Files.readAllLines(err) : List.of();
            if (!lines.isEmpty() && Files.readString(err).endsWith("\n")) {
                Matcher m = LISTENING.matcher(lines.get(0));
                assertTrue(m.matches(), "first stderr line: " + lines);
                Server s = new Server(p, URI.create(m.group(1)));
                while (status(s, "/ready") != 200) {
                    assertTrue(System.nanoTime() < deadline, "not ready in 60 s: " + Files.readString(err));
                    Thread.sleep(50);
                }
                return s;
            }
            assertTrue(p.isAlive(), "the server exited: " + lines);
            assertTrue(System.nanoTime() < deadline, "no start line in 60 s");
            Thread.sleep(20);
        }
    }

    private static int status(Server s, String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(s.uri().resolve(path)).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    private static HttpResponse<String> post(Server s, Event e) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(s.uri().resolve(e.path())).timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.ofString(e.body())).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Whether an answer acknowledges its event: a settlement recorded, a decision whose attempt was committed. */
    private static boolean acknowledged(Event e, HttpResponse<String> res) throws Exception {
        if (res.statusCode() != 200) {
            return false;
        }
        JsonNode body = JSON.readTree(res.body());
        return e.settlement() ? body.get("recorded").asInt() + body.get("duplicates").asInt() == 1
                : !"ledger".equals(body.get("failure").asText(null));
    }

    /** The ids the store holds, read with plain JDBC. */
    private static Set<String> storedIds(String jdbc) throws Exception {
        Set<String> out = new HashSet<>();
        try (Connection c = DriverManager.getConnection(jdbc); Statement s = c.createStatement()) {
            for (String table : List.of("velocity_attempt_id", "velocity_settlement_id")) {
                try (ResultSet r = s.executeQuery("SELECT id FROM " + table)) {
                    while (r.next()) {
                        out.add(r.getString(1));
                    }
                }
            }
        }
        return out;
    }

    /**
     * The ledger's figures for every wallet and network after the stream equal those of the in-memory ledger fed the
     * events given; returns how many key combinations were compared.
     */
    private static int assertFiguresEqualOracle(String jdbc, List<Event> events) throws Exception {
        VelocityLedger oracle = VelocityLedger.builder().lateness(Duration.ofHours(1)).build();
        for (Event e : events) {
            if (e.settlement()) {
                new Settlement(e.id(), WORKSPACES[e.workspace()], wallet(e.workspace(), e.wallet()), NETWORKS[e.network()],
                        e.value(), SettlementStatus.EXECUTED, e.at()).applyTo(oracle);
            } else {
                oracle.recordAttempt(WORKSPACES[e.workspace()], wallet(e.workspace(), e.wallet()), NETWORKS[e.network()],
                        e.at());
            }
        }
        Instant probe = T0.plus(Duration.ofMinutes(40));
        int compared = 0;
        try (JdbcVelocityLedger ledger = JdbcVelocityLedger.builder(jdbc).lateness(Duration.ofHours(1)).build()) {
            for (int w = 0; w < 2; w++) {
                for (int k = 0; k < 4; k++) {
                    for (int n = 0; n < 2; n++) {
                        Velocity expected = oracle.velocity(WORKSPACES[w], wallet(w, k), NETWORKS[n], probe);
                        Velocity actual = ledger.velocity(WORKSPACES[w], wallet(w, k), NETWORKS[n], probe);
                        assertEquals(normalized(expected.walletSection()), normalized(actual.walletSection()),
                                "wallet " + k + " of workspace " + w + " on " + NETWORKS[n]);
                        assertEquals(normalized(expected.workspaceSection()), normalized(actual.workspaceSection()),
                                "workspace " + w + " on " + NETWORKS[n]);
                        compared++;
                    }
                }
            }
        }
        return compared;
    }

    /** A section with its amounts as plain numbers (the in-memory ledger's zero has scale 0 or 6). */
    private static String normalized(java.util.Map<String, Object> section) {
        java.util.Map<String, Object> out = new java.util.LinkedHashMap<>();
        section.forEach((k, v) -> out.put(k, v instanceof BigDecimal b ? b.stripTrailingZeros().toPlainString() : v));
        return out.toString();
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void killNineUnderLoadLosesNoAcknowledgedAttemptOrSettlement(String store) throws Exception {
        String ledger = store.equals("sqlite") ? dir.resolve("velocity.db").toString()
                : PostgresServer.shared().createDatabase("crash_" + ProcessHandle.current().pid()) + "?user="
                        + PostgresServer.USER;
        String jdbc = JdbcVelocityLedger.jdbcUrl(ledger);
        List<Event> events = events(6_000, 17);
        Server server = start(ledger, "crash");
        Set<String> acked = ConcurrentHashMap.newKeySet();
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> clients = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            clients.add(pool.submit(() -> {
                for (int i = next.getAndIncrement(); i < events.size(); i = next.getAndIncrement()) {
                    Event e = events.get(i);
                    try {
                        if (acknowledged(e, post(server, e))) {
                            acked.add(e.id());
                        }
                    } catch (Exception gone) {
                        return null; // the server was killed
                    }
                }
                return null;
            }));
        }
        // kill -9 while the clients are sending: after a third of the stream was answered
        while (acked.size() < events.size() / 3) {
            assertTrue(server.process().isAlive());
            Thread.sleep(5);
        }
        server.process().destroyForcibly(); // SIGKILL
        assertTrue(server.process().waitFor(20, TimeUnit.SECONDS));
        for (Future<?> f : clients) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdownNow();
        int sentBeforeKill = Math.min(next.get(), events.size());
        assertTrue(sentBeforeKill < events.size(), "the server was killed before the stream ended");

        // restarted on the same store: every acknowledged event is there, and it serves again
        Server again = start(ledger, "restarted");
        try {
            Set<String> stored = storedIds(jdbc);
            Set<String> lost = new HashSet<>(acked);
            lost.removeAll(stored);
            assertEquals(Set.of(), lost, "acknowledged but not found after kill -9");
            // what the store holds beyond the acknowledged: at most the requests in flight at the kill
            assertTrue(stored.size() - acked.size() <= 8, "stored " + stored.size() + ", acknowledged " + acked.size());
            List<Event> held = events.stream().filter(e -> stored.contains(e.id())).toList();
            assertEquals(16, assertFiguresEqualOracle(jdbc, held));
            Event retry = events.stream().filter(e -> !e.settlement() && acked.contains(e.id())).findFirst().orElseThrow();
            assertEquals(200, post(again, retry).statusCode());
            assertEquals(stored, storedIds(jdbc), "a retry after the restart records nothing new");
            System.out.printf("kill -9 on %s: %d events sent, %d acknowledged, %d stored, none lost%n", store,
                    sentBeforeKill, acked.size(), stored.size());
        } finally {
            again.process().destroy();
            again.process().waitFor(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void twoReplicasOnOnePostgresCountAStreamSpreadOverBothExactlyOnce() throws Exception {
        String ledger = PostgresServer.shared().createDatabase("replicas_" + ProcessHandle.current().pid()) + "?user="
                + PostgresServer.USER;
        String jdbc = JdbcVelocityLedger.jdbcUrl(ledger);
        List<Event> events = events(3_000, 23);
        Server a = start(ledger, "replica-a");
        Server b = start(ledger, "replica-b");
        try {
            AtomicInteger next = new AtomicInteger();
            AtomicInteger differing = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<Integer>> clients = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                clients.add(pool.submit(() -> {
                    int sent = 0;
                    for (int i = next.getAndIncrement(); i < events.size(); i = next.getAndIncrement()) {
                        Event e = events.get(i);
                        Server first = (i + thread) % 2 == 0 ? a : b;
                        Server second = first == a ? b : a;
                        if (i % 5 == 0) {
                            // a retry on the other replica while the first is in flight: both answer alike
                            java.util.concurrent.CompletableFuture<HttpResponse<String>> one = HTTP.sendAsync(
                                    HttpRequest.newBuilder(first.uri().resolve(e.path())).POST(
                                            HttpRequest.BodyPublishers.ofString(e.body())).build(),
                                    HttpResponse.BodyHandlers.ofString());
                            HttpResponse<String> two = post(second, e);
                            HttpResponse<String> r1 = one.get(30, TimeUnit.SECONDS);
                            assertEquals(200, r1.statusCode(), r1.body());
                            assertEquals(200, two.statusCode(), two.body());
                            if (!e.settlement() && !comparable(r1.body()).equals(comparable(two.body()))) {
                                differing.incrementAndGet();
                            }
                            sent += 2;
                        } else {
                            HttpResponse<String> res = post(first, e);
                            assertEquals(200, res.statusCode(), res.body());
                            assertTrue(acknowledged(e, res), res.body());
                            sent++;
                        }
                    }
                    return sent;
                }));
            }
            int sent = 0;
            for (Future<Integer> f : clients) {
                sent += f.get(300, TimeUnit.SECONDS);
            }
            pool.shutdownNow();
            assertEquals(0, differing.get(), "a retry on the other replica was decided otherwise");
            Set<String> stored = storedIds(jdbc);
            assertEquals(events.size(), stored.size());
            assertEquals(16, assertFiguresEqualOracle(jdbc, events));
            System.out.printf("replicas: %d requests for %d events over two servers; figures equal the oracle's%n",
                    sent, events.size());
        } finally {
            for (Server s : List.of(a, b)) {
                s.process().destroy();
                s.process().waitFor(20, TimeUnit.SECONDS);
            }
        }
    }

    private static String comparable(String record) {
        return record.replaceAll(",\"elapsed_us\":\\d+", "").replaceAll(",\"decision_id\":\"[0-9a-f-]{36}\"", "");
    }
}
