package dev.custody.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.custody.client.StubServer.Recorded;
import dev.custody.client.StubServer.Reply;
import dev.custody.client.model.SignMessageRequest;
import dev.custody.client.model.SignSubmission;
import dev.custody.client.model.SignatureStatus;
import dev.custody.client.model.TransactionStatus;
import dev.custody.client.model.WalletCreationStatus;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Web3 signing, idempotency keys and status polling against a fake clock (no real sleep). */
class SigningAndPollingTest {
    static final String W = "w-1";
    static final String SIGN = "/api/v1/web3/" + W + "/sign";
    static final String SIGN_STATUS = SIGN + "/tx-1";
    static final String RAW = "/api/v1/web3/transaction/" + W + "/signRaw";
    static final String RAW_STATUS = "/api/v1/web3/transaction/" + W + "/tx-9";

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

    private static Reply ok(String data) {
        return new Reply(200, StubServer.envelope(data));
    }

    private static Reply status(String status, String extra) {
        return ok("{\"transaction_id\":\"tx-1\",\"status\":\"" + status + "\"" + extra
                + ",\"approvals\":[{\"user_id\":\"u1\",\"status\":\"approved\"}]}");
    }

    private long count(String method, String path) {
        return server.requests().stream().filter(r -> r.method().equals(method) && r.path().equals(path)).count();
    }

    @Test
    void signSendsTheBodyAndAGeneratedIdempotencyKey() {
        server.on("POST", SIGN, ok("{\"transaction_id\":\"tx-1\"}"));
        SignSubmission s = client.sign(W, SignMessageRequest.ethSign("hello", 1), null);
        assertEquals(new SignSubmission("tx-1", "idem-1"), s);
        Recorded r = server.only();
        assertEquals("{\"method\":\"eth_sign\",\"message\":\"hello\",\"chain_id\":1}", r.body());
        assertEquals("application/json", r.header("Content-Type"));
        assertEquals("idem-1", r.header("X-Idempotency-Key"));
        Signatures.assertSigned(r, TestClients.NOW);
    }

    @Test
    void typedDataAndSolanaBodies() {
        server.on("POST", SIGN, new Reply(200, "{\"transaction_id\":\"tx-2\"}"));
        assertEquals("tx-2", client.sign(W, SignMessageRequest.typedDataV4("{\"domain\":{}}", 137), "k1").transactionId());
        client.sign(W, SignMessageRequest.solanaSignMessage("gm"), "k2");
        List<Recorded> all = server.requests();
        assertEquals("{\"method\":\"eth_signTypedData_v4\",\"message\":\"\",\"chain_id\":137,"
                + "\"typed_data\":\"{\\\"domain\\\":{}}\"}", all.get(0).body());
        assertEquals("k1", all.get(0).header("X-Idempotency-Key"));
        assertEquals("{\"method\":\"solana_signMessage\",\"message\":\"gm\",\"chain_id\":0}", all.get(1).body());
        assertEquals("k2", all.get(1).header("X-Idempotency-Key"));
    }

    @Test
    void signRetriesOn503WithTheSameKeyAndAFreshSignature() {
        server.on("POST", SIGN, new Reply(503, "{\"success\":false,\"code\":50300,\"message\":\"busy\"}"),
                new Reply(502, ""), ok("{\"transaction_id\":\"tx-1\"}"));
        SignSubmission s = client.sign(W, SignMessageRequest.ethSign("hi", 1), null);
        assertEquals("tx-1", s.transactionId());
        List<Recorded> all = server.requests();
        assertEquals(3, all.size());
        for (Recorded r : all) {
            assertEquals("idem-1", r.header("X-Idempotency-Key"));
            assertEquals("POST", r.method());
        }
        assertEquals(List.of(Duration.ofMillis(500), Duration.ofSeconds(1)), t.time.sleeps());
        Signatures.assertSigned(all.get(0), TestClients.NOW);
        Signatures.assertSigned(all.get(1), TestClients.NOW);
        Signatures.assertSigned(all.get(2), TestClients.NOW + 1);
    }

