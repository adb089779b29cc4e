package dev.custody.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.custody.cli.Cli;
import dev.custody.cli.CliEnvironment;
import dev.custody.cli.ExitCode;
import dev.custody.cli.Fixtures;
import dev.custody.cli.main.Custody;
import dev.custody.client.Signatures;
import dev.custody.client.StubServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code custody serve} in-process, over real sockets on 127.0.0.1 with the JDK's {@link HttpClient}: records equal
 * replay's, every status code, auth, hot reload, the decision log, metrics, {@code --from-api}, and stalled clients.
 * The SIGTERM drain of a real process is {@link dev.custody.cli.ServeJarIT}.
 */
class ServeCommandTest {
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    static final ObjectMapper JSON = new ObjectMapper();
    /** The revision of {@link Fixtures#LIMITS_YAML}, as replay reports it. */
    static final String LIMITS_REVISION = "e44fe297c984784c";

    @TempDir
    Path dir;

    private final List<ServeCommand.Running> started = new ArrayList<>();
    private StringWriter err;

    @AfterEach
    void stopAll() throws Exception {
        for (ServeCommand.Running r : started) {
            r.stop();
        }
    }

    // ------------------------------------------------------------------ helpers

    private ServeCommand.Running serve(String... args) throws Exception {
        return serve(null, args);
    }

    private ServeCommand.Running serve(Map<String, String> env, String... args) throws Exception {
        err = new StringWriter();
        CliEnvironment environment = new CliEnvironment(InputStream.nullInputStream(), new PrintWriter(new StringWriter()),
                new PrintWriter(err, true), Clock.systemUTC(), false, false);
        CommandLine cl = Custody.commandLine(environment, "serve");
        List<String> full = new ArrayList<>(List.of("serve"));
        if (!List.of(args).contains("--addr")) {
            full.addAll(List.of("--addr", "127.0.0.1:0"));
        }
        full.addAll(List.of(args));
        CommandLine.ParseResult parsed = cl.parseArgs(full.toArray(String[]::new));
        ServeCommand command = (ServeCommand) parsed.subcommand().commandSpec().userObject();
        if (env != null) {
            command.env = env::get;
        }
        ServeCommand.Running running = command.start();
        started.add(running);
        return running;
    }

    private String limits() throws IOException {
        return Files.writeString(dir.resolve("limits.yaml"), Fixtures.LIMITS_YAML).toString();
    }

