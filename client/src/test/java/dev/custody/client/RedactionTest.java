package dev.custody.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.client.StubServer.Reply;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The API secret and every signature stay out of messages, toString() and debug lines. */
class RedactionTest {
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

    private List<String> secrets() {
        List<String> out = new ArrayList<>(List.of(Signatures.SECRET));
        for (StubServer.Recorded r : server.requests()) {
            if (r.header("ACCESS-SIGN") != null) {
                out.add(r.header("ACCESS-SIGN"));
                out.add(new String(java.util.Base64.getDecoder().decode(r.header("ACCESS-SIGN"))));
            }
        }
        return out;
    }

    private void assertClean(String text) {
        for (String s : secrets()) {
            assertFalse(text.contains(s), () -> "leaked `" + s + "` in: " + text);
        }
    }

    @Test
    void configAndClientToStringHideTheSecret() {
        CustodyClientConfig config = CustodyClientConfig.builder("https://custody.example/api/v1")
                .credentials("AKIA-1234567890", Signatures.SECRET).build();
        assertEquals("CustodyClientConfig[baseUrl=https://custody.example/api/v1, apiKey=AKIA****, "
                + "apiSecret=[redacted], connectTimeout=PT10S, requestTimeout=PT30S, maxAttempts=3, "
                + "initialBackoff=PT0.5S, maxBackoff=PT5S]", config.toString());
        assertClean(config.toString());
        assertClean(CustodyClient.builder(config).build().toString());
        assertClean(CustodyClientConfig.builder("https://h/api/v1").credentials("k", Signatures.SECRET).toString());
    }

    @Test
    void anErrorThatEchoesTheSecretAndTheSignatureIsRedacted() {
        server.on("GET", "/api/v1/workspaces/w/stats", new Reply(401, ""));
        assertThrows(CustodyApiException.class, () -> client.workspaceStats("w"));
        String signature = server.only().header("ACCESS-SIGN");
        String hex = new String(java.util.Base64.getDecoder().decode(signature));
        server.on("GET", "/api/v1/workspaces/w/stats", new Reply(401, "{\"success\":false,\"code\":40100,"
                + "\"message\":\"bad signature " + signature + " for secret " + Signatures.SECRET + "\","
                + "\"errors\":[\"expected " + hex + "\"]}"));
        CustodyApiException e = assertThrows(CustodyApiException.class, () -> client.workspaceStats("w"));
        // the second attempt has the same timestamp, so the same signature, which the server echoed
        assertEquals("api returned 401 (code 40100): bad signature [redacted] for secret [redacted]", e.getMessage());
        assertEquals(List.of("expected [redacted]"), e.errors());
        assertClean(e.getMessage());
        assertClean(e.toString());
    }

    @Test
    void debugLinesNeverCarryTheSecretOrSignature() {
        server.ok("POST", "/api/v1/networks/rescan-transaction", "null");
        server.on("GET", "/api/v1/policy/schema", new Reply(500, "{\"message\":\"" + Signatures.SECRET + "\"}"),
                new Reply(200, StubServer.envelope("{}")));
        client.rescanTransaction("0xabc", "n-1");
        client.policySchema();
        assertTrue(t.debug.contains("> ACCESS-SIGN: [redacted]"), t.debug::toString);
        assertTrue(t.debug.contains("> ACCESS-API-KEY: key-****"), t.debug::toString);
        assertTrue(t.debug.contains("> ACCESS-TIMESTAMP: " + TestClients.NOW), t.debug::toString);
        assertTrue(t.debug.contains("< body: {\"message\":\"[redacted]\"}"), t.debug::toString);
        assertTrue(t.debug.contains("> body: {\"tx_hash\":\"0xabc\",\"network_id\":\"n-1\"}"), t.debug::toString);
        assertEquals(3, server.requests().size());
        for (String line : t.debug) {
            assertClean(line);
        }
    }
}