    @Test
    void signRawSendsTheBodyAsGivenWithAKey() throws Exception {
        server.on("POST", RAW, ok("{\"transaction_id\":\"tx-9\"}"));
        JsonNode tx = CustodyClient.newMapper().readTree(
                "{\"from\":\"0xF\",\"to\":\"0xT\",\"nonce\":\"0x1\",\"gasLimit\":\"0x5208\",\"data\":\"0x\",\"value\":\"0x0\",\"chainId\":1}");
        SignSubmission s = client.signRaw(W, tx, "my-key");
        assertEquals(new SignSubmission("tx-9", "my-key"), s);
        Recorded r = server.only();
        assertEquals("{\"from\":\"0xF\",\"to\":\"0xT\",\"nonce\":\"0x1\",\"gasLimit\":\"0x5208\",\"data\":\"0x\","
                + "\"value\":\"0x0\",\"chainId\":1}", r.body());
        assertEquals("my-key", r.header("X-Idempotency-Key"));
        Signatures.assertSigned(r, TestClients.NOW);
    }

    @Test
    void messagePollingIsDoneOnlyOnConfirmedWithASignature() {
        server.on("GET", SIGN_STATUS, status("pending_approval", ""), status("pending", ""),
                status("completed", ""), status("confirmed", ""), status("confirmed", ",\"signature\":\"0xsig\""));
        SignatureStatus s = client.awaitSignature(W, "tx-1", Duration.ofMinutes(5));
        assertTrue(s.isDone());
        assertEquals("0xsig", s.signature());
        assertEquals("approved", s.approvals().get(0).status());
        assertEquals(5, count("GET", SIGN_STATUS));
        assertEquals(List.of(Duration.ofMillis(1000), Duration.ofMillis(1500), Duration.ofMillis(2250),
                Duration.ofMillis(3375)), t.time.sleeps());
        Signatures.assertSigned(server.requests().get(0), TestClients.NOW);
    }

    @Test
    void pollingStopsOnRejectedAndFailed() {
        server.on("GET", SIGN_STATUS, status("pending", ""), status("rejected", ""));
        SignatureStatus s = client.awaitSignature(W, "tx-1", Duration.ofMinutes(1));
        assertTrue(s.isFailed());
        assertFalse(s.isDone());
        assertEquals("rejected", s.status());

        server.on("GET", RAW_STATUS, ok("{\"transaction_id\":\"tx-9\",\"status\":\"failed\",\"failed_reason\":\"nonce too low\"}"));
        TransactionStatus tx = client.awaitTransaction(W, "tx-9", Duration.ofMinutes(1));
        assertTrue(tx.isFailed());
        assertEquals("nonce too low", tx.failedReason());
    }

    @Test
    void transactionPollingIsDoneOnCompletedOrConfirmedWithAHash() {
        server.on("GET", RAW_STATUS, new Reply(200, "{\"transaction_id\":\"tx-9\",\"status\":\"completed\"}"),
                new Reply(200, "{\"transaction_id\":\"tx-9\",\"status\":\"completed\",\"hash\":\"0xh\",\"method\":\"eth_signTransaction\"}"));
        TransactionStatus tx = client.awaitTransaction(W, "tx-9", Duration.ofMinutes(1));
        assertTrue(tx.isDone());
        assertEquals("0xh", tx.hash());
        assertEquals(2, count("GET", RAW_STATUS));

        assertTrue(new TransactionStatus("t", "confirmed", null, null, null, null, "0x1", null).isDone());
        assertFalse(new TransactionStatus("t", "pending", null, null, null, null, "0x1", null).isDone());
    }

    @Test
    void backoffGrowsByHalfAndCapsAtTenSeconds() {
        assertEquals(Duration.ofMillis(1500), StatusPoller.nextPollDelay(Duration.ofSeconds(1)));
        assertEquals(Duration.ofMillis(7593).plusNanos(750_000), StatusPoller.nextPollDelay(Duration.ofNanos(5_062_500_000L)));
        assertEquals(Duration.ofSeconds(10), StatusPoller.nextPollDelay(Duration.ofMillis(7593)));
        assertEquals(Duration.ofSeconds(10), StatusPoller.nextPollDelay(Duration.ofSeconds(10)));
    }

