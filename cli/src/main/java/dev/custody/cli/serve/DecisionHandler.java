package dev.custody.cli.serve;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamWriteFeature;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.Decision;
import dev.custody.engine.check.ActionReader;
import dev.custody.engine.log.DecisionLog;
import dev.custody.engine.replay.ActionStream;
import dev.custody.engine.replay.DecisionRecords;
import dev.custody.engine.payload.Action;
import dev.custody.engine.velocity.Settlement;
import dev.custody.engine.velocity.VelocityException;
import dev.custody.velocity.jdbc.JdbcVelocityLedger;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * The decision server's routes on Jetty's core {@link Handler} API (docs/design.md §8 "Decision server").
 *
 * <h2>Routes</h2>
 * <ul>
 *   <li>{@code POST /v1/decisions}: one action (the replay line format) → {@code 200} and its decision record, the
 *       bytes {@code custody replay --velocity given --format jsonl} writes for that action
 *       ({@link DecisionRecords}), with {@code "decision_id"} added last. A body that is a JSON object but not a
 *       readable action is a {@code 200} DENY {@code malformed_action} record, as replay writes it for such a line
 *       ({@code line} 1); a body that is not a JSON object, or a {@code withdrawal.settled} record (the server
 *       keeps no velocity ledger), is a {@code 400} {@code {"error": "..."}}.
 *   <li>{@code POST /v1/decisions/batch}: a JSON array of actions → an array of records in the same order (a
 *       malformed element's {@code line} is its 1-based position); an element that is not an object, or a body that
 *       is not an array, is a {@code 400}.
 *   <li>{@code GET /health} → {@code 200} while serving; {@code GET /ready} → {@code 200} once the policy source
 *       answered, else {@code 503}; {@code GET /metrics} → the Prometheus text. {@code HEAD} is answered for them
 *       too.
 * </ul>
 * A body over {@value #MAX_BODY} bytes is a {@code 413} (from its {@code Content-Length}, or as soon as a chunked
 * body passes it), an unknown path a {@code 404}, another method a {@code 405} with {@code Allow}. With a token,
 * every path but {@code /health} and {@code /ready} first needs {@code Authorization: Bearer <token>} ({@code 401}
 * otherwise, unknown paths included, so that they do not reveal which routes exist).
 *
 * <h2>Threads</h2>
 * A request is handled on one of Jetty's pool threads. Its body is read without blocking: when bytes are missing
 * the handler asks Jetty to call it back when they come ({@link Request#demand}) and returns the thread, so a
 * client that stalls mid-body holds no thread; the read time-out answers {@code 408} and closes the connection if
 * the body is not complete in time, and the connector's idle time-out closes a connection on which nothing moves
 * (a client stalled in its headers never reached this handler). Deciding is CPU work, done on the thread that read
 * the last bytes. Thread-safe.
 *
 * <h2>A durable decision log</h2>
 * Given a durable {@link DecisionLog} ({@link #awaitDurable}), a decision route answers its {@code 200} only after
 * {@link DecisionLog#awaitDurable(Duration)} returned for the decisions of the request (all of a batch's): the
 * records are written and fsynced. When the log cannot say so within {@link #LOG_WAIT}, or failed, the answer is
 * {@code 503} {@code {"error": "the decision was not durably logged: ..."}}, never a record the log may not hold.
 * The wait holds the pool thread (for about one fsync, shared by the requests of one batch).
 */
final class DecisionHandler extends Handler.Abstract {
    /** The largest request body read: 1 MiB. */
    static final int MAX_BODY = 1024 * 1024;
    /** The longest a decision route waits for a durable decision log before it answers 503. */
    static final Duration LOG_WAIT = Duration.ofSeconds(10);

    static final String DECISIONS = "/v1/decisions";
    static final String BATCH = "/v1/decisions/batch";
    static final String SETTLEMENTS = "/v1/settlements";
    static final String HEALTH = "/health";
    static final String READY = "/ready";
    static final String METRICS = "/metrics";

    private static final String JSON_TYPE = "application/json";
    private static final String PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    /** Writes records as {@code custody replay}'s writer does (same factory settings, so the same bytes). */
    private static final JsonFactory WRITE = JsonFactory.builder()
            .disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
            .disable(StreamWriteFeature.FLUSH_PASSED_TO_STREAM)
            .build();

    /** Reads the shape of bodies (object? array of objects?); the actions themselves are read by ActionReader. */
    private static final JsonFactory READ = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(ActionReader.MAX_DEPTH).build())
            .build();

    private final PolicyEngine engine;
    /** Decides with the durable ledger's velocity, or null when the server keeps no ledger. */
    private final LedgerDecisions ledgerDecisions;
    private final JdbcVelocityLedger ledger;
    private final BearerToken token;
    private final BooleanSupplier ready;
    private final Supplier<String> scrape;
    private final HttpMetrics metrics;
    private final Duration readTimeout;
    /** The durable decision log a decision waits for before its 200, or null; set before the server starts. */
    private DecisionLog durableLog;
    /** The connections with a request in this handler now (HTTP/1.1: one at a time per connection). */
    private final java.util.Set<org.eclipse.jetty.io.EndPoint> busy = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * @param token the bearer token every route but health and ready needs, or null for none
     * @param ready whether the policy source has answered
     * @param scrape the Prometheus text of the registry
     * @param readTimeout the longest a request body may take to arrive, from the moment its headers were read
     */
    DecisionHandler(PolicyEngine engine, BearerToken token, BooleanSupplier ready, Supplier<String> scrape,
            HttpMetrics metrics, Duration readTimeout) {
        this(engine, null, null, token, ready, scrape, metrics, readTimeout);
    }

    /**
     * @param ledger the durable velocity ledger, or null for none
     * @param ledgerDecisions how actions are decided with it (null exactly when {@code ledger} is)
     */
    DecisionHandler(PolicyEngine engine, JdbcVelocityLedger ledger, LedgerDecisions ledgerDecisions, BearerToken token,
            BooleanSupplier ready, Supplier<String> scrape, HttpMetrics metrics, Duration readTimeout) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.ledger = ledger;
        this.ledgerDecisions = ledgerDecisions;
        this.token = token;
        this.ready = Objects.requireNonNull(ready, "ready");
        this.scrape = Objects.requireNonNull(scrape, "scrape");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.readTimeout = Objects.requireNonNull(readTimeout, "readTimeout");
    }

    /** Answers a decision only once {@code log} (durable) holds it on disk; call before the server starts. */
    void awaitDurable(DecisionLog log) {
        this.durableLog = Objects.requireNonNull(log, "log");
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        long start = System.nanoTime();
        String path = request.getHttpURI().getPath();
        String method = request.getMethod();
        String route = route(path);
        org.eclipse.jetty.io.EndPoint endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
        busy.add(endPoint);
        Callback timed = new Callback() {
            @Override
            public void succeeded() {
                busy.remove(endPoint);
                metrics.record(method, route, response.getStatus(), System.nanoTime() - start);
                callback.succeeded();
            }

            @Override
            public void failed(Throwable x) {
                busy.remove(endPoint);
                metrics.record(method, route, response.getStatus(), System.nanoTime() - start);
                callback.failed(x);
            }
        };
        boolean open = HEALTH.equals(route) || READY.equals(route);
        if (token != null && !open && !token.allows(request.getHeaders().get(HttpHeader.AUTHORIZATION))) {
            response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer");
            error(response, timed, 401, "missing or wrong bearer token");
            return true;
        }
        if (HttpMetrics.NOT_FOUND.equals(route)) {
            error(response, timed, 404, "no route `" + path + "`; the routes are POST " + DECISIONS + ", POST " + BATCH
                    + ", POST " + SETTLEMENTS + ", GET " + HEALTH + ", GET " + READY + ", GET " + METRICS);
            return true;
        }
        boolean post = DECISIONS.equals(route) || BATCH.equals(route) || SETTLEMENTS.equals(route);
        boolean allowed = post ? "POST".equals(method) : "GET".equals(method) || "HEAD".equals(method);
        if (!allowed) {
            response.getHeaders().put(HttpHeader.ALLOW, post ? "POST" : "GET, HEAD");
            error(response, timed, 405, "method " + method + " is not allowed on `" + route + "`; use "
                    + (post ? "POST" : "GET"));
            return true;
        }
        switch (route) {
            case HEALTH -> send(response, timed, 200, JSON_TYPE, "{\"status\":\"ok\"}");
            case READY -> {
                if (!ready.getAsBoolean()) {
                    send(response, timed, 503, JSON_TYPE, "{\"status\":\"not ready\",\"error\":"
                            + "\"the policy source has not answered yet\"}");
                } else if (ledger != null && !ledger.available()) {
                    error(response, timed, 503, "not ready", "the velocity ledger does not answer: " + ledger.lastError());
                } else {
                    send(response, timed, 200, JSON_TYPE, "{\"status\":\"ready\"}");
                }
            }
            case METRICS -> send(response, timed, 200, PROMETHEUS_TYPE, scrape.get());
            default -> {
                long length = request.getLength();
                if (length > MAX_BODY) {
                    tooLarge(response, timed);
                } else {
                    new Body(request, response, timed, route, length).start();
                }
            }
        }
        return true;
    }

    /** Whether a request of this connection is being handled (for the drain: the others are closed at once). */
    boolean busy(org.eclipse.jetty.io.EndPoint endPoint) {
        return busy.contains(endPoint);
    }

    /** The route of a path: itself when it is one, else {@link HttpMetrics#NOT_FOUND}. */
    static String route(String path) {
        if (path == null) {
            return HttpMetrics.NOT_FOUND;
        }
        return switch (path) {
            case DECISIONS, BATCH, SETTLEMENTS, HEALTH, READY, METRICS -> path;
            default -> HttpMetrics.NOT_FOUND;
        };
    }

    /**
     * One request body being read, chunk by chunk, without holding a thread while bytes are missing; then decided.
     * Exactly one answer is sent: the first of the decision, a {@code 413}, a {@code 400} and the read time-out.
     */
    private final class Body implements Runnable {
        private final Request request;
        private final Response response;
        private final Callback callback;
        private final String route;
        private final AtomicBoolean answered = new AtomicBoolean();
        private byte[] bytes;
        private int size;
        /** The read time-out, scheduled only when the body was not all there on the first read. */
        private volatile Scheduler.Task timeout;

        Body(Request request, Response response, Callback callback, String route, long length) {
            this.request = request;
            this.response = response;
            this.callback = callback;
            this.route = route;
            this.bytes = new byte[length >= 0 ? (int) length : 1024];
        }

        /**
         * Reads what has arrived; only when that is not the whole body, schedules the read time-out. Most bodies come
         * with their headers, and scheduling and cancelling a task for each of them took two locks of the shared
         * scheduler per request.
         */
        void start() {
            run();
            if (!answered.get()) {
                Scheduler.Task task = request.getComponents().getScheduler().schedule(this::timedOut,
                        readTimeout.toMillis(), TimeUnit.MILLISECONDS);
                timeout = task;
                if (answered.get()) {
                    task.cancel(); // answered meanwhile, on the thread that read the rest, before it saw the task
                }
            }
        }

        /** Reads what has arrived; asks to be called again when more comes. */
        @Override
        public void run() {
            while (true) {
                Content.Chunk chunk = request.read();
                if (chunk == null) {
                    request.demand(this);
                    return;
                }
                if (Content.Chunk.isFailure(chunk)) {
                    if (answer()) {
                        Throwable failure = chunk.getFailure();
                        response.getHeaders().put(HttpHeader.CONNECTION, "close");
                        if (failure instanceof java.util.concurrent.TimeoutException) {
                            // the connection's idle time-out: the client stopped sending its body
                            error(response, callback, 408, "the request body stopped arriving: " + oneLine(failure));
                        } else {
                            error(response, callback, 400, "the request body could not be read: " + oneLine(failure));
                        }
                    }
                    return;
                }
                int n = chunk.remaining();
                if (n > 0) {
                    if ((long) size + n > MAX_BODY) {
                        chunk.release();
                        if (answer()) {
                            tooLarge(response, callback);
                        }
                        return;
                    }
                    if (size + n > bytes.length) {
                        bytes = java.util.Arrays.copyOf(bytes, Math.min(MAX_BODY, Math.max(size + n, bytes.length * 2)));
                    }
                    chunk.getByteBuffer().get(bytes, size, n);
                    size += n;
                }
                boolean last = chunk.isLast();
                chunk.release();
                if (last) {
                    if (answer()) {
                        decide();
                    }
                    return;
                }
            }
        }

        private boolean answer() {
            if (!answered.compareAndSet(false, true)) {
                return false;
            }
            Scheduler.Task task = timeout;
            if (task != null) {
                task.cancel();
            }
            return true;
        }

        private void timedOut() {
            if (answer()) {
                response.getHeaders().put(HttpHeader.CONNECTION, "close");
                error(response, callback, 408, "the request body did not arrive within " + readTimeout.toMillis() + " ms");
            }
        }

        private void decide() {
            byte[] out;
            try {
                out = switch (route) {
                    case BATCH -> decideBatch(bytes, size);
                    case SETTLEMENTS -> settle(bytes, size);
                    default -> decideOne(bytes, size);
                };
            } catch (BadRequest e) {
                error(response, callback, e.status, e.getMessage());
                return;
            }
            if (durableLog != null) {
                try {
                    durableLog.awaitDurable(LOG_WAIT);
                } catch (DecisionLog.NotDurableException e) {
                    error(response, callback, 503, "the decision was not durably logged: " + e.getMessage());
                    return;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    error(response, callback, 503, "the decision was not durably logged: the server is stopping");
                    return;
                }
            }
            send(response, callback, 200, JSON_TYPE, out);
        }
    }

    /** A body that cannot be answered with records; its message is the {@code error}. */
    static final class BadRequest extends Exception {
        final int status;

        BadRequest(String message) {
            this(400, message);
        }

        BadRequest(int status, String message) {
            super(message, null, false, false);
            this.status = status;
        }
    }

    /** The decisions of actions (null elements stay null), with the ledger's velocity when the server keeps one. */
    private Decision[] decide(List<Action> actions) {
        if (ledgerDecisions != null) {
            return ledgerDecisions.decide(actions);
        }
        Decision[] out = new Decision[actions.size()];
        for (int i = 0; i < out.length; i++) {
            Action a = actions.get(i);
            out[i] = a == null ? null : engine.evaluate(a, false);
        }
        return out;
    }

    /** The record of one action body. */
    byte[] decideOne(byte[] body, int size) throws BadRequest {
        ActionReader.Result r = ActionReader.read(body, 0, size);
        if (r instanceof ActionReader.Read read) {
            return record(decide(java.util.Collections.singletonList(read.action()))[0]);
        }
        if (r instanceof ActionReader.SettlementRead) {
            throw new BadRequest(settlement());
        }
        ActionReader.Malformed m = (ActionReader.Malformed) r;
        if (!isObject(body, 0, size)) {
            throw new BadRequest("the body is not a JSON object: " + m.message());
        }
        return malformed(m, 1);
    }

    /** The records of a batch body, as a JSON array. */
    byte[] decideBatch(byte[] body, int size) throws BadRequest {
        List<int[]> elements = elements(body, size);
        // read every element before deciding any: a batch refused with 400 records no attempt
        ActionReader.Result[] read = new ActionReader.Result[elements.size()];
        List<Action> actions = new ArrayList<>(elements.size());
        for (int i = 0; i < elements.size(); i++) {
            int[] span = elements.get(i);
            read[i] = ActionReader.read(body, span[0], span[1] - span[0]);
            if (read[i] instanceof ActionReader.SettlementRead) {
                throw new BadRequest("element " + (i + 1) + ": " + settlement());
            }
            actions.add(read[i] instanceof ActionReader.Read r ? r.action() : null);
        }
        Decision[] decisions = decide(actions);
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, elements.size() * 320));
        out.write('[');
        for (int i = 0; i < elements.size(); i++) {
            byte[] record = decisions[i] != null ? record(decisions[i])
                    : malformed((ActionReader.Malformed) read[i], i + 1);
            if (i > 0) {
                out.write(',');
            }
            out.writeBytes(record);
        }
        out.write(']');
        return out.toByteArray();
    }

    private String settlement() {
        return ledger != null
                ? "a `withdrawal.settled` record is not an action: post it to " + SETTLEMENTS
                : "a `withdrawal.settled` record is not an action: the server decides actions as given and keeps no "
                        + "velocity ledger (start it with `--ledger`)";
    }

    /**
     * {@code POST /v1/settlements}: one {@code withdrawal.settled} record or an array of them, recorded in the ledger
     * in one transaction and answered after it committed: {@code {"recorded": n, "duplicates": n, "too_old": n,
     * "refused": n, "conflicts": n, "settlements": [{"id", "status"[, "error"]}, ...]}} in the body's order (a
     * {@code conflict}: the id was recorded with other content, nothing recorded for it). A body with a malformed
     * record is a {@code 400} and records nothing; a ledger that does not answer is a {@code 503} (nothing is
     * acknowledged); a server without a ledger answers {@code 501}.
     */
    byte[] settle(byte[] body, int size) throws BadRequest {
        if (ledger == null) {
            throw new BadRequest(501, "this server keeps no velocity ledger: start it with `--ledger` to record "
                    + "settlements");
        }
        List<int[]> spans;
        boolean array = firstToken(body, size) == JsonToken.START_ARRAY;
        if (array) {
            spans = elements(body, size);
        } else {
            spans = List.of(new int[] {0, size});
        }
        List<JdbcVelocityLedger.Operation> ops = new ArrayList<>(spans.size());
        List<Settlement> settlements = new ArrayList<>(spans.size());
        for (int i = 0; i < spans.size(); i++) {
            int[] span = spans.get(i);
            String where = array ? "element " + (i + 1) + ": " : "";
            ActionReader.Result r = ActionReader.read(body, span[0], span[1] - span[0]);
            if (r instanceof ActionReader.SettlementRead s) {
                settlements.add(s.settlement());
                ops.add(new JdbcVelocityLedger.RecordSettlement(s.settlement()));
            } else if (r instanceof ActionReader.Read) {
                throw new BadRequest(where + "an action is not a `withdrawal.settled` record: post it to " + DECISIONS);
            } else {
                ActionReader.Malformed m = (ActionReader.Malformed) r;
                if (!array && !isObject(body, 0, size)) {
                    throw new BadRequest("the body is not a JSON object nor an array of them: " + m.message());
                }
                throw new BadRequest(where + m.message());
            }
        }
        List<JdbcVelocityLedger.Outcome> outcomes;
        try {
            outcomes = ledger.apply(ops);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        } catch (VelocityException e) {
            throw new BadRequest(503, "not recorded: " + e.getMessage());
        }
        int[] counts = new int[JdbcVelocityLedger.Settled.Status.values().length];
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + 48 * ops.size());
        try (JsonGenerator g = generator(out)) {
            g.writeStartObject();
            for (JdbcVelocityLedger.Outcome o : outcomes) {
                counts[((JdbcVelocityLedger.Settled) o).status().ordinal()]++;
            }
            for (JdbcVelocityLedger.Settled.Status s : JdbcVelocityLedger.Settled.Status.values()) {
                g.writeNumberField(switch (s) {
                    case RECORDED -> "recorded";
                    case DUPLICATE -> "duplicates";
                    case TOO_OLD -> "too_old";
                    case REFUSED -> "refused";
                    case CONFLICT -> "conflicts";
                }, counts[s.ordinal()]);
            }
            g.writeArrayFieldStart("settlements");
            for (int i = 0; i < outcomes.size(); i++) {
                JdbcVelocityLedger.Settled o = (JdbcVelocityLedger.Settled) outcomes.get(i);
                g.writeStartObject();
                g.writeStringField("id", settlements.get(i).id());
                g.writeStringField("status", o.status().name().toLowerCase(java.util.Locale.ROOT));
                if (o.refusal() != null) {
                    g.writeStringField("error", o.refusal());
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static JsonToken firstToken(byte[] body, int size) {
        try (JsonParser p = READ.createParser(body, 0, size)) {
            return p.nextToken();
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Where each element of a JSON array of objects starts and ends in the body (end exclusive).
     *
     * @throws BadRequest when the body is not a JSON array of objects
     */
    static List<int[]> elements(byte[] body, int size) throws BadRequest {
        List<int[]> out = new ArrayList<>();
        try (JsonParser p = READ.createParser(body, 0, size)) {
            if (p.nextToken() != JsonToken.START_ARRAY) {
                throw new BadRequest("the body is not a JSON array of actions");
            }
            for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
                if (t != JsonToken.START_OBJECT) {
                    throw new BadRequest("element " + (out.size() + 1) + " of the batch is not a JSON object");
                }
                int from = (int) p.currentTokenLocation().getByteOffset();
                p.skipChildren();
                int to = (int) p.currentLocation().getByteOffset();
                out.add(new int[] {from, to});
            }
            if (p.nextToken() != null) {
                throw new BadRequest("the body has text after the JSON array");
            }
        } catch (IOException e) {
            throw new BadRequest("the body is not a JSON array of actions: " + oneLine(e));
        }
        return out;
    }

    /** Whether the bytes are one JSON object and nothing more (duplicate keys allowed: the action reader refuses them). */
    static boolean isObject(byte[] body, int offset, int size) {
        try (JsonParser p = READ.createParser(body, offset, size)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return false;
            }
            p.skipChildren();
            return p.nextToken() == null;
        } catch (IOException e) {
            return false;
        }
    }

    /** The record of a decision: replay's record ({@link DecisionRecords#fields}), then {@code decision_id}. */
    static byte[] record(Decision d) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(320);
        try (JsonGenerator g = generator(out)) {
            g.writeStartObject();
            DecisionRecords.fields(g, d);
            g.writeStringField("decision_id", decisionId());
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /**
     * The record of a malformed action as replay writes it for a malformed line
     * ({@link DecisionRecords#malformedFields}), then {@code decision_id}.
     */
    static byte[] malformed(ActionReader.Malformed m, long line) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(320);
        try (JsonGenerator g = generator(out)) {
            g.writeStartObject();
            DecisionRecords.malformedFields(g, new ActionStream.MalformedLine(line, m.column(), m.id(), m.message()));
            g.writeStringField("decision_id", decisionId());
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static JsonGenerator generator(ByteArrayOutputStream out) throws IOException {
        JsonGenerator g = WRITE.createGenerator(out);
        g.setRootValueSeparator(null);
        return g;
    }

    /**
     * A random (version 4) UUID for each decision. From {@link ThreadLocalRandom}, not {@link UUID#randomUUID()}:
     * the id must be unique, not unguessable, and the secure generator is one lock shared by every request thread.
     */
    static String decisionId() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        long hi = (r.nextLong() & 0xffffffffffff0fffL) | 0x0000000000004000L;
        long lo = (r.nextLong() & 0x3fffffffffffffffL) | 0x8000000000000000L;
        return new UUID(hi, lo).toString();
    }

    private static void tooLarge(Response response, Callback callback) {
        response.getHeaders().put(HttpHeader.CONNECTION, "close");
        error(response, callback, 413, "the request body is larger than " + MAX_BODY + " bytes (1 MiB)");
    }

    private static void error(Response response, Callback callback, int status, String message) {
        error(response, callback, status, null, message);
    }

    private static void error(Response response, Callback callback, int status, String state, String message) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(128);
        try (JsonGenerator g = generator(out)) {
            g.writeStartObject();
            if (state != null) {
                g.writeStringField("status", state);
            }
            g.writeStringField("error", message);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        send(response, callback, status, JSON_TYPE, out.toByteArray());
    }

    private static void send(Response response, Callback callback, int status, String type, String body) {
        send(response, callback, status, type, body.getBytes(StandardCharsets.UTF_8));
    }

    private static void send(Response response, Callback callback, int status, String type, byte[] body) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    private static String oneLine(Throwable t) {
        String m = t.getMessage();
        return m == null ? t.getClass().getSimpleName() : m.lines().findFirst().orElse(m);
    }
}
