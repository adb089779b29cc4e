package dev.custody.engine.log;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.custody.engine.payload.Action;
import dev.custody.engine.replay.DecisionRecords;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
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
 * <h2>Rotation and retention</h2>
 * When the next line would take the file past {@link Builder#maxBytes}, the file is forced to disk, renamed and a
 * new one started. What the rename keeps depends on the retention chosen:
 * <ul>
 *   <li>{@link Builder#keep keep(n)} (the default, n = 5): the file becomes {@code NAME.1} and the older ones shift
 *       up ({@code NAME.1} to {@code NAME.2}, …); {@code NAME.n} is <b>deleted</b> at each rotation, so the log holds
 *       at most n + 1 files and its oldest records are lost for good. {@code keep(0)} deletes the full file itself.
 *       Records older than n rotations are gone: bounded size, not an archive.
 *   <li>{@link Builder#keepAll()}: the file becomes {@code NAME.000001}, then {@code NAME.000002}, … (six digits,
 *       more past 999,999; the newest has the highest number, one past the highest found when the sink is built),
 *       and nothing is ever deleted or overwritten (a name already taken is skipped). The numbered names differ from
 *       {@code keep}'s {@code NAME.1} … {@code NAME.n}, so a log switched from one retention to the other never
 *       loses an archived file to the other's deletions and shifts. Reading the files in numeric order, then
 *       {@code NAME}, gives the records in the order they were written.
 * </ul>
 *
 * <h2>Durability</h2>
 * Each line is written to the file with one write call as it comes ({@link #onDecision}), so it survives the death of
 * the process once written, but not a crash of the machine. {@link #sync()} forces the file's data to disk
 * ({@code FileChannel.force(false)}, fdatasync) and, when a rotation or the sink created a file since the last sync,
 * the directory too, so that the new names survive a power loss; a rotation forces the full file before renaming it,
 * so the records of a batch that spans a rotation are on disk when the batch's sync returns, whichever file holds
 * them. A write that fails is cut back off the file (the file
 * is truncated to its last whole line) so that a line is whole or absent. A {@link DecisionLog#durable durable}
 * log calls {@code sync} after each batch; otherwise nothing does, as before.
 *
 * <p>Used from the {@link DecisionLog}'s one thread; not thread-safe otherwise.
 */
public final class JsonLinesDecisionSink implements DecisionLog.Listener, AutoCloseable {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** {@link Builder#keep}'s value for {@link Builder#keepAll()}. */
    private static final int KEEP_ALL = -1;
    /** The digits of {@link Builder#keepAll()}'s numbered names (at least). */
    private static final int DIGITS = 6;

    private final Path file;
    private final long maxBytes;
    private final int keep;
    private final boolean digestOnly;
    private final Set<String> masked;
    private FileChannel out;
    private long written;
    /** A file was created or renamed in the directory since the last {@link #sync()}. */
    private boolean directoryChanged;
    /** {@link Builder#keepAll()}: the number the next rotated file gets. */
    private long next;

    private JsonLinesDecisionSink(Builder b) throws IOException {
        this.file = b.file;
        this.maxBytes = b.maxBytes;
        this.keep = b.keep;
        this.digestOnly = b.digestOnly;
        this.masked = Set.copyOf(b.masked);
        open();
        if (keep == KEEP_ALL) {
            next = highestNumber() + 1;
        }
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
        if (!Files.exists(file)) {
            directoryChanged = true;
        }
        out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        written = out.size();
    }

    @Override
    public void onDecision(DecisionLog.Event event) throws IOException {
        byte[] line = record(event);
        if (written > 0 && written + line.length > maxBytes) {
            rotate();
        }
        ByteBuffer buffer = ByteBuffer.wrap(line);
        try {
            while (buffer.hasRemaining()) {
                out.write(buffer);
            }
        } catch (IOException e) {
            cutBack(e);
            throw e;
        }
        written += line.length;
    }

    /** After a failed write: the file back to its last whole line, so that no later line follows half a one. */
    private void cutBack(IOException failure) {
        try {
            if (out.size() > written) {
                out.truncate(written);
            }
        } catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /**
     * Forces what was written to disk ({@code FileChannel.force(false)}: the data and the size, an fdatasync), and
     * the directory when a file was created or renamed in it since the last sync. Called after each batch by a
     * {@link DecisionLog#durable durable} log.
     */
    @Override
    public void sync() throws IOException {
        out.force(false);
        if (directoryChanged) {
            forceDirectory();
            directoryChanged = false;
        }
    }

    /** Makes the directory's entries (created and renamed files) durable; where a directory cannot be opened, no-op. */
    private void forceDirectory() throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        FileChannel channel;
        try {
            channel = FileChannel.open(dir, StandardOpenOption.READ);
        } catch (IOException | UnsupportedOperationException e) {
            return; // Windows cannot open a directory; its file system orders metadata itself
        }
        try (channel) {
            channel.force(true);
        }
    }

    private void rotate() throws IOException {
        out.force(false); // the full file's records are on disk before it is renamed out of the way
        out.close();
        directoryChanged = true;
        try {
            if (keep == KEEP_ALL) {
                while (true) {
                    try {
                        Files.move(file, numbered(next++)); // never replaces: a taken name is skipped
                        break;
                    } catch (FileAlreadyExistsException taken) {
                        // try the next number
                    }
                }
                return;
            }
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
        } finally {
            open(); // a new file, or, when a rename failed, the full one again: the sink goes on writing either way
        }
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

    /** {@code NAME.000042}: {@link Builder#keepAll()}'s name for the n-th rotated file. */
    private Path numbered(long n) {
        String digits = Long.toString(n);
        return file.resolveSibling(file.getFileName() + "." + "0".repeat(Math.max(0, DIGITS - digits.length())) + digits);
    }

    /** The highest n of the {@code NAME.n} files of {@link Builder#keepAll()}'s form beside the file (0 for none). */
    private long highestNumber() throws IOException {
        String prefix = file.getFileName() + ".";
        long highest = 0;
        try (DirectoryStream<Path> siblings = Files.newDirectoryStream(file.toAbsolutePath().getParent())) {
            for (Path p : siblings) {
                String name = p.getFileName().toString();
                String rest = name.startsWith(prefix) ? name.substring(prefix.length()) : "";
                if (rest.length() >= DIGITS && rest.chars().allMatch(c -> c >= '0' && c <= '9')) {
                    try {
                        highest = Math.max(highest, Long.parseLong(rest));
                    } catch (NumberFormatException tooLong) {
                        // more digits than a long: not one of ours
                    }
                }
            }
        }
        return highest;
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

        /**
         * How many rotated files to keep ({@code NAME.1} … {@code NAME.keep}); default 5; 0 keeps none. Each rotation
         * <b>deletes</b> the oldest ({@code NAME.keep}, or with 0 the full file): records older than that are lost.
         * Replaces an earlier {@link #keepAll()}.
         */
        public Builder keep(int files) {
            if (files < 0) {
                throw new IllegalArgumentException("keep must not be negative, got " + files);
            }
            this.keep = files;
            return this;
        }

        /**
         * Keep every rotated file: never delete or overwrite one. The full file becomes {@code NAME.000001},
         * {@code NAME.000002}, … (the newest highest; numbering goes on from the highest such file found). The log's
         * size is then bounded only by the disk. Replaces an earlier {@link #keep(int)}.
         */
        public Builder keepAll() {
            this.keep = KEEP_ALL;
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