    @Test
    void timeOutQueriesTheExistingRequestAtTheDeadlineAndNeverResubmits() {
        server.on("POST", SIGN, ok("{\"transaction_id\":\"tx-1\"}"));
        server.on("GET", SIGN_STATUS, status("pending_approval", ""));
        CustodyTimeoutException e = assertThrows(CustodyTimeoutException.class,
                () -> client.signAndWait(W, SignMessageRequest.ethSign("x", 1), null, Duration.ofSeconds(40)));
        assertEquals("tx-1", e.resourceId());
        assertEquals("pending_approval", e.lastStatus());
        assertEquals("signing request `tx-1` is still `pending_approval` after 40 s; it was not resubmitted: "
                + "poll it again later", e.getMessage());
        assertEquals(1, count("POST", SIGN));
        List<Recorded> all = server.requests();
        assertEquals("GET", all.get(all.size() - 1).method());
        // 1 + 1.5 + 2.25 + 3.375 + 5.0625 + 7.59375 = 20.78125 s, then 10 s (the cap), then the rest
        // up to the deadline, where the last query happens.
        List<Duration> sleeps = t.time.sleeps();
        assertEquals(List.of(Duration.ofMillis(1000), Duration.ofMillis(1500), Duration.ofMillis(2250),
                Duration.ofMillis(3375), Duration.ofNanos(5_062_500_000L), Duration.ofNanos(7_593_750_000L),
                Duration.ofSeconds(10), Duration.ofNanos(9_218_750_000L)), sleeps);
        assertEquals(TestClients.NOW + 40, t.time.instant().getEpochSecond());
        assertEquals(sleeps.size() + 1, count("GET", SIGN_STATUS));
        Signatures.assertSigned(all.get(all.size() - 1), TestClients.NOW + 40);
    }

    @Test
    void anUnknownRequestIsResubmittedOnceWithTheSameKey() {
        server.on("POST", SIGN, ok("{\"transaction_id\":\"tx-1\"}"));
        server.on("GET", SIGN_STATUS, new Reply(404, "{\"success\":false,\"code\":40400,\"message\":\"not found\"}"),
                status("confirmed", ",\"signature\":\"0xs\""));
        SignatureStatus s = client.signAndWait(W, SignMessageRequest.ethSign("x", 1), "fixed-key", Duration.ofMinutes(1));
        assertEquals("0xs", s.signature());
        List<Recorded> all = server.requests();
        assertEquals(List.of("POST", "GET", "POST", "GET"), all.stream().map(Recorded::method).toList());
        assertEquals("fixed-key", all.get(0).header("X-Idempotency-Key"));
        assertEquals("fixed-key", all.get(2).header("X-Idempotency-Key"));
        assertEquals(all.get(0).body(), all.get(2).body());
    }

    @Test
    void signRawAndWaitReusesTheGeneratedKey() throws Exception {
        server.on("POST", RAW, new Reply(500, ""), ok("{\"transaction_id\":\"tx-9\"}"));
        server.on("GET", RAW_STATUS, new Reply(200, "{\"transaction_id\":\"tx-9\",\"status\":\"confirmed\",\"hash\":\"0xh\"}"));
        TransactionStatus tx = client.signRawAndWait(W, CustodyClient.newMapper().readTree("{\"from\":\"0xF\"}"), null,
                Duration.ofSeconds(10));
        assertEquals("0xh", tx.hash());
        List<Recorded> posts = server.requests().stream().filter(r -> r.method().equals("POST")).toList();
        assertEquals(2, posts.size());
        assertEquals("idem-1", posts.get(0).header("X-Idempotency-Key"));
        assertEquals("idem-1", posts.get(1).header("X-Idempotency-Key"));
    }

    @Test
    void walletCreationWaitPollsTheBareStatus() {
        String path = "/api/v1/wallets/creation-status/w-7";
        server.on("GET", path, new Reply(200, "{\"wallet_id\":\"w-7\",\"status\":\"pending\"}"),
                new Reply(200, "{\"wallet_id\":\"w-7\",\"status\":\"pending\"}"),
                new Reply(200, "{\"wallet_id\":\"w-7\",\"status\":\"success\"}"));
        WalletCreationStatus s = client.awaitWalletCreation("w-7", Duration.ofSeconds(60));
        assertTrue(s.isSuccess());
        assertEquals(List.of(Duration.ofMillis(1000), Duration.ofMillis(1500)), t.time.sleeps());

        server.on("GET", path, new Reply(200, "{\"wallet_id\":\"w-7\",\"status\":\"pending\"}"));
        CustodyTimeoutException e = assertThrows(CustodyTimeoutException.class,
                () -> client.awaitWalletCreation("w-7", Duration.ofSeconds(3)));
        assertEquals("wallet creation `w-7` is still `pending` after 3 s; it was not resubmitted: poll it again later",
                e.getMessage());
    }
}
