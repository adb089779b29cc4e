package dev.custody.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.custody.client.StubServer.Reply;
import dev.custody.client.model.AssetQuery;
import dev.custody.client.model.CreateWalletRequest;
import dev.custody.client.model.PolicyQuery;
import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Non-2xx, success:false, malformed answers, retries, connection failures, checks before sending. */
class ErrorMappingTest {
    static final String WS = "ws-1";
    static final String POLICY_PATH = "/api/v1/workspaces/ws-1/policies/p-404";

    StubServer server;
    TestClients t;
    CustodyClient client;

    @BeforeEach
    void start() throws Exception {
        server = new StubServer();
        t = new TestClients();
        client = t.client(server.baseUrl());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void fourHundredEnvelopeWithErrors() {
        server.on("POST", "/api/v1/workspaces/ws-1/policies", new Reply(422, """
                {"success":false,"code":42201,"message":"validation failed",
                 "errors":["name: must be 3 to 100 characters",{"field":"rules[0].condition","message":"unknown field"}]}"""));
        CustodyApiException e = assertThrows(CustodyApiException.class,
                () -> client.createPolicy(WS, new dev.custody.client.model.PolicyDraft("ab", null, "ag", null, null)));
        assertEquals(422, e.httpStatus());
        assertEquals(42201, e.code());
        assertEquals("validation failed", e.serverMessage());
        assertEquals(List.of("name: must be 3 to 100 characters",
                "{\"field\":\"rules[0].condition\",\"message\":\"unknown field\"}"), e.errors());
        assertEquals("api returned 422 (code 42201): validation failed", e.getMessage());
        assertEquals(1, server.requests().size());
    }

    @Test
    void notFoundIsNotRetried() {
        server.on("GET", POLICY_PATH, new Reply(404, "{\"success\":false,\"code\":40401,\"message\":\"policy not found\"}"));
        CustodyApiException e = assertThrows(CustodyApiException.class, () -> client.getPolicy(WS, "p-404"));
        assertEquals("api returned 404 (code 40401): policy not found", e.getMessage());
        assertEquals(List.of(), e.errors());
        assertEquals(1, server.requests().size());
        assertEquals(List.of(), t.time.sleeps());
    }

    @Test
    void successFalseWithHttp200() {
        server.on("GET", POLICY_PATH, new Reply(200, "{\"success\":false,\"code\":10002,\"message\":\"workspace is locked\",\"data\":null}"));
        CustodyApiException e = assertThrows(CustodyApiException.class, () -> client.getPolicy(WS, "p-404"));
        assertEquals(200, e.httpStatus());
        assertEquals(10002, e.code());
        assertEquals("api returned 200 (code 10002): workspace is locked", e.getMessage());
    }

    @Test
    void fiveHundredIsRetriedThenFails() {
        server.on("GET", POLICY_PATH, new Reply(500, "{\"success\":false,\"code\":50000,\"message\":\"internal error\"}"));
        CustodyApiException e = assertThrows(CustodyApiException.class, () -> client.getPolicy(WS, "p-404"));
        assertEquals(500, e.httpStatus());
        assertEquals("api returned 500 (code 50000): internal error", e.getMessage());
        assertEquals(3, server.requests().size());
        assertEquals(List.of(Duration.ofMillis(500), Duration.ofSeconds(1)), t.time.sleeps());
    }

    @Test
    void tooManyRequestsIsRetriedThenSucceeds() {
        server.on("GET", "/api/v1/workspaces/ws-1/policies", new Reply(429, ""), new Reply(200, StubServer.envelope("[]")));
        assertEquals(List.of(), client.listPolicies(WS, PolicyQuery.ALL).data());
        assertEquals(2, server.requests().size());
        assertEquals(List.of(Duration.ofMillis(500)), t.time.sleeps());
    }

    @Test
    void postWithoutIdempotencyKeyIsSentOnce() {
        server.on("POST", "/api/v1/wallets", new Reply(503, "service unavailable"));
        CustodyApiException e = assertThrows(CustodyApiException.class,
                () -> client.createWallet(CreateWalletRequest.of("Ops", "standard")));
        assertEquals("api returned 503: service unavailable", e.getMessage());
        assertNull(e.code());
        assertEquals(1, server.requests().size());
    }

    @Test
    void backoffIsCappedByTheConfig() {
        CustodyClient patient = t.builder(CustodyClientConfig.builder(server.baseUrl())
                .credentials(Signatures.KEY, Signatures.SECRET).maxAttempts(5)
                .backoff(Duration.ofMillis(400), Duration.ofMillis(1000)).build()).build();
        server.on("GET", POLICY_PATH, new Reply(502, ""));
        CustodyApiException e = assertThrows(CustodyApiException.class, () -> patient.getPolicy(WS, "p-404"));
        assertEquals("api returned 502: http status 502", e.getMessage());
        assertEquals(5, server.requests().size());
        assertEquals(List.of(Duration.ofMillis(400), Duration.ofMillis(800), Duration.ofMillis(1000),
                Duration.ofMillis(1000)), t.time.sleeps());
    }

    @Test
    void malformedAnswers() {
        server.on("GET", POLICY_PATH, new Reply(200, "<html>gateway</html>"));
        assertEquals("api returned 200: response is not json: <html>gateway</html>",
                assertThrows(CustodyApiException.class, () -> client.getPolicy(WS, "p-404")).getMessage());
        server.on("GET", POLICY_PATH, new Reply(200, "{\"id\":\"p\"}"));
        assertEquals("api returned 200: response is not an api envelope: {\"id\":\"p\"}",
                assertThrows(CustodyApiException.class, () -> client.getPolicy(WS, "p-404")).getMessage());
        server.on("GET", POLICY_PATH, new Reply(200, StubServer.envelope("[1,2]")));
        CustodyApiException shape = assertThrows(CustodyApiException.class, () -> client.getPolicy(WS, "p-404"));
        assertEquals(200, shape.httpStatus());
        assertEquals(true, shape.getMessage().startsWith("api returned 200: unexpected response shape for `GET /workspaces/ws-1/policies/p-404`: "));
    }

    @Test
    void absentDataIsAnErrorOnlyWhereTheSpecPromisesIt() {
        server.on("GET", POLICY_PATH, new Reply(200, "{\"success\":true,\"code\":0,\"message\":\"ok\"}"));
        CustodyApiException e = assertThrows(CustodyApiException.class, () -> client.getPolicy(WS, "p-404"));
        assertEquals("api returned 200: response to `GET /workspaces/ws-1/policies/p-404` has no data", e.getMessage());

        server.on("DELETE", POLICY_PATH, new Reply(200, "{\"success\":true,\"code\":0,\"message\":\"queued\",\"data\":null}"));
        var deleted = client.deletePolicy(WS, "p-404");
        assertNull(deleted.data());
        assertEquals("queued", deleted.message());

        server.on("GET", "/api/v1/workspaces/ws-1/policies", new Reply(200, StubServer.envelope("null")));
        assertEquals(List.of(), client.listPolicies(WS, PolicyQuery.ALL).data());

        server.on("DELETE", "/api/v1/wallets/w/asset/a", new Reply(204, ""));
        assertNull(client.removeWalletAsset("w", "a").message());
        server.on("DELETE", "/api/v1/workspaces/ws-1/policies/rules/r", new Reply(204, ""));
        assertEquals(true, client.deleteRule(WS, "r").raw().isNull());
    }

    @Test
    void connectionRefusedIsRetriedThenATransportError() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        String base = "http://127.0.0.1:" + port + "/api/v1";
        CustodyClient dead = t.client(base);
        CustodyTransportException e = assertThrows(CustodyTransportException.class, () -> dead.getPolicy(WS, "p"));
        assertEquals("cannot reach `" + base + "`: connection refused (after 3 attempts)", e.getMessage());
        assertEquals(3, e.attempts());
        assertEquals(List.of(Duration.ofMillis(500), Duration.ofSeconds(1)), t.time.sleeps());

        CustodyTransportException once = assertThrows(CustodyTransportException.class,
                () -> dead.createWallet(CreateWalletRequest.of("Ops", "mpc")));
        assertEquals("cannot reach `" + base + "`: connection refused", once.getMessage());
        assertEquals(1, once.attempts());
    }