    static HttpResponse<String> send(ServeCommand.Running r, String method, String path, String body, String... headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(r.uri().resolve(path)).timeout(Duration.ofSeconds(20))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> post(ServeCommand.Running r, String path, String body, String... headers) throws Exception {
        return send(r, "POST", path, body, headers);
    }

    static HttpResponse<String> get(ServeCommand.Running r, String path, String... headers) throws Exception {
        return send(r, "GET", path, null, headers);
    }

    /** A record without what differs between two runs: its time, and the server's decision id. */
    static String comparable(String record) {
        return record.replaceAll(",\"elapsed_us\":\\d+", "").replaceAll(",\"decision_id\":\"[0-9a-f-]{36}\"", "");
    }

    static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos(); // bounds a hang
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            Thread.sleep(10);
        }
    }

    static double changes(ServeCommand.Running r) {
        return r.registry().get("custody.serve.policy.changes").counter().count();
    }

    // ------------------------------------------------------------------ agreement with replay

    @Test
    void recordsAreReplaysOnTheExampleStreamOneByOneAndInABatch() throws Exception {
        Cli.Result replay = Cli.run("replay", "--policies", "../examples/policies", "--actions",
                "../examples/actions/stream.jsonl", "--velocity", "given", "--format", "jsonl");
        assertEquals(ExitCode.OK, replay.exit(), replay.err());
        List<String> expected = replay.outLines();
        List<String> actions = Files.readAllLines(Path.of("../examples/actions/stream.jsonl")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("{\"event\"")).toList();
        assertEquals(1200, actions.size());
        assertEquals(actions.size(), expected.size());

        ServeCommand.Running r = serve("--policies", "../examples/policies");
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < actions.size(); i++) {
            HttpResponse<String> res = post(r, "/v1/decisions", actions.get(i));
            assertEquals(200, res.statusCode(), res.body());
            assertEquals("application/json", res.headers().firstValue("content-type").orElse(""));
            // byte for byte replay's record, decision_id added last
            assertTrue(res.body().matches("\\{.*,\"elapsed_us\":\\d+,\"decision_id\":\"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-"
                    + "[89ab][0-9a-f]{3}-[0-9a-f]{12}\"}"), res.body());
            assertEquals(comparable(expected.get(i)), comparable(res.body()), "line " + (i + 1));
            assertTrue(ids.add(JSON.readTree(res.body()).get("decision_id").asText()));
        }

        HttpResponse<String> batch = post(r, "/v1/decisions/batch", "[" + String.join(",\n", actions) + "]");
        assertEquals(200, batch.statusCode(), batch.body());
        JsonNode records = JSON.readTree(batch.body());
        assertEquals(actions.size(), records.size());
        for (int i = 0; i < actions.size(); i++) {
            ObjectNode got = (ObjectNode) records.get(i);
            assertTrue(ids.add(got.remove("decision_id").asText()));
            assertEquals(comparable(expected.get(i)), comparable(JSON.writeValueAsString(got)), "batch element " + (i + 1));
        }
    }

    @Test
    void aMalformedActionThatIsAnObjectIsReplaysMalformedRecord() throws Exception {
        String line = "{\"id\": \"m-1\", \"action\": \"withdrawal.nope\"}";
        Cli.Result replay = Cli.runWithInput(line + "\n", "replay", "--policies", limits(), "--actions", "-",
                "--velocity", "given", "--format", "jsonl");
        assertEquals(ExitCode.INPUT, replay.exit());
        ServeCommand.Running r = serve("--policies", limits());
        HttpResponse<String> res = post(r, "/v1/decisions", line);
        assertEquals(200, res.statusCode());
        assertEquals(comparable(replay.outLines().get(0)), comparable(res.body()));
        assertTrue(res.body().startsWith("{\"id\":\"m-1\",\"action\":null,\"decision\":\"DENY\","), res.body());
        assertTrue(res.body().contains("\"failure\":\"malformed_action\""), res.body());

        // in a batch, `line` is the element's position
        HttpResponse<String> batch = post(r, "/v1/decisions/batch",
                "[" + Fixtures.withdrawal("a-1", 20000, false) + ", " + line + "]");
        assertEquals(200, batch.statusCode());
        JsonNode second = JSON.readTree(batch.body()).get(1);
        assertEquals(2, second.get("line").asInt());
        assertEquals("DENY", second.get("decision").asText());
        assertEquals("DENY", JSON.readTree(batch.body()).get(0).get("decision").asText());
        assertEquals("big", JSON.readTree(batch.body()).get(0).get("rule_id").asText());
    }

    // ------------------------------------------------------------------ status codes

    @Test
    void everyStatusCode() throws Exception {
        ServeCommand.Running r = serve("--policies", limits());
        HttpResponse<String> ok = post(r, "/v1/decisions", Fixtures.withdrawal("a-1", 20000, false));
        assertEquals(200, ok.statusCode());
        assertTrue(ok.body().startsWith("{\"id\":\"a-1\",\"action\":\"withdrawal.create\",\"decision\":\"DENY\","
                + "\"policy_id\":\"limits\",\"rule_id\":\"big\",\"reason\":\"above $10,000\",\"fail_closed\":false,"
                + "\"failure\":null,\"error\":null,\"bundle_revision\":\"" + LIMITS_REVISION + "\",\"elapsed_us\":"), ok.body());

        for (String body : List.of("[1]", "", "not json", "{\"id\": ", "{} {}", "\"text\"")) {
            HttpResponse<String> bad = post(r, "/v1/decisions", body);
            assertEquals(400, bad.statusCode(), body);
            assertTrue(JSON.readTree(bad.body()).get("error").asText().startsWith("the body is not a JSON object: "),
                    bad.body());
        }
        HttpResponse<String> settled = post(r, "/v1/decisions", "{\"event\": \"withdrawal.settled\", \"wallet_id\": \""
                + Fixtures.WALLET + "\", \"workspace_id\": \"" + Fixtures.WORKSPACE + "\", \"network_code\": \"ETHEREUM_MAINNET\", "
                + "\"value_usd\": 10.0, \"status\": \"executed\", \"at\": \"2026-11-03T14:05:00Z\"}");
        assertEquals(400, settled.statusCode());
        assertEquals("{\"error\":\"a `withdrawal.settled` record is not an action: the server decides actions as given "
                + "and keeps no velocity ledger (start it with `--ledger`)\"}", settled.body());

        assertEquals(Map.of(400, "{\"error\":\"the body is not a JSON array of actions\"}"),
                Map.of(post(r, "/v1/decisions/batch", "{}").statusCode(), post(r, "/v1/decisions/batch", "{}").body()));
        assertEquals("{\"error\":\"element 2 of the batch is not a JSON object\"}",
                post(r, "/v1/decisions/batch", "[{}, 3]").body());
        assertEquals(400, post(r, "/v1/decisions/batch", "[{}, 3]").statusCode());
        assertEquals(400, post(r, "/v1/decisions/batch", "[{}] x").statusCode());
        HttpResponse<String> empty = post(r, "/v1/decisions/batch", "[]");
        assertEquals(200, empty.statusCode());
        assertEquals("[]", empty.body());

        // 1 MiB is the limit: exactly 1 MiB is read, one byte more is 413, by Content-Length or chunked
        String action = Fixtures.withdrawal("big-1", 20000, false);
        String atLimit = action + " ".repeat(DecisionHandler.MAX_BODY - action.length());
        assertEquals(200, post(r, "/v1/decisions", atLimit).statusCode());
        HttpResponse<String> tooLarge = post(r, "/v1/decisions", atLimit + " ");
        assertEquals(413, tooLarge.statusCode());
        assertEquals("{\"error\":\"the request body is larger than 1048576 bytes (1 MiB)\"}", tooLarge.body());
        byte[] chunked = (atLimit + " ").getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> chunkedRes = HTTP.send(HttpRequest.newBuilder(r.uri().resolve("/v1/decisions/batch"))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(chunked))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(413, chunkedRes.statusCode());

        HttpResponse<String> getDecisions = get(r, "/v1/decisions");
        assertEquals(405, getDecisions.statusCode());
        assertEquals("POST", getDecisions.headers().firstValue("allow").orElse(""));
        assertEquals("{\"error\":\"method GET is not allowed on `/v1/decisions`; use POST\"}", getDecisions.body());
        HttpResponse<String> putMetrics = send(r, "PUT", "/metrics", "x");
        assertEquals(405, putMetrics.statusCode());
        assertEquals("GET, HEAD", putMetrics.headers().firstValue("allow").orElse(""));
        assertEquals(405, send(r, "DELETE", "/health", null).statusCode());

        assertEquals(404, post(r, "/v1/decision", action).statusCode());
        HttpResponse<String> root = get(r, "/");
        assertEquals(404, root.statusCode());
        assertTrue(root.body().startsWith("{\"error\":\"no route `/`; the routes are POST /v1/decisions,"), root.body());

        assertEquals(200, get(r, "/health").statusCode());
        assertEquals("{\"status\":\"ok\"}", get(r, "/health").body());
        assertEquals(200, get(r, "/ready").statusCode());
        assertEquals(200, send(r, "HEAD", "/health", null).statusCode());
    }

    @Test
    void notReadyWhileThePolicyFilesDoNotReadAndEveryActionIsDenied() throws Exception {
        Path broken = Files.writeString(dir.resolve("broken.yaml"), "id: broken\nrules: [\n");
        ServeCommand.Running r = serve("--policies", broken.toString());
        HttpResponse<String> ready = get(r, "/ready");
        assertEquals(503, ready.statusCode());
        assertEquals("{\"status\":\"not ready\",\"error\":\"the policy source has not answered yet\"}", ready.body());
        assertEquals(200, get(r, "/health").statusCode());
        JsonNode d = JSON.readTree(post(r, "/v1/decisions", Fixtures.withdrawal("a-1", 5, true)).body());
        assertEquals("DENY", d.get("decision").asText());
        assertTrue(d.get("fail_closed").asBoolean());
        assertEquals("load", d.get("failure").asText());
        assertTrue(err.toString().startsWith("error: the policies could not be loaded; actions are denied (fail_closed): "),
                err.toString());

        // fixing the file makes the server ready, and the next decision is taken on it
        Files.writeString(broken, Fixtures.LIMITS_YAML);
        awaitTrue(() -> changes(r) >= 1, "the file change");
        JsonNode fixed = JSON.readTree(post(r, "/v1/decisions", Fixtures.withdrawal("a-2", 5, true)).body());
        assertEquals("ALLOW", fixed.get("decision").asText());
        assertEquals(200, get(r, "/ready").statusCode());
    }

    @Test
    void aBodyThatStopsArrivingIsAnswered408() throws Exception {
        ServeCommand.Running r = serve("--policies", limits(), "--read-timeout", "300ms");
        try (Socket s = new Socket("127.0.0.1", r.uri().getPort())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST /v1/decisions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 50\r\n\r\n{\"id\":").getBytes(
                    StandardCharsets.US_ASCII));
            out.flush();
            String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(response.startsWith("HTTP/1.1 408 "), response);
            assertTrue(response.endsWith("{\"error\":\"the request body did not arrive within 300 ms\"}"), response);
        }
    }

    // ------------------------------------------------------------------ auth

    @Test
    void aTokenIsNeededEverywhereButHealthAndReady() throws Exception {
        Path token = Files.writeString(dir.resolve("token"), "s3cret-Token_1\n");
        ServeCommand.Running r = serve("--policies", limits(), "--token-file", token.toString());
        String action = Fixtures.withdrawal("a-1", 20000, false);
        HttpResponse<String> none = post(r, "/v1/decisions", action);
        assertEquals(401, none.statusCode());
        assertEquals("Bearer", none.headers().firstValue("www-authenticate").orElse(""));
        assertEquals("{\"error\":\"missing or wrong bearer token\"}", none.body());
        for (String wrong : List.of("Bearer s3cret-Token_2", "Bearer s3cret-Token_", "Bearer s3cret-Token_1x",
                "Basic s3cret-Token_1", "s3cret-Token_1", "Bearer ")) {
            assertEquals(401, post(r, "/v1/decisions", action, "Authorization", wrong).statusCode(), wrong);
        }
        assertEquals(200, post(r, "/v1/decisions", action, "Authorization", "Bearer s3cret-Token_1").statusCode());
        assertEquals(200, post(r, "/v1/decisions/batch", "[" + action + "]", "Authorization", "bearer s3cret-Token_1")
                .statusCode());
        assertEquals(401, get(r, "/metrics").statusCode());
        assertEquals(200, get(r, "/metrics", "Authorization", "Bearer s3cret-Token_1").statusCode());
        assertEquals(401, get(r, "/nope").statusCode(), "unknown paths do not reveal themselves without the token");
        assertEquals(404, get(r, "/nope", "Authorization", "Bearer s3cret-Token_1").statusCode());
        assertEquals(200, get(r, "/health").statusCode());
        assertEquals(200, get(r, "/ready").statusCode());
    }

    @Test
    void aNonLoopbackAddressNeedsAToken() throws Exception {
        Cli.Result refused = Cli.run("serve", "--policies", limits(), "--addr", "0.0.0.0:0");
        assertEquals(ExitCode.USAGE, refused.exit());
        assertEquals("error: refusing to listen on `0.0.0.0:0` without `--token-file`: an address other than loopback "
                + "needs bearer auth\n", refused.err().lines().findFirst().orElse("") + "\n");
        Path empty = Files.writeString(dir.resolve("empty"), " \n");
        Cli.Result bad = Cli.run("serve", "--policies", limits(), "--token-file", empty.toString());
        assertEquals(ExitCode.INPUT, bad.exit());
        assertTrue(bad.err().startsWith("error: bad token file `" + empty + "`: the token file is empty"), bad.err());
        Cli.Result both = Cli.run("serve", "--policies", limits(), "--from-api");
        assertEquals(ExitCode.USAGE, both.exit());
        assertTrue(both.err().startsWith("error: give either `--policies PATH…` or `--from-api`"), both.err());
        Cli.Result badAddr = Cli.run("serve", "--policies", limits(), "--addr", "localhost");
        assertEquals(ExitCode.USAGE, badAddr.exit());
        assertTrue(badAddr.err().startsWith("error: `--addr` must be HOST:PORT, got `localhost`"), badAddr.err());

        // with a token, any address is allowed
        Path token = Files.writeString(dir.resolve("token"), "t0ken");
        ServeCommand.Running r = serve("--policies", limits(), "--token-file", token.toString(), "--addr", "0.0.0.0:0");
        HttpResponse<String> res = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + r.uri().getPort()
                + "/health")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, res.statusCode());
    }

    @Test
    void tokensCompare() {
        BearerToken t = BearerToken.of("abc\n");
        assertTrue(t.allows("Bearer abc"));
        assertTrue(t.allows("bearer abc"));
        assertTrue(!t.allows("Bearer abd") && !t.allows("Bearer ab") && !t.allows("Bearer abcd") && !t.allows(null)
                && !t.allows("abc") && !t.allows(""));
    }

    @Test
    void addressesAreHostAndPortAndLoopbackOnlyWhenEveryAddressIs() {
        assertEquals(new ServeCommand.Address("127.0.0.1", 8181, true), ServeCommand.Address.parse("127.0.0.1:8181"));
        assertEquals(new ServeCommand.Address("::1", 0, true), ServeCommand.Address.parse("[::1]:0"));
        assertEquals(new ServeCommand.Address("localhost", 80, true), ServeCommand.Address.parse("localhost:80"));
        assertEquals(new ServeCommand.Address("0.0.0.0", 8181, false), ServeCommand.Address.parse("0.0.0.0:8181"));
        assertEquals(new ServeCommand.Address("::", 8181, false), ServeCommand.Address.parse("[::]:8181"));
        for (String bad : List.of("8181", ":8181", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:x")) {
            dev.custody.cli.CliException e = org.junit.jupiter.api.Assertions.assertThrows(dev.custody.cli.CliException.class,
                    () -> ServeCommand.Address.parse(bad), bad);
            assertEquals(ExitCode.USAGE, e.exitCode(), bad);
        }
    }

    // ------------------------------------------------------------------ hot reload

    @Test
    void theRequestAfterAnEditIsDecidedOnTheEditedFileUnderItsNewRevision() throws Exception {
        Path file = Path.of(limits());
        ServeCommand.Running r = serve("--policies", dir.toString());
        String action = Fixtures.withdrawal("a-1", 20000, false);
        JsonNode before = JSON.readTree(post(r, "/v1/decisions", action).body());
        assertEquals("DENY", before.get("decision").asText());
        assertEquals(LIMITS_REVISION, before.get("bundle_revision").asText());

        String edited = Fixtures.LIMITS_YAML.replace("withdrawal.value_usd > 10000", "withdrawal.value_usd > 50000");
        Files.writeString(file, edited);
        awaitTrue(() -> changes(r) >= 1, "the watcher to see the edit");
        HttpResponse<String> after = post(r, "/v1/decisions", action);
        JsonNode a = JSON.readTree(after.body());
        assertEquals("NO_MATCH", a.get("decision").asText(), after.body());
        assertNotEquals(LIMITS_REVISION, a.get("bundle_revision").asText());
        // and exactly what replay says on the edited file
        Cli.Result replay = Cli.runWithInput(action + "\n", "replay", "--policies", file.toString(), "--actions", "-",
                "--velocity", "given", "--format", "jsonl");
        assertEquals(comparable(replay.outLines().get(0)), comparable(after.body()));

        // a new file in the watched directory counts too
        double seen = changes(r);
        Files.writeString(dir.resolve("more.yaml"), Fixtures.LIMITS_YAML.replace("id: limits", "id: more"));
        awaitTrue(() -> changes(r) > seen, "the watcher to see the new file");
        JsonNode more = JSON.readTree(post(r, "/v1/decisions", action).body());
        assertEquals("DENY", more.get("decision").asText());
        assertEquals("more", more.get("policy_id").asText());
    }

    // ------------------------------------------------------------------ decision log and metrics

    @Test
    void theDecisionLogHoldsEveryDecisionAndReplaysClean() throws Exception {
        String policies = limits();
        Path log = dir.resolve("log/decisions.jsonl");
        ServeCommand.Running r = serve("--policies", policies, "--decision-log", log.toString());
        post(r, "/v1/decisions", Fixtures.withdrawal("a-1", 20000, false));
        post(r, "/v1/decisions/batch", "[" + Fixtures.withdrawal("a-2", 5, true) + "," + Fixtures.withdrawal("a-3", 5, false) + "]");
        r.stop();
        started.remove(r);
        List<String> lines = Files.readAllLines(log);
        assertEquals(3, lines.size(), lines.toString());
        JsonNode first = JSON.readTree(lines.get(0));
        assertEquals(List.of("decided_at", "workspace_id", "bundle_revision", "decision", "action"),
                iterate(first.fieldNames()));
        assertEquals(Fixtures.WORKSPACE.toLowerCase(), first.get("workspace_id").asText());
        assertEquals(LIMITS_REVISION, first.get("bundle_revision").asText());
        assertEquals("a-1", first.get("decision").get("id").asText());
        assertEquals("DENY", first.get("decision").get("decision").asText());
        assertEquals("big", first.get("decision").get("rule_id").asText());
        assertEquals("a-1", first.get("action").get("id").asText());
        assertEquals(List.of("a-1", "a-2", "a-3"), lines.stream().map(l -> read(l).get("decision").get("id").asText()).toList());
        assertEquals(List.of("DENY", "ALLOW", "NO_MATCH"),
                lines.stream().map(l -> read(l).get("decision").get("decision").asText()).toList());
        Cli.Result audit = Cli.run("replay", "--from-log", log.toString(), "--policies", policies);
        assertEquals(ExitCode.OK, audit.exit(), audit.toString());
    }

    @Test
    void metricsHaveTheEngineMetersAndRequestsPerRouteAndStatus() throws Exception {
        ServeCommand.Running r = serve("--policies", limits());
        post(r, "/v1/decisions", Fixtures.withdrawal("a-1", 20000, false));
        post(r, "/v1/decisions", Fixtures.withdrawal("a-2", 5, true));
        post(r, "/v1/decisions/batch", "[" + Fixtures.withdrawal("a-3", 5, false) + "]");
        post(r, "/v1/decisions", "[]");
        get(r, "/nowhere");
        get(r, "/metrics");
        HttpResponse<String> m = get(r, "/metrics");
        assertEquals(200, m.statusCode());
        assertEquals("text/plain; version=0.0.4; charset=utf-8", m.headers().firstValue("content-type").orElse(""));
        List<String> lines = m.body().lines().toList();
        for (String expected : List.of(
                "custody_decisions_total{action=\"withdrawal.create\",failure=\"none\",outcome=\"deny\"} 1.0",
                "custody_decisions_total{action=\"withdrawal.create\",failure=\"none\",outcome=\"allow\"} 1.0",
                "custody_decisions_total{action=\"withdrawal.create\",failure=\"none\",outcome=\"no_match\"} 1.0",
                "custody_rule_matches_total{outcome=\"deny\",policy=\"limits\",rule=\"big\"} 1.0",
                "custody_bundle_loads_total{result=\"compiled\"} 1.0",
                "custody_decision_duration_seconds_count 3",
                "http_server_requests_seconds_count{method=\"POST\",outcome=\"SUCCESS\",status=\"200\",uri=\"/v1/decisions\"} 2",
                "http_server_requests_seconds_count{method=\"POST\",outcome=\"SUCCESS\",status=\"200\",uri=\"/v1/decisions/batch\"} 1",
                "http_server_requests_seconds_count{method=\"POST\",outcome=\"CLIENT_ERROR\",status=\"400\",uri=\"/v1/decisions\"} 1",
                "http_server_requests_seconds_count{method=\"GET\",outcome=\"CLIENT_ERROR\",status=\"404\",uri=\"NOT_FOUND\"} 1",
                "http_server_requests_seconds_count{method=\"GET\",outcome=\"SUCCESS\",status=\"200\",uri=\"/metrics\"} 1")) {
            assertTrue(lines.contains(expected), expected + "\n" + m.body());
        }
    }

    // ------------------------------------------------------------------ --from-api

    @Test
    void fromApiDecidesOnTheFetchedPoliciesAndPicksUpAChange() throws Exception {
        String ws = Fixtures.WORKSPACE.toLowerCase();
        String base = "/api/v1/workspaces/" + ws + "/policies";
        String p1 = "0d1c2b3a-0000-4000-8000-0000000000a1";
        AtomicReference<String> threshold = new AtomicReference<>("10000");
        try (StubServer api = new StubServer()) {
            api.ok("GET", base, "[{\"id\":\"" + p1 + "\"}]");
            api.respond("GET", base + "/" + p1, q -> new StubServer.Reply(200, StubServer.envelope("""
                    {"id":"%s","name":"Large withdrawals","approval_group_id":"9b2f6c1e-0000-4000-8000-000000000001",
                     "wallet_ids":[],"status":"active","version":3,"workspace_id":"%s",
                     "rules":[{"rule_id":"r1","trigger_action":"withdrawal.create",
                               "condition":"withdrawal.value_usd > %s","effect":"DENY","description":"too large",
                               "is_enabled":true}]}""".formatted(p1, ws, threshold.get()))));
            ServeCommand.Running r = serve(Map.of("CUSTODY_API_KEY", Signatures.KEY, "CUSTODY_API_SECRET", Signatures.SECRET),
                    "--from-api", "--workspace-id", ws, "--base-url", api.baseUrl(), "--poll-interval", "100ms");
            awaitTrue(() -> {
                try {
                    return get(r, "/ready").statusCode() == 200;
                } catch (Exception e) {
                    return false;
                }
            }, "the first fetch");
            String action = Fixtures.withdrawal("a-1", 20000, false);
            JsonNode first = JSON.readTree(post(r, "/v1/decisions", action).body());
            assertEquals("DENY", first.get("decision").asText());
            assertEquals("r1", first.get("rule_id").asText());
            assertEquals(p1, first.get("policy_id").asText());

            double seen = changes(r);
            threshold.set("50000");
            awaitTrue(() -> changes(r) > seen, "the poll to see the change");
            JsonNode second = JSON.readTree(post(r, "/v1/decisions", action).body());
            assertEquals("NO_MATCH", second.get("decision").asText());
            assertNotEquals(first.get("bundle_revision").asText(), second.get("bundle_revision").asText());

            JsonNode other = JSON.readTree(post(r, "/v1/decisions",
                    Fixtures.withdrawal("a-2", "11111111-2222-4333-8444-555555555555", 20000, false)).body());
            assertEquals("DENY", other.get("decision").asText());
            assertEquals("load", other.get("failure").asText());
            api.requests().forEach(q -> Signatures.assertSigned(q, q.header("ACCESS-TIMESTAMP") == null ? 0
                    : Long.parseLong(q.header("ACCESS-TIMESTAMP"))));
        }
    }

    // ------------------------------------------------------------------ stalled clients

    /** Half a request line and headers, or headers and half a body: a client that stalls. */
    private static List<Socket> stall(ServeCommand.Running r, int n) throws IOException {
        List<Socket> stalled = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Socket s = new Socket("127.0.0.1", r.uri().getPort());
            stalled.add(s);
            String half = i % 2 == 0 ? "POST /v1/decisions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le"
                    : "POST /v1/decisions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 400\r\n\r\n{\"id\":";
            s.getOutputStream().write(half.getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
        }
        return stalled;
    }

    /**
     * More stalled connections than the server has threads, and every other request is served while they are all
     * still connected: with an idle time-out of a minute, nothing is cut during the test, and each stalled socket
     * is shown open afterwards (a read finds no data and no end of stream). Nothing is timed: a busy machine
     * serves later, never differently.
     */
    @Test
    void stalledClientsHoldNoThreadOthersAreServed() throws Exception {
        ServeCommand.Running r = serve("--policies", limits(), "--idle-timeout", "60s", "--read-timeout", "60s",
                "--max-threads", "8");
        List<Socket> stalled = new ArrayList<>();
        try {
            stalled.addAll(stall(r, 12));
            for (int i = 0; i < 40; i++) {
                HttpResponse<String> res = post(r, "/v1/decisions", Fixtures.withdrawal("a-" + i, 20000, false));
                assertEquals(200, res.statusCode());
            }
            for (Socket s : stalled) {
                s.setSoTimeout(1);
                assertThrows(java.net.SocketTimeoutException.class, () -> s.getInputStream().read(),
                        "a stalled client is still connected, unanswered");
            }
        } finally {
            for (Socket s : stalled) {
                s.close();
            }
        }
        assertEquals(200, get(r, "/health").statusCode());
    }

    /**
     * The idle time-out cuts stalled clients: one stopped in its body is answered 408 with Jetty's words for the
     * time-out, one stopped in its headers is closed. Not before the time-out (a lower bound, true on any machine:
     * the clock was read before the sockets opened); the socket's 60 s read time-out bounds a hang.
     */
    @Test
    void stalledClientsAreCutByTheIdleTimeOut() throws Exception {
        ServeCommand.Running r = serve("--policies", limits(), "--idle-timeout", "1500ms", "--read-timeout", "30s",
                "--max-threads", "8");
        long opened = System.nanoTime();
        List<Socket> stalled = new ArrayList<>();
        try {
            stalled.addAll(stall(r, 4));
            for (int i = 0; i < stalled.size(); i++) {
                Socket s = stalled.get(i);
                s.setSoTimeout(60_000);
                byte[] rest = s.getInputStream().readAllBytes(); // returns at the server's close
                String text = new String(rest, StandardCharsets.US_ASCII);
                if (i % 2 == 1) {
                    // a request whose body stopped: answered 408 and closed
                    assertTrue(text.startsWith("HTTP/1.1 408 "), text);
                    assertTrue(text.matches("(?s).*\\{\"error\":\"the request body stopped arriving: Idle timeout expired: "
                            + "\\d+/1500 ms\"}"), text);
                } else {
                    // stalled in its headers, it never became a request: Jetty closes it (with or without a 4xx)
                    assertTrue(text.isEmpty() || text.startsWith("HTTP/1.1 4"), text);
                }
            }
            long cut = System.nanoTime() - opened;
            assertTrue(cut >= Duration.ofMillis(1400).toNanos(), "cut by the time-out, not at once: " + cut);
        } finally {
            for (Socket s : stalled) {
                s.close();
            }
        }
        assertEquals(200, get(r, "/health").statusCode());
    }

    private static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<String> iterate(java.util.Iterator<String> it) {
        List<String> out = new ArrayList<>();
        it.forEachRemaining(out::add);
        return out;
    }
}
