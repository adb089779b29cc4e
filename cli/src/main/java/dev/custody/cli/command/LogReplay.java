package dev.custody.cli.command;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.custody.cli.ExitCode;
import dev.custody.engine.Decision;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.ActionReader;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.Map;
import java.util.Objects;

/**
 * {@code custody replay --from-log LOG}: re-decides the actions a decision log recorded
 * ({@code dev.custody.engine.log.JsonLinesDecisionSink}) against a policy set and lists the decisions that differ
 * from the logged ones: an audit ("would these policies have decided the same?") or a check of a pending revision
 * against real traffic. A logged action is decided exactly as logged (its velocity sections are those the engine
 * saw). Decisions compare on outcome, attribution and failure kind. A record without an action (a digest-only
 * log) or that cannot be read is counted as unreadable. Exit 0 when every record was re-decided alike, 1 when any
 * differs or is unreadable. Not thread-safe.
 */
final class LogReplay {
    enum Format { text, jsonl }

    /** The reader of log records: strict about duplicate keys, as every reader of actions is. */
    static final JsonMapper JSON = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    private LogReplay() {}

    static int run(String log, InputStream stdin, LocalEngine local, Format format, PrintWriter out, PrintWriter err)
            throws IOException {
        long records = 0;
        long differ = 0;
        long unreadable = 0;
        long number = 0;
        JsonGenerator g = format == Format.jsonl ? JsonOutput.generator(out) : null;
        try (BufferedReader in = Inputs.lines(log, stdin)) {
            String line;
            while ((line = in.readLine()) != null) {
                number++;
                if (line.isBlank()) {
                    continue;
                }
                records++;
                String problem;
                try {
                    JsonNode r = JSON.readTree(line);
                    problem = decide(r, number, local, out, g);
                } catch (JsonProcessingException e) {
                    problem = "malformed JSON";
                }
                if (problem == null) {
                    continue;
                }
                if (problem.isEmpty()) {
                    differ++;
                } else {
                    unreadable++;
                    err.println("error: line " + number + ": " + problem);
                }
            }
        }
        if (g != null) {
            g.flush();
        }
        out.flush();
        err.println(Inputs.plural(records, "logged decision") + " re-decided, " + differ + " differ"
                + (unreadable > 0 ? ", " + unreadable + " unreadable" : ""));
        err.flush();
        return differ > 0 || unreadable > 0 || local.failed() ? ExitCode.INPUT : ExitCode.OK;
    }

    /** Null when the decision is the same, "" when it differs (and was printed), else why the record is unreadable. */
    @SuppressWarnings("unchecked")
    private static String decide(JsonNode r, long number, LocalEngine local, PrintWriter out, JsonGenerator g)
            throws IOException {
        Logged read = loggedAction(r);
        if (!(read instanceof Logged.Readable action)) {
            return ((Logged.Unreadable) read).problem();
        }
        JsonNode logged = r.get("decision");
        Decision now = local.engine().evaluate(action.action(), false);
        if (same(logged, now)) {
            return null;
        }
        Action a = action.action();
        if (g != null) {
            g.writeStartObject();
            g.writeStringField("id", a.id());
            g.writeNumberField("line", number);
            g.writeObjectFieldStart("logged");
            for (String f : new String[] {"decision", "policy_id", "rule_id", "failure", "bundle_revision"}) {
                JsonNode v = f.equals("bundle_revision") ? r.get(f) : logged.get(f);
                g.writeStringField(f, v == null || v.isNull() ? null : v.asText());
            }
            g.writeEndObject();
            g.writeObjectFieldStart("now");
            g.writeStringField("decision", now.outcome().name());
            g.writeStringField("policy_id", now.policyId());
            g.writeStringField("rule_id", now.ruleId());
            g.writeStringField("failure", now.failure() == null ? null : now.failure().wireName());
            g.writeStringField("bundle_revision", now.bundleRevision());
            g.writeEndObject();
            g.writeEndObject();
            g.writeRaw('\n');
        } else {
            String id = a.id() == null ? "line " + number : a.id();
            out.println(id + " ".repeat(Math.max(1, 13 - id.length())) + label(logged) + " → " + label(now)
                    + "   " + text(logged.get("rule_id")) + " → " + (now.ruleId() == null ? "-" : now.ruleId()));
        }
        return "";
    }

    /** What a log record gives to re-decide: its action, or why it cannot be re-decided. */
    sealed interface Logged {
        /** The logged action, as the engine saw it. */
        record Readable(Action action) implements Logged {}

        /** One line: no action (a digest-only log), no logged decision, or an action that does not read. */
        record Unreadable(String problem) implements Logged {}
    }

    /** The action a log record holds, or why it cannot be re-decided. */
    @SuppressWarnings("unchecked")
    static Logged loggedAction(JsonNode r) {
        JsonNode logged = r.get("decision");
        if (r.get("action") == null || !r.get("action").isObject()) {
            return new Logged.Unreadable(r.has("action_digest") ? "the log holds a digest of the action, not the "
                    + "action: it cannot be re-decided" : "the record has no `action`");
        }
        if (logged == null || !logged.isObject() || !logged.path("decision").isTextual()) {
            return new Logged.Unreadable("the record has no `decision`");
        }
        ActionReader.Result read = ActionReader.fromMap(JSON.convertValue(r.get("action"), Map.class));
        if (!(read instanceof ActionReader.Read action)) {
            return new Logged.Unreadable("the logged action cannot be read: "
                    + ((ActionReader.Malformed) read).message());
        }
        return new Logged.Readable(action.action());
    }

    private static boolean same(JsonNode logged, Decision now) {
        return logged.path("decision").asText().equals(now.outcome().name())
                && Objects.equals(nullable(logged.get("policy_id")), now.policyId())
                && Objects.equals(nullable(logged.get("rule_id")), now.ruleId())
                && Objects.equals(nullable(logged.get("failure")), now.failure() == null ? null : now.failure().wireName());
    }

    private static String label(JsonNode logged) {
        String failure = nullable(logged.get("failure"));
        return logged.path("decision").asText() + (failure == null ? "" : " (" + failure + ")");
    }

    private static String label(Decision d) {
        return d.outcome().name() + (d.failure() == null ? "" : " (" + d.failure().wireName() + ")");
    }

    private static String text(JsonNode n) {
        String s = nullable(n);
        return s == null ? "-" : s;
    }

    private static String nullable(JsonNode n) {
        return n == null || n.isNull() ? null : n.asText();
    }
}
