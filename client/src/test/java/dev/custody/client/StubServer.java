package dev.custody.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * A real HTTP server on 127.0.0.1 (ephemeral port) for client tests: it records every request
 * (method, raw path, raw query, headers, body) and answers from scripted replies per
 * {@code METHOD path}; the last reply of a route repeats. Unscripted routes answer 404. A route may
 * also answer through a function of the request ({@link #respond}), to echo what was sent.
 */
public final class StubServer implements AutoCloseable {
    /** One recorded request; header names are lowercase. */
    public record Recorded(String method, String path, String query, Map<String, String> headers, String body) {
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    /** One scripted reply. */
    public record Reply(int status, String body) {
    }

    static {
        // answer without Nagle's delay: the headers and the body are separate writes, and the delayed
        // ACK of the client would otherwise hold every answer ~40 ms (read once, when the JDK's
        // server classes are first used)
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    private final HttpServer server;
    private final Map<String, Deque<Reply>> routes = new HashMap<>();
    private final Map<String, Function<Recorded, Reply>> responders = new HashMap<>();
    private final List<Recorded> requests = new ArrayList<>();
    private final ExecutorService pool;

    /** A server that answers one request at a time. */
    public StubServer() throws IOException {
        this(0);
    }

    /** A server that answers up to {@code threads} requests at once ({@code 0}: one at a time). */
    public StubServer(int threads) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        pool = threads > 0 ? Executors.newFixedThreadPool(threads) : null;
        if (pool != null) {
            server.setExecutor(pool);
        }
        server.start();
    }

    /** Answers {@code method path} with {@code responder}'s reply to each request (it may block). */
    public synchronized StubServer respond(String method, String path, Function<Recorded, Reply> responder) {
        responders.put(method + " " + path, responder);
        return this;
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/api/v1";
    }

    /** Scripts the replies of {@code method path} (path as sent, including /api/v1). */
    public synchronized StubServer on(String method, String path, Reply... replies) {
        routes.put(method + " " + path, new ArrayDeque<>(List.of(replies)));
        return this;
    }

    /** Shorthand: a 200 envelope whose {@code data} is {@code dataJson}. */
    public StubServer ok(String method, String path, String dataJson) {
        return on(method, path, new Reply(200, envelope(dataJson)));
    }

    public static String envelope(String dataJson) {
        return "{\"success\":true,\"message\":\"ok\",\"code\":0,\"data\":" + dataJson + ",\"server_added\":1}";
    }

    public synchronized List<Recorded> requests() {
        return List.copyOf(requests);
    }

    public Recorded only() {
        List<Recorded> all = requests();
        if (all.size() != 1) {
            throw new AssertionError("expected exactly one request, got " + all.size() + ": " + all);
        }
        return all.get(0);
    }

    private void handle(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        Map<String, String> headers = new TreeMap<>();
        exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), String.join(",", v)));
        String path = exchange.getRequestURI().getRawPath();
        Reply reply;
        Recorded recorded = new Recorded(exchange.getRequestMethod(), path, exchange.getRequestURI().getRawQuery(),
                headers, body);
        Function<Recorded, Reply> responder;
        synchronized (this) {
            requests.add(recorded);
            responder = responders.get(exchange.getRequestMethod() + " " + path);
        }
        reply = responder != null ? responder.apply(recorded) : scripted(exchange.getRequestMethod(), path);
        byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(reply.status(), bytes.length == 0 ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private synchronized Reply scripted(String method, String path) {
        Deque<Reply> queue = routes.get(method + " " + path);
        if (queue == null || queue.isEmpty()) {
            return new Reply(404, "{\"success\":false,\"code\":404,\"message\":\"no stub for "
                    + method + " " + path + "\"}");
        }
        return queue.size() > 1 ? queue.poll() : queue.peek();
    }

    @Override
    public void close() {
        server.stop(0);
        if (pool != null) {
            pool.shutdownNow();
        }
    }
}
