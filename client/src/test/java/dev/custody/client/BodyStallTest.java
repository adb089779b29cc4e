package dev.custody.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The request time-out bounds the whole exchange: a server that sends the response headers at once
 * and then stalls the body no longer holds the caller (java.net.http's own time-out stops at the
 * headers), and the stalled connection is closed, not left open.
 */
class BodyStallTest {
    @ParameterizedTest(name = "chunked body: {0}")
    @ValueSource(booleans = {false, true})
    void aStalledBodyTimesOutWithinTheRequestTimeOutAndTheConnectionIsClosed(boolean chunked) throws Exception {
        try (StallingServer stalling = new StallingServer(chunked, 1)) {
            TestClients t = new TestClients();
            CustodyClient client = t.builder(CustodyClientConfig.builder(stalling.baseUrl())
                    .credentials(Signatures.KEY, Signatures.SECRET).maxAttempts(1)
                    .requestTimeout(Duration.ofMillis(1000)).build()).build();
            long started = System.nanoTime();
            // 60 s bounds a hang (the server never completes the body); it measures nothing
            CustodyTransportException e = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertThrows(
                    CustodyTransportException.class, () -> client.workspaceStats("ws-1")));
            long elapsedMs = (System.nanoTime() - started) / 1_000_000;
            assertEquals("no complete answer from `" + stalling.baseUrl() + "`: the response body did not complete "
                    + "within the 1 s request time-out", e.getMessage());
            assertEquals(1, e.attempts());
            // a lower bound holds on any machine, however busy: the client waited rather than failing at once
            assertTrue(elapsedMs >= 250, "gave up after " + elapsedMs + " ms");
            assertTrue(stalling.closedByClient.await(60, TimeUnit.SECONDS), "the stalled connection was closed");
            assertTrue(t.debug.stream().anyMatch(l -> l.startsWith("! attempt 1/1 failed: the response body did not")),
                    t.debug::toString);
        }
    }

    @ParameterizedTest(name = "chunked body: {0}")
    @ValueSource(booleans = {false, true})
    void anIdempotentRequestRetriesAStalledBodyThenFails(boolean chunked) throws Exception {
        try (StallingServer stalling = new StallingServer(chunked, 3)) {
            TestClients t = new TestClients();
            CustodyClient client = t.builder(CustodyClientConfig.builder(stalling.baseUrl())
                    .credentials(Signatures.KEY, Signatures.SECRET).maxAttempts(3)
                    .requestTimeout(Duration.ofMillis(1000)).build()).build();
            // 60 s bounds a hang (three attempts of a 1 s time-out); it measures nothing
            CustodyTransportException e = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertThrows(
                    CustodyTransportException.class, () -> client.listNetworks(null)));
            assertEquals("no complete answer from `" + stalling.baseUrl() + "`: the response body did not complete "
                    + "within the 1 s request time-out (after 3 attempts)", e.getMessage());
            assertEquals(3, e.attempts());
            assertEquals(3, stalling.accepted.get());
            assertTrue(stalling.closedByClient.await(60, TimeUnit.SECONDS), "every stalled connection was closed");
        }
    }
}
