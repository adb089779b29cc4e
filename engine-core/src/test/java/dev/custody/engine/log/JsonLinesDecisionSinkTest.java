package dev.custody.engine.log;

import static dev.custody.engine.Fixtures.allow;
import static dev.custody.engine.Fixtures.deny;
import static dev.custody.engine.Fixtures.policy;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.custody.engine.Decision;
import dev.custody.engine.Fixtures;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.payload.Action;
import dev.custody.engine.replay.DecisionRecords;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The decision log's line, byte for byte: its envelope around the record replay writes ({@link DecisionRecords}). */
class JsonLinesDecisionSinkTest {
    static final String WS = "00cd4ae6-310e-4566-99ae-1270f1ed5570";
    static final Instant DECIDED = Instant.parse("2026-11-03T14:05:00.120Z");

    @TempDir
    Path dir;

    static Decision decide(Action a) {
        PolicyEngine engine = PolicyEngine.builder(ws -> List.of(policy("p",
                deny("big", "withdrawal.value_usd > 10000"), allow("listed", "withdrawal.is_whitelisted"))))
                .timeBudget(Duration.ofSeconds(30))
                .clock(Clock.fixed(Fixtures.TUESDAY_14H, ZoneOffset.UTC)).build();
        return engine.evaluate(WS, a);
    }

    static String record(Decision d) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JsonMapper.builder().build().createGenerator(out)) {
            DecisionRecords.write(g, d, false);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    String logged(JsonLinesDecisionSink.Builder builder, Action a, Decision d) throws Exception {
        try (JsonLinesDecisionSink sink = builder.build()) {
            sink.onDecision(new DecisionLog.Event(WS, a, d, DECIDED));
        }
        return Files.readString(dir.resolve("log.jsonl"), StandardCharsets.UTF_8);
    }

    @Test
    void theLineIsTheEnvelopeAroundReplaysRecord() throws Exception {
        Action a = Fixtures.withdrawal(20000).id("a1").field("principal.user_email", "ops@example.com").build();
        Decision d = decide(a);
        long us = d.elapsedNanos() / 1000;
        String expectedRecord = "{\"id\":\"a1\",\"action\":\"withdrawal.create\",\"decision\":\"DENY\","
                + "\"policy_id\":\"p\",\"rule_id\":\"big\",\"reason\":\"denied by big\",\"fail_closed\":false,"
                + "\"failure\":null,\"error\":null,"
                + "\"bundle_revision\":\"" + d.bundleRevision() + "\",\"elapsed_us\":" + us + "}";
        assertEquals(expectedRecord, record(d), "replay's record");
        String action = "{\"id\":\"a1\",\"action\":\"withdrawal.create\",\"wallet_id\":\"" + Fixtures.WALLET + "\","
                + "\"workspace_id\":null,\"at\":\"2026-11-03T14:05:00Z\","
                + "\"principal\":{\"role\":\"signer\",\"user_email\":\"***\"},"
                + "\"withdrawal\":{\"amount\":1.5,\"value_usd\":20000.0,\"asset_symbol\":\"ETH\","
                + "\"asset_is_native\":true,"
                + "\"destination_address\":\"0xabc\",\"network_code\":\"ETHEREUM_MAINNET\",\"is_whitelisted\":false,"
                + "\"address_age_sec\":0},"
                + "\"wallet\":{\"outflow_24h\":12000.0,\"withdrawal_count_1h\":2}}";
        String envelope = "{\"decided_at\":\"2026-11-03T14:05:00.120Z\",\"workspace_id\":\"" + WS + "\","
                + "\"bundle_revision\":\"" + d.bundleRevision() + "\",\"decision\":";
        assertEquals(envelope + expectedRecord + ",\"action\":" + action + "}\n",
                logged(JsonLinesDecisionSink.builder(dir.resolve("log.jsonl")).mask("principal.user_email"), a, d));
    }

    @Test
    void aDigestOnlyLineHasTheDigestOfTheActionItWouldHold() throws Exception {
        Action a = Fixtures.withdrawal(50).id("a2").build();
        Decision d = decide(a);
        Path full = dir.resolve("full");
        Files.createDirectories(full);
        String line;
        try (JsonLinesDecisionSink sink = JsonLinesDecisionSink.builder(full.resolve("log.jsonl")).build()) {
            sink.onDecision(new DecisionLog.Event(WS, a, d, DECIDED));
        }
        line = Files.readString(full.resolve("log.jsonl"), StandardCharsets.UTF_8);
        int at = line.indexOf(",\"action\":{\"id\"");
        String action = line.substring(at + ",\"action\":".length(), line.length() - 2);
        String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(action.getBytes(StandardCharsets.UTF_8)));
        String prefix = line.substring(0, at);
        assertEquals(prefix + ",\"action_digest\":\"" + digest + "\"}\n",
                logged(JsonLinesDecisionSink.builder(dir.resolve("log.jsonl")).digestOnly(), a, d));
        assertEquals("NO_MATCH", d.outcome().name());
        assertEquals(true, prefix.endsWith(",\"decision\":" + record(d)), prefix);
    }
}
