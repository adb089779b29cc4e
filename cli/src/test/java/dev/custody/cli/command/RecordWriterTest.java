package dev.custody.cli.command;

import dev.custody.engine.Decisions;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.custody.engine.Decision;
import dev.custody.engine.FailureKind;
import dev.custody.engine.Outcome;
import dev.custody.engine.TraceEntry;
import dev.custody.engine.replay.DecisionRecords;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.TriggerAction;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A replay's records written with their rule-dependent middle rendered once are byte for byte those
 * {@link DecisionRecords#write} writes: for every kind of decision, ids and texts that need escaping, in a row of
 * records as a replay writes them, with the middles taken from the cache the second time.
 */
class RecordWriterTest {
    private static final List<TraceEntry> TRACE = List.of(
            new TraceEntry("p", "r", Effect.DENY, TraceEntry.Result.TRUE, null, 12_000));

    private static List<Decision> decisions() {
        List<Decision> all = new ArrayList<>();
        String[] ids = {"a-1", null, "quote\"d", "back\\slash", "tab\tnew\nline", "é😀", "\u0001ctl", ""};
        for (String id : ids) {
            all.add(Decisions.matched(id, TriggerAction.WITHDRAWAL_CREATE, Outcome.DENY, "night-freeze", "night-large",
                    "withdrawals above $25,000 are frozen between 22:00 and 06:00 UTC", 77_400, List.of(),
                    "889de4663f841d63"));
            all.add(Decisions.matched(id, TriggerAction.WEB3_CONTRACT_CALL, Outcome.ALLOW, "p\"1", "r\\1",
                    "reason with \"quotes\", é, 😀 and a \u0007 bell, ,\"elapsed_us\": inside", 1_999, List.of(), null));
            all.add(Decisions.matched(id, TriggerAction.WITHDRAWAL_CREATE, Outcome.DENY, "p", "r", null, 0,
                    List.of(), "rev"));
            all.add(Decisions.noMatch(id, TriggerAction.WITHDRAWAL_CREATE, 5_000_000_123L, List.of(), "rev"));
            all.add(Decisions.noMatch(id, TriggerAction.WITHDRAWAL_CREATE, 1, List.of()));
            all.add(Decisions.failClosed(id, TriggerAction.WITHDRAWAL_CREATE, FailureKind.MALFORMED_ACTION,
                    "field `withdrawal.value_usd` must be a number", 300));
            all.add(Decisions.failClosed(id, TriggerAction.WITHDRAWAL_CREATE, FailureKind.RULE_ERROR,
                    "no such key: x", "p", "r", 9_000, TRACE));
            all.add(Decisions.matched(id, TriggerAction.WITHDRAWAL_CREATE, Outcome.DENY, "p", "r", "why", 12_000, TRACE,
                    "rev"));
        }
        return all;
    }

    private static String render(List<Decision> decisions, boolean explain, RecordWriter writer) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JsonOutput.generator(out)) {
            for (Decision d : decisions) {
                if (writer == null) {
                    DecisionRecords.write(g, d, explain);
                } else {
                    writer.write(g, d, explain);
                }
                g.writeRaw('\n');
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void recordsAreByteForByteThoseOfDecisionRecords() throws IOException {
        List<Decision> twice = new ArrayList<>(decisions());
        twice.addAll(decisions()); // the second time, every middle comes from the cache
        for (boolean explain : new boolean[] {false, true}) {
            RecordWriter writer = new RecordWriter();
            String expected = render(twice, explain, null);
            assertEquals(expected, render(twice, explain, writer), "explain " + explain);
            // one middle per way of deciding, ids aside: the six decisions without an error message (a trace is not
            // written without explain); none at all with explain
            assertEquals(explain ? 0 : 6, writer.kept(), "explain " + explain);
        }
        String one = render(List.of(decisions().get(0)), false, new RecordWriter());
        assertEquals("{\"id\":\"a-1\",\"action\":\"withdrawal.create\",\"decision\":\"DENY\",\"policy_id\":\"night-freeze\","
                + "\"rule_id\":\"night-large\",\"reason\":\"withdrawals above $25,000 are frozen between 22:00 and 06:00 UTC\","
                + "\"fail_closed\":false,\"failure\":null,\"error\":null,\"bundle_revision\":\"889de4663f841d63\","
                + "\"elapsed_us\":77}\n", one);
    }

    @Test
    void pastItsLimitTheWriterWritesEveryRecordInFull() throws IOException {
        RecordWriter writer = new RecordWriter();
        List<Decision> many = new ArrayList<>();
        for (int i = 0; i < RecordWriter.MAX_MIDDLES + 10; i++) {
            many.add(Decisions.matched("a-" + i, TriggerAction.WITHDRAWAL_CREATE, Outcome.ALLOW, "p", "rule-" + i,
                    "because " + i, i, List.of(), "rev"));
        }
        assertEquals(render(many, false, null), render(many, false, writer));
        assertEquals(RecordWriter.MAX_MIDDLES, writer.kept());
    }
}
