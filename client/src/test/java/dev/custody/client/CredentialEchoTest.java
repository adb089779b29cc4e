package dev.custody.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.client.EchoCases.Case;
import dev.custody.client.StubServer.Recorded;
import dev.custody.client.StubServer.Reply;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * No credential escapes the client, whatever the server echoes: for generated keys, secrets and
 * answers that embed the key, the secret or the request's own signature ({@link EchoCases}), nothing
 * the client produces (exception messages, {@code toString()}, stack traces with their causes, the
 * {@code errors} list, debug lines, warnings, and the data and message of successful answers) holds
 * 8 or more characters in a row of any of them.
 */
class CredentialEchoTest {
    static final int CASES = 300;

    static StubServer server;
    static HttpClient http;

    @BeforeAll
    static void start() throws Exception {
        server = new StubServer();
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @TestFactory
    Stream<DynamicTest> nothingTheClientProducesHoldsAnEchoedCredential() {
        return EchoCases.cases(CASES).stream().map(c -> DynamicTest.dynamicTest(c.toString(), () -> run(c)));
    }

    private static void run(Case c) throws Exception {
        String path = c.call() == EchoCases.Call.STATS ? "/api/v1/workspaces/ws-" + c.index() + "/stats"
                : "/api/v1/networks/rescan-transaction";
        String method = c.call() == EchoCases.Call.STATS ? "GET" : "POST";
        List<Recorded> seen = new ArrayList<>();
        server.respond(method, path, request -> {
            synchronized (seen) {
                seen.add(request);
            }
            return c.reply(request);
        });
        TestClients t = new TestClients();
        CustodyClient client = t.builder(CustodyClientConfig.builder(server.baseUrl())
                .credentials(c.apiKey(), c.apiSecret()).requestTimeout(Duration.ofSeconds(10)).build())
                .httpClient(http).build();
        List<String> produced = new ArrayList<>();
        try {
            ApiResponse<?> response = c.call() == EchoCases.Call.STATS ? client.workspaceStats("ws-" + c.index())
                    : client.rescanTransaction("0xabc", "n-1");
            produced.add("data: " + response.data());
            produced.add("raw: " + response.raw());
            produced.add("message: " + response.message());
        } catch (CustodyClientException e) {
            produced.add("message: " + e.getMessage());
            produced.add("toString: " + e);
            StringWriter trace = new StringWriter();
            e.printStackTrace(new PrintWriter(trace));
            produced.add("stack trace: " + trace);
            if (e instanceof CustodyApiException api) {
                produced.add("errors: " + api.errors());
                produced.add("server message: " + api.serverMessage());
            }
        }
        produced.addAll(t.debug);
        produced.addAll(t.warnings);
        if (seen.isEmpty()) {
            // only a key that no http header can carry is refused before sending
            assertTrue(produced.get(0).startsWith("message: the api key cannot be sent"), produced::toString);
        }
        List<String> credentials = EchoCases.credentials(c, seen);
        for (String text : produced) {
            EchoCases.assertClean(c, "client output", text, credentials);
        }
    }

    /**
     * The signature of an exchange is hidden in its answer however many other exchanges ran in the
     * meantime: a redactor that remembered the last signatures, and forgot them past a bound, let an
     * echo through once enough concurrent requests had been signed.
     */
    @Test
    void anEchoedSignatureIsHiddenHoweverManyExchangesRunMeanwhile() throws Exception {
        try (StubServer busy = new StubServer(4)) {
            CountDownLatch othersDone = new CountDownLatch(1);
            busy.respond("GET", "/api/v1/workspaces/slow/stats", request -> {
                try {
                    othersDone.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return new Reply(401, "{\"success\":false,\"code\":40100,\"message\":\"bad signature "
                        + request.header("ACCESS-SIGN") + "\"}");
            });
            TestClients t = new TestClients();
            CustodyClient client = t.client(busy.baseUrl());
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                Future<CustodyApiException> slow = pool.submit(() -> {
                    try {
                        client.workspaceStats("slow");
                        return null;
                    } catch (CustodyApiException e) {
                        return e;
                    }
                });
                // the slow request must be signed before the others
                while (busy.requests().isEmpty()) {
                    Thread.sleep(5);
                }
                for (int i = 0; i < 300; i++) {
                    // 300 other signatures (each path signs differently); unscripted, they answer 404
                    try {
                        client.workspaceStats("w" + i);
                    } catch (CustodyApiException expected) {
                        assertEquals(404, expected.httpStatus());
                    }
                }
                othersDone.countDown();
                CustodyApiException e = slow.get(20, TimeUnit.SECONDS);
                String signature = busy.requests().get(0).header("ACCESS-SIGN");
                assertEquals("api returned 401 (code 40100): bad signature [redacted]", e.getMessage());
                assertTrue(!e.getMessage().contains(signature));
            } finally {
                othersDone.countDown();
                pool.shutdownNow();
            }
        }
    }
}
