package dev.custody.engine.log;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.custody.engine.payload.Action;
import dev.custody.engine.replay.DecisionRecords;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A decision log in JSON lines, one record per decision, with size-based rotation: what an auditor reads, and what
 * {@code custody replay --from-log} re-decides against a policy set.
 *
 * <pre>{@code
 * {"decided_at": "2026-11-03T14:05:00.120Z", "workspace_id": "…", "bundle_revision": "e44fe297c984784c",
 *  "decision": {"id": "w-1", "action": "withdrawal.create", "decision": "DENY", "policy_id": "…", "rule_id": "…",
 *               "reason": "…", "fail_closed": false, "failure": null, "error": null,
 *               "bundle_revision": "e44fe297c984784c", "elapsed_us": 31},
 *  "action": {"id": "w-1", "action": "withdrawal.create", "wallet_id": "…", "at": "…", "withdrawal": {…}, …}}
 * }</pre>
 *
 * <p>{@code decision} is the decision's record exactly as {@code custody replay --format jsonl} writes it
 * ({@link DecisionRecords}, the one writer of records; without {@code trace}); the envelope around it is the log's.
 * {@code action} is the action in the replay format (so the log reads back as an action stream); with
 * {@link Builder#digestOnly()} it is replaced by {@code action_digest}, a SHA-256 of it, for a log that must not
 * hold payloads. {@link Builder#mask} replaces the values of the named fields (such as
 * {@code principal.user_email}) by {@code "***"}: a masked log still says who was decided what, but replaying it
 * decides the masked values.
 *
 * <p>When the file reaches {@link Builder#maxBytes} it is renamed {@code NAME.1} (older ones shift to
 * {@code NAME.2}, … up to {@link Builder#keep}, the oldest deleted) and a new file is started, so the log's size is
 * bounded. Used from the {@link DecisionLog}'s one thread; not thread-safe otherwise.
 */
public final class JsonLinesDecisionSink implements DecisionLog.Listener, AutoCloseable {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Path file;
    private final long maxBytes;
    private final int keep;
    private final boolean digestOnly;
    private final Set<String> masked;
    private OutputStream out;
    private long written;

    private JsonLinesDecisionSink(Builder b) throws IOException {
        this.file = b.file;
        this.maxBytes = b.maxBytes;
        this.keep = b.keep;
        this.digestOnly = b.digestOnly;
        this.masked = Set.copyOf(b.masked);
        open();
    }

    /** A builder of a sink writing to {@code file} (appended to when it exists). */
    public static Builder builder(Path file) {
        return new Builder(file);
    }

    private void open() throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        written = Files.size(file);
    }

    @Override
    public void onDecision(DecisionLog.Event event) throws IOException {
        byte[] line = record(event);
        if (written > 0 && written + line.length > maxBytes) {
            rotate();
        }
        out.write(line);
        out.flush();
        written += line.length;
    }

    private void rotate() throws IOException {
        out.close();
        Path oldest = file.resolveSibling(file.getFileName() + "." + keep);
        Files.deleteIfExists(oldest);
        for (int i = keep - 1; i >= 1; i--) {
            Path from = file.resolveSibling(file.getFileName() + "." + i);
            if (Files.exists(from)) {
                Files.move(from, file.resolveSibling(file.getFileName() + "." + (i + 1)),
                        StandardCopyOption.REPLACE_EXISTING);
            }
        }
        if (keep >= 1) {
            Files.move(file, file.resolveSibling(file.getFileName() + ".1"), StandardCopyOption.REPLACE_EXISTING);
        } else {
            Files.delete(file);
        }
        open();
    }

    /**
     * The log line: the envelope ({@code decided_at}, {@code workspace_id}, {@code bundle_revision}, the action or its
     * digest) around the decision's record as {@link DecisionRecords#write} writes it (the one writer of records).
     */
    private byte[] record(DecisionLog.Event e) throws IOException {
        Map<String, Object> action = action(e.action());
        ByteArrayOutputStream line = new ByteArrayOutputStream(1024);
        try (JsonGenerator g = JSON.createGenerator(line)) {
            g.writeStartObject();
            g.writeStringField("decided_at", e.decidedAt().toString());
            g.writeStringField("workspace_id", e.workspaceId());
            g.writeStringField("bundle_revision", e.decision().bundleRevision());
            g.writeFieldName("decision");
            DecisionRecords.write(g, e.decision(), false);
            if (digestOnly) {
                g.writeStringField("action_digest", sha256(JSON.writeValueAsBytes(action)));
            } else {
                g.writeFieldName("action");
                g.writeObject(action);
            }
            g.writeEndObject();
        }
        line.write('\n');
        return line.toByteArray();
    }

    /** The action in the replay format, masked fields replaced. */
    private Map<String, Object> action(Action a) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", a.id());
        m.put("action", a.action().wireName());
        m.put("wallet_id", a.walletId());
        m.put("workspace_id", a.workspaceId());
        m.put("at", a.at() == null ? null : a.at().toString());
        for (Map.Entry<String, Map<String, Object>> s : a.sections().entrySet()) {
            if (s.getValue() == null) {
                continue;
            }
            Map<String, Object> fields = new LinkedHashMap<>(s.getValue());
            fields.replaceAll((k, v) -> masked.contains(s.getKey() + "." + k) && v != null ? "***" : v);
            m.put(s.getKey(), fields);
        }
        return m;
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", e);
        }
    }

    @Override
    public void close() throws IOException {
        out.close();
    }

    /** Builds a {@link JsonLinesDecisionSink}. Not thread-safe. */
    public static final class Builder {
        private final Path file;
        private long maxBytes = 64L * 1024 * 1024;
        private int keep = 5;
        private boolean digestOnly;
        private final java.util.Set<String> masked = new java.util.HashSet<>();

        private Builder(Path file) {
            this.file = Objects.requireNonNull(file, "file");
        }

        /** The size past which the file is rotated; default 64 MiB. */
        public Builder maxBytes(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("maxBytes must be positive, got " + bytes);
            }
            this.maxBytes = bytes;
            return this;
        }

        /** How many rotated files to keep ({@code NAME.1} … {@code NAME.keep}); default 5; 0 keeps none. */
        public Builder keep(int files) {
            if (files < 0) {
                throw new IllegalArgumentException("keep must not be negative, got " + files);
            }
            this.keep = files;
            return this;
        }

        /** Log a SHA-256 of each action instead of the action (such a log cannot be replayed). */
        public Builder digestOnly() {
            this.digestOnly = true;
            return this;
        }

        /** Replace these fields' values by {@code "***"}, e.g. {@code mask("principal.user_email")}. */
        public Builder mask(String... fields) {
            masked.addAll(java.util.List.of(fields));
            return this;
        }

        /**
         * The sink, with its file opened for appending.
         *
         * @throws UncheckedIOException when the file cannot be opened
         */
        public JsonLinesDecisionSink build() {
            try {
                return new JsonLinesDecisionSink(this);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open the decision log `" + file + "`", e);
            }
        }
    }
}
