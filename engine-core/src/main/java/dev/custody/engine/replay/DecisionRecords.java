package dev.custody.engine.replay;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.custody.engine.Decision;
import dev.custody.engine.FailureKind;
import dev.custody.engine.TraceEntry;
import java.io.IOException;

/**
 * The decision record of a replay (docs/design.md §4.5), streamed with a Jackson generator: {@code id, action,
 * decision, policy_id, rule_id, reason, fail_closed, failure, error, bundle_revision, elapsed_us}, plus
 * {@code trace} with {@code explain} (each evaluated rule: {@code policy_id, rule_id, effect, result} true/false,
 * or null with {@code error}, and {@code elapsed_us}). {@code failure} is the {@link FailureKind}'s word, null unless
 * fail-closed. A malformed line's record has {@code action: null}, DENY, {@code fail_closed: true},
 * {@code failure: "malformed_action"}, the error, its {@code line} number and, when the problem is at a known
 * place, its {@code column}.
 *
 * <p>The one writer of these records: {@code custody replay --format jsonl}, the Spark job, {@code custody serve}
 * (which adds {@code decision_id}) and the decision log ({@link dev.custody.engine.log.JsonLinesDecisionSink}, which
 * nests the record in its envelope) write them with it, so they cannot drift apart field by field. Stateless and
 * thread-safe (a generator is not: use one per thread).
 */
public final class DecisionRecords {
    /** The prefix of a malformed line's {@code error}, before the reader's message. */
    public static final String MALFORMED_PREFIX = "malformed action line: ";

    private DecisionRecords() {}

    /** Writes one decision's record as a JSON object. */
    public static void write(JsonGenerator g, Decision d, boolean explain) throws IOException {
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

    /** The record's fields without the braces, for a writer that nests or extends them. */
    public static void fields(JsonGenerator g, Decision d) throws IOException {
        g.writeStringField("id", d.actionId());
        g.writeStringField("action", d.action() == null ? null : d.action().wireName());
        outcome(g, d);
        g.writeStringField("bundle_revision", d.bundleRevision());
        g.writeNumberField("elapsed_us", d.elapsedNanos() / 1000);
    }

    /** Writes the record of a line that could not be read as an action or a settlement. */
    public static void malformed(JsonGenerator g, ActionStream.MalformedLine m, boolean explain) throws IOException {
        g.writeStartObject();
        malformedFields(g, m);
        if (explain) {
            g.writeArrayFieldStart("trace");
            g.writeEndArray();
        }
        g.writeEndObject();
    }

    /** The fields of a malformed line's record without the braces, for a writer that extends them. */
    public static void malformedFields(JsonGenerator g, ActionStream.MalformedLine m) throws IOException {
        g.writeStringField("id", m.id());
        g.writeNullField("action");
        g.writeStringField("decision", "DENY");
        g.writeNullField("policy_id");
        g.writeNullField("rule_id");
        g.writeNullField("reason");
        g.writeBooleanField("fail_closed", true);
        g.writeStringField("failure", FailureKind.MALFORMED_ACTION.wireName());
        g.writeStringField("error", MALFORMED_PREFIX + m.message());
        g.writeNullField("bundle_revision");
        g.writeNumberField("elapsed_us", 0);
        g.writeNumberField("line", m.number());
        if (m.column() > 0) {
            g.writeNumberField("column", m.column());
        }
    }

    /**
     * Writes the record of a changed action, as {@code custody diff --format jsonl} writes it: {@code id},
     * {@code line}, {@code action}, and {@code base} and {@code head} objects with {@code decision, policy_id,
     * rule_id, reason, fail_closed, failure, error}.
     */
    public static void change(JsonGenerator g, String id, long line, String action, Decision base, Decision head)
            throws IOException {
        g.writeStartObject();
        g.writeStringField("id", id);
        g.writeNumberField("line", line);
        g.writeStringField("action", action);
        side(g, "base", base);
        side(g, "head", head);
        g.writeEndObject();
    }

    private static void side(JsonGenerator g, String name, Decision d) throws IOException {
        g.writeObjectFieldStart(name);
        outcome(g, d);
        g.writeEndObject();
    }

    /** {@code decision, policy_id, rule_id, reason, fail_closed, failure, error}: what a record and a side share. */
    private static void outcome(JsonGenerator g, Decision d) throws IOException {
        g.writeStringField("decision", d.outcome().name());
        g.writeStringField("policy_id", d.policyId());
        g.writeStringField("rule_id", d.ruleId());
        g.writeStringField("reason", d.reason());
        g.writeBooleanField("fail_closed", d.failClosed());
        g.writeStringField("failure", d.failure() == null ? null : d.failure().wireName());
        g.writeStringField("error", d.error());
    }

    /**
     * Whether two decisions on one action differ as {@code diff} counts it: outcome, fail-closed, policy or rule
     * (timing, trace and error text do not count).
     */
    public static boolean changed(Decision a, Decision b) {
        return a.outcome() != b.outcome() || a.failClosed() != b.failClosed()
                || !java.util.Objects.equals(a.policyId(), b.policyId()) || !java.util.Objects.equals(a.ruleId(), b.ruleId());
    }
}
