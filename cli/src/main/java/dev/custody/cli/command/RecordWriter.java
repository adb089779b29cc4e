package dev.custody.cli.command;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.SerializedString;
import dev.custody.engine.Decision;
import dev.custody.engine.FailureKind;
import dev.custody.engine.Outcome;
import dev.custody.engine.replay.DecisionRecords;
import dev.custody.engine.schema.TriggerAction;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writes a replay's decision records exactly as {@link DecisionRecords#write} writes them, byte for byte, with less
 * work per record. A record without a trace and without an error message is its {@code id}, then a middle that
 * depends only on how the action was decided ({@code action, decision, policy_id, rule_id, reason, fail_closed,
 * failure, error, bundle_revision}: the same for every action a rule decides in a bundle), then its
 * {@code elapsed_us}. The middle is rendered once by {@code DecisionRecords.write} itself, cut out of a record, and
 * kept as UTF-8 bytes; after that a record costs writing its id and its time. A record with a trace or an error
 * (fail-closed, whose message names the action's values) is written by {@code DecisionRecords.write} as before, and
 * so is every record once {@value #MAX_MIDDLES} middles are kept.
 *
 * <p>Thread-safe: a replay's parse threads and render threads share one.
 */
final class RecordWriter {
    /** The most middles kept: a stream's rules times bundles, far below it in practice. */
    static final int MAX_MIDDLES = 4096;

    private static final byte[] ELAPSED = ",\"elapsed_us\":".getBytes(StandardCharsets.US_ASCII);
    /** What a record with a null id starts with: <code>{"id":null</code>. */
    private static final int NULL_ID_PREFIX = "{\"id\":null".length();

    /** What a record's middle depends on. */
    private record Key(TriggerAction action, Outcome outcome, String policyId, String ruleId, String reason,
            boolean failClosed, FailureKind failure, String bundleRevision) {}

    private final ConcurrentHashMap<Key, SerializableString> middles = new ConcurrentHashMap<>();

    /** Writes the record of {@code d}, as {@code DecisionRecords.write(g, d, explain)} would. */
    void write(JsonGenerator g, Decision d, boolean explain) throws IOException {
        SerializableString middle = explain || d.error() != null ? null : middle(d);
        if (middle == null) {
            DecisionRecords.write(g, d, explain);
            return;
        }
        g.writeStartObject();
        g.writeStringField("id", d.actionId());
        g.writeRaw(middle);
        g.writeNumberField("elapsed_us", d.elapsedNanos() / 1000);
        g.writeEndObject();
    }

    /** How many middles are kept. */
    int kept() {
        return middles.size();
    }

    private SerializableString middle(Decision d) {
        Key key = new Key(d.action(), d.outcome(), d.policyId(), d.ruleId(), d.reason(), d.failClosed(), d.failure(),
                d.bundleRevision());
        SerializableString middle = middles.get(key);
        if (middle == null) {
            if (middles.size() >= MAX_MIDDLES) {
                return null;
            }
            middle = render(d);
            middles.putIfAbsent(key, middle);
        }
        return middle;
    }

    /**
     * What {@code DecisionRecords.write} puts between the id's value and {@code ,"elapsed_us":}: the record of the
     * decision under a null id, from just after <code>{"id":null</code> to the last {@code ,"elapsed_us":} (the last
     * field; a string that held that text would have its quotes escaped).
     */
    private static SerializableString render(Decision d) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator g = JsonOutput.generator(out)) {
            DecisionRecords.write(g, d.withActionId(null), false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte[] record = out.toByteArray();
        int cut = lastIndexOf(record, ELAPSED);
        if (cut < NULL_ID_PREFIX) {
            throw new IllegalStateException("a decision record without `elapsed_us` last");
        }
        return new SerializedString(new String(record, NULL_ID_PREFIX, cut - NULL_ID_PREFIX, StandardCharsets.UTF_8));
    }

    private static int lastIndexOf(byte[] bytes, byte[] part) {
        for (int i = bytes.length - part.length; i >= 0; i--) {
            if (java.util.Arrays.equals(bytes, i, i + part.length, part, 0, part.length)) {
                return i;
            }
        }
        return -1;
    }
}
