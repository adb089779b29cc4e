package dev.custody.client;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One request for the {@link HttpTransport}, as the {@link CustodyClient} facade describes it: method,
 * path below the base URL (segments already encoded), JSON body, query parameters, and how to send
 * and read it (credentials or not, idempotency key, shape of the answer, whether data may be absent).
 *
 * <p>Mutable while the facade assembles it, then only read; not shared between threads.
 */
final class ApiRequest {
    /** Whether the body of an answer is the envelope, bare JSON, or either (decided by its {@code success}). */
    enum Shape { ENVELOPE, BARE, AUTO }

    final String method;
    final String path;
    final String body;
    final List<String[]> query = new ArrayList<>();
    boolean authenticated = true;
    boolean optionalData;
    String idempotencyKey;
    Shape shape = Shape.ENVELOPE;

    private ApiRequest(String method, String path, String body) {
        this.method = method;
        this.path = path;
        this.body = body;
    }

    static ApiRequest get(String path) {
        return new ApiRequest("GET", path, null);
    }

    static ApiRequest post(String path, String body) {
        return new ApiRequest("POST", path, body);
    }

    static ApiRequest put(String path, String body) {
        return new ApiRequest("PUT", path, body);
    }

    static ApiRequest delete(String path) {
        return new ApiRequest("DELETE", path, null);
    }

    /** The endpoint is public: no credentials header is sent. */
    ApiRequest publicEndpoint() {
        this.authenticated = false;
        return this;
    }

    /** The answer may carry no data (a gated change may answer with the envelope alone). */
    ApiRequest optionalData() {
        this.optionalData = true;
        return this;
    }

    ApiRequest shape(Shape s) {
        this.shape = s;
        return this;
    }

    ApiRequest idempotencyKey(String key) {
        this.idempotencyKey = key;
        return this;
    }

    /** Adds {@code name=value} unless {@code value} is {@code null}; repeated names are kept in order. */
    ApiRequest query(String name, Object value) {
        if (value != null) {
            query.add(new String[] {name, value.toString()});
        }
        return this;
    }

    /** Only GET, PUT, DELETE and POSTs that carry an idempotency key may be sent more than once. */
    boolean retryable() {
        return !"POST".equals(method) || idempotencyKey != null;
    }

    String queryString() {
        if (query.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        for (String[] p : query) {
            sb.append(sb.length() == 0 ? '?' : '&').append(encode(p[0])).append('=').append(encode(p[1]));
        }
        return sb.toString();
    }

    /** Percent-encodes a path segment or query part (a space is {@code %20}, not {@code +}). */
    static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
