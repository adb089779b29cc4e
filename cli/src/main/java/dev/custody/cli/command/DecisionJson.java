package dev.custody.cli.command;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.custody.engine.eval.Decision;
import dev.custody.engine.eval.TraceEntry;
import java.io.IOException;

/**
 * The decision record of DESIGN §4, streamed with a Jackson generator: {@code id, action, decision,
 * policy_id, rule_id, reason, fail_closed, error, elapsed_us}, plus {@code trace} with {@code --explain}
 * (each evaluated rule: {@code policy_id, rule_id, effect, result} true/false, or null with {@code error}).
 * A malformed line's record has {@code action: null}, DENY, {@code fail_closed: true}, the error, and its
 * {@code line} number.
 */
final class DecisionJson {
    private DecisionJson() {}

    static void write(JsonGenerator g, Decision d, boolean explain) throws IOException {
        g.writeStartObject();
        fields(g, d);
        if (explain) {
            g.writeArrayFieldStart("trace");
            for (TraceEntry t : d.trace()) {
                g.writeStartObject();
                g.writeStringField("policy_id", t.policyId());
                g.writeStringField("rule_id", t.ruleId());
                g.writeStringField("effect", t.effect().name());
                if (t.result() == TraceEntry.Result.ERROR) {
                    g.writeNullField("result");
                } else {
                    g.writeBooleanField("result", t.result() == TraceEntry.Result.TRUE);
                }
                g.writeStringField("error", t.error());
                g.writeNumberField("elapsed_us", t.elapsedNanos() / 1000);
                g.writeEndObject();
            }
            g.writeEndArray();
        }
        g.writeEndObject();
    }

    /** The record's fields, without the braces (the diff command nests them). */
    static void fields(JsonGenerator g, Decision d) throws IOException {
        g.writeStringField("id", d.actionId());
        g.writeStringField("action", d.action() == null ? null : d.action().wireName());
        g.writeStringField("decision", d.decision().name());
        g.writeStringField("policy_id", d.policyId());
        g.writeStringField("rule_id", d.ruleId());
        g.writeStringField("reason", d.reason());
        g.writeBooleanField("fail_closed", d.failClosed());
        g.writeStringField("error", d.error());
        g.writeNumberField("elapsed_us", d.elapsedNanos() / 1000);
    }

    static void malformed(JsonGenerator g, ActionStream.Malformed m, boolean explain) throws IOException {
        g.writeStartObject();
        g.writeStringField("id", m.id());
        g.writeNullField("action");
        g.writeStringField("decision", "DENY");
        g.writeNullField("policy_id");
        g.writeNullField("rule_id");
        g.writeNullField("reason");
        g.writeBooleanField("fail_closed", true);
        g.writeStringField("error", "malformed action line: " + m.message());
        g.writeNumberField("elapsed_us", 0);
        g.writeNumberField("line", m.number());
        if (explain) {
            g.writeArrayFieldStart("trace");
            g.writeEndArray();
        }
        g.writeEndObject();
    }
}