    @Test
    void requestTimeOutIsATransportError() throws Exception {
        HttpServer silent = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        CountDownLatch release = new CountDownLatch(1);
        silent.createContext("/", exchange -> {
            try {
                release.await();
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
        });
        silent.start();
        try {
            String base = "http://127.0.0.1:" + silent.getAddress().getPort() + "/api/v1";
            CustodyClient impatient = t.builder(CustodyClientConfig.builder(base)
                    .credentials(Signatures.KEY, Signatures.SECRET).maxAttempts(1)
                    .requestTimeout(Duration.ofMillis(200)).build()).build();
            CustodyTransportException e = assertThrows(CustodyTransportException.class, () -> impatient.listNetworks(null));
            assertEquals("cannot reach `" + base + "`: request timed out", e.getMessage());
        } finally {
            release.countDown();
            silent.stop(0);
        }
    }

    @Test
    void boundsAndTronAreRefusedBeforeSending() {
        assertEquals("assets offset `100001` is out of range: it must be between 0 and 100000",
                assertThrows(InvalidRequestException.class,
                        () -> client.listAssets(new AssetQuery(null, null, null, null, 100_001, null))).getMessage());
        assertEquals("assets offset `-1` is out of range: it must be between 0 and 100000",
                assertThrows(InvalidRequestException.class,
                        () -> client.listAssets(new AssetQuery(null, null, null, null, -1, null))).getMessage());
        assertEquals("assets limit `1001` is out of range: it must be between 1 and 1000",
                assertThrows(InvalidRequestException.class,
                        () -> client.listAssets(new AssetQuery(null, null, null, null, null, 1001))).getMessage());
        assertEquals("assets limit `0` is out of range: it must be between 1 and 1000",
                assertThrows(InvalidRequestException.class,
                        () -> client.listAssets(new AssetQuery(null, null, null, null, null, 0))).getMessage());
        assertEquals("address type `tron` is not available yet for deposit addresses: use `evm` or `sol`",
                assertThrows(InvalidRequestException.class, () -> client.depositAddress("w", "a", "tron")).getMessage());
        assertEquals("address type `btc` is not supported: use `evm` or `sol`",
                assertThrows(InvalidRequestException.class, () -> client.depositAddress("w", "a", "btc")).getMessage());
        assertEquals(List.of(), server.requests());
    }

    @Test
    void missingCredentialsAreRefusedBeforeSendingButPublicEndpointsWork() {
        CustodyClient anonymous = t.builder(CustodyClientConfig.builder(server.baseUrl()).build()).build();
        assertEquals("missing api credentials for `GET /workspaces/ws-1/stats`: set `CUSTODY_API_KEY` and `CUSTODY_API_SECRET`",
                assertThrows(InvalidRequestException.class, () -> anonymous.workspaceStats(WS)).getMessage());
        assertEquals(List.of(), server.requests());
        server.ok("GET", "/api/v1/networks", "[]");
        assertEquals(List.of(), anonymous.listNetworks(null).data());
        assertNull(server.only().header("ACCESS-API-KEY"));
    }

    @Test
    void configIsValidated() {
        assertEquals("base url `ftp://x/api/v1` must start with http:// or https://",
                assertThrows(IllegalArgumentException.class, () -> CustodyClientConfig.builder("ftp://x/api/v1").build())
                        .getMessage());
        assertEquals("max attempts must be between 1 and 10, got 0",
                assertThrows(IllegalArgumentException.class,
                        () -> CustodyClientConfig.builder("http://h/api/v1").maxAttempts(0).build()).getMessage());
    }
}
