package dev.custody.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.custody.engine.Decision;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.ActionReader;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.replay.ActionStream;
import dev.custody.engine.replay.DecisionRecords;
import dev.custody.engine.schema.TriggerAction;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The server's records, byte for byte: replay's writer ({@link DecisionRecords}), then {@code decision_id}. */
class DecisionRecordBytesTest {
    static final String ID =
            ",\"decision_id\":\"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\"}";

    interface Writes {
        void write(JsonGenerator g) throws Exception;
    }

    static String json(Writes w) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JsonMapper.builder().build().createGenerator(out)) {
            w.write(g);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    static String withoutId(String record) {
        assertTrue(record.matches(".*" + ID), record);
        return record.replaceAll(ID + "$", "}");
    }

    @Test
    void aDecisionsRecordIsReplaysWithItsIdLast() throws Exception {
        Policy p = new Policy("p", "policy p", null, "99999999-9999-4999-8999-999999999999", List.of(),
                List.of(new Rule("big", "withdrawal.create", "withdrawal.value_usd > 10", "DENY", "too big", null)),
                null, 1, null, null);
        Action a = Action.builder(TriggerAction.WITHDRAWAL_CREATE).id("w-1")
                .walletId("11111111-1111-4111-8111-111111111111").field("withdrawal.value_usd", 20.0).build();
        Decision d = PolicyEngine.builder(ws -> List.of(p)).timeBudget(Duration.ofSeconds(30)).build()
                .evaluate("00cd4ae6-310e-4566-99ae-1270f1ed5570", a);
        String record = new String(DecisionHandler.record(d), StandardCharsets.UTF_8);
        assertEquals("{\"id\":\"w-1\",\"action\":\"withdrawal.create\",\"decision\":\"DENY\",\"policy_id\":\"p\","
                + "\"rule_id\":\"big\",\"reason\":\"too big\",\"fail_closed\":false,\"failure\":null,\"error\":null,"
                + "\"bundle_revision\":\"" + d.bundleRevision() + "\",\"elapsed_us\":" + d.elapsedNanos() / 1000 + "}",
                withoutId(record));
        assertEquals(json(g -> DecisionRecords.write(g, d, false)), withoutId(record));
    }

    @Test
    void aMalformedActionsRecordIsReplaysForAMalformedLineWithItsIdLast() throws Exception {
        ActionReader.Malformed m = new ActionReader.Malformed("unknown field `x`", "w-2", 7);
        String record = new String(DecisionHandler.malformed(m, 1), StandardCharsets.UTF_8);
        assertEquals("{\"id\":\"w-2\",\"action\":null,\"decision\":\"DENY\",\"policy_id\":null,\"rule_id\":null,"
                + "\"reason\":null,\"fail_closed\":true,\"failure\":\"malformed_action\","
                + "\"error\":\"malformed action line: unknown field `x`\",\"bundle_revision\":null,\"elapsed_us\":0,"
                + "\"line\":1,\"column\":7}", withoutId(record));
        assertEquals(json(g -> DecisionRecords.malformed(g, new ActionStream.MalformedLine(1, 7, "w-2",
                "unknown field `x`"), false)), withoutId(record));
    }
}
