package dev.custody.client;

import static dev.custody.client.Text.firstLine;
import static dev.custody.client.Text.oneLine;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The transport under the {@link CustodyClient} facade: sends an {@link ApiRequest} and returns the
 * typed answer, or throws a {@link CustodyClientException}.
 *
 * <ul>
 *   <li><b>Exchange.</b> The URI is the base URL, the path and the query string; every request asks
 *       for JSON, and a body is sent as {@code application/json} with exactly the bytes signed.</li>
 *   <li><b>Signing.</b> Authenticated requests are signed afresh on every attempt with
 *       {@code ACCESS-API-KEY}, {@code ACCESS-TIMESTAMP} (Unix seconds of the clock) and
 *       {@code ACCESS-SIGN} ({@link RequestSigner}) over the raw path, without query string. Without
 *       credentials they are refused before sending ({@link InvalidRequestException}).</li>
 *   <li><b>Retries.</b> {@linkplain ApiRequest#retryable() Idempotent} requests are retried on 429,
 *       5xx and I/O failures, up to {@link CustodyClientConfig#maxAttempts()} attempts, the backoff
 *       doubling from the initial to the maximum backoff; other POSTs are sent once. An I/O failure on
 *       the last attempt is a {@link CustodyTransportException}.</li>
 *   <li><b>Answers.</b> The final status and body go to the {@link ResponseReader} (envelope, data,
 *       error mapping to {@link CustodyApiException}).</li>
 *   <li><b>Time-out.</b> The whole exchange of one attempt, the response headers and the body, waits
 *       at most the request time-out; then it is cancelled (its connection closed) and counts as an
 *       I/O failure: retried like one, a {@link CustodyTransportException} on the last attempt.</li>
 *   <li><b>Secrets.</b> Each exchange has its own {@link Redactor}: the secret and the key, plus the
 *       signatures of that exchange's attempts. Every debug line, warning, message and answer text
 *       goes through it, redacted before it is cut; the secret is never written, the API key only
 *       masked.</li>
 * </ul>
 *
 * <p>Thread-safe once built, provided the injected clock, sleeper and debug sink are: the fields
 * are final, {@link HttpClient} and the mapper are thread-safe, and the redactor is concurrent.
 */
final class HttpTransport {
    private static final int MAX_LOGGED_BODY = 2_000;

    private final CustodyClientConfig config;
    private final HttpClient http;
    private final Clock clock;
    private final Sleeper sleeper;
    private final Consumer<String> debug;
    private final RequestSigner signer;
    private final Redactor redactor;
    private final ObjectMapper mapper;
    private final ResponseReader reader;

    /**
     * @param httpClient a preconfigured client, or {@code null} to build one with the config's connect
     *     time-out (HTTP/1.1, redirects not followed)
     * @param debug receives debug lines, already redacted
     */
    HttpTransport(CustodyClientConfig config, HttpClient httpClient, Clock clock, Sleeper sleeper,
            Consumer<String> debug) {
        this.config = config;
        this.http = httpClient != null ? httpClient : HttpClient.newBuilder()
                .connectTimeout(config.connectTimeout())
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
        this.clock = clock;
        this.sleeper = sleeper;
        this.debug = debug;
        this.signer = config.hasCredentials() ? new RequestSigner(config.apiSecret()) : null;
        this.redactor = new Redactor(config.apiSecret(), config.apiKey());
        this.mapper = newMapper();
        this.reader = new ResponseReader(mapper);
    }

    /** The JSON mapper of the client: unknown fields ignored, nulls not written. */
    static ObjectMapper newMapper() {
        return new ObjectMapper()
                .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
                .setSerializationInclusion(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL);
    }

    /** This transport's mapper (for request bodies and types); callers must not reconfigure it. */
    ObjectMapper mapper() {
        return mapper;
    }

    /** Sends {@code request} and reads its whole {@code data} as {@code type}. */
    <T> ApiResponse<T> call(ApiRequest request, JavaType type) {
        return call(request, type, Function.identity());
    }

    /**
     * Sends {@code request}, retrying when it is idempotent, and reads the part of {@code data} that
     * {@code select} picks as {@code type}.
     *
     * @throws InvalidRequestException if the endpoint needs credentials and none are configured
     * @throws CustodyTransportException if no answer came after the attempts allowed
     * @throws CustodyApiException if the answer is a failure or unreadable
     */
    <T> ApiResponse<T> call(ApiRequest request, JavaType type, Function<JsonNode, JsonNode> select) {
        if (request.authenticated && signer == null) {
            throw new InvalidRequestException("missing api credentials for `" + request.method + " " + request.path
                    + "`: set `CUSTODY_API_KEY` and `CUSTODY_API_SECRET`");
        }
        URI uri = URI.create(config.baseUrl() + request.path + request.queryString());
        String signedPath = uri.getRawPath();
        int attempts = request.retryable() ? config.maxAttempts() : 1;
        Duration backoff = config.initialBackoff();
        // the redactor of this exchange: the secret and the key, plus every signature sent so far
        Redactor exchange = redactor;
        for (int attempt = 1; ; attempt++) {
            Attempt signed = build(request, uri, signedPath, exchange);
            exchange = signed.redactor();
            HttpResponse<String> response;
            try {
                long started = System.nanoTime();
                response = send(signed.request());
                debug(exchange, "< " + response.statusCode() + " in " + (System.nanoTime() - started) / 1_000_000
                        + " ms");
                debug(exchange, "< body: " + truncate(exchange, response.body()));
            } catch (IOException e) {
                String reason = describe(e);
                debug(exchange, "! attempt " + attempt + "/" + attempts + " failed: " + reason);
                if (attempt >= attempts) {
                    String what = e instanceof BodyTimeoutException ? "no complete answer from `" : "cannot reach `";
                    throw new CustodyTransportException(exchange.redact(what + config.baseUrl() + "`: " + reason
                            + (attempts > 1 ? " (after " + attempts + " attempts)" : "")), attempt, exchange.redact(e));
                }
                backoff = waitBeforeRetry(backoff);
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CustodyTransportException("interrupted while calling `" + request.method + " " + signedPath
                        + "`", attempt, e);
            }
            int status = response.statusCode();
            if ((status == 429 || status >= 500) && attempt < attempts) {
                debug(exchange, "! attempt " + attempt + "/" + attempts + " answered " + status + ": retrying");
                backoff = waitBeforeRetry(backoff);
                continue;
            }
            return reader.read(request, status, response.body(), type, select, exchange);
        }
    }

    /**
     * Sends {@code request} and reads the whole answer within the request time-out. The time-out of
     * {@link HttpRequest#timeout} only bounds the wait for the response headers; a server that sends
     * them and then stalls the body would hold the caller for ever. So the whole exchange, headers and
     * body, waits at most the request time-out, after which it is cancelled, which closes the
     * connection.
     *
     * @throws HttpTimeoutException if no headers came in time
     * @throws BodyTimeoutException if the headers came but the body did not complete in time
     */
    private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        AtomicBoolean headersReceived = new AtomicBoolean();
        HttpResponse.BodyHandler<String> handler = info -> {
            headersReceived.set(true);
            return HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8).apply(info);
        };
        CompletableFuture<HttpResponse<String>> pending = http.sendAsync(request, handler);
        try {
            return pending.get(config.requestTimeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            pending.cancel(true);
            if (headersReceived.get()) {
                throw new BodyTimeoutException("the response body did not complete within the "
                        + human(config.requestTimeout()) + " request time-out");
            }
            throw new HttpTimeoutException("request timed out");
        } catch (InterruptedException e) {
            pending.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            while (cause instanceof CompletionException && cause.getCause() != null) {
                cause = cause.getCause();
            }
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IOException(cause);
        }
    }

    /** The headers of a response came within the request time-out, but its body did not. */
    static final class BodyTimeoutException extends HttpTimeoutException {
        private static final long serialVersionUID = 1L;

        BodyTimeoutException(String message) {
            super(message);
        }
    }

    /** One signed attempt, and the redactor that also hides its signature. */
    private record Attempt(HttpRequest request, Redactor redactor) {
    }

    /** One attempt of {@code request}, signed now; {@code exchange} grows by its signature. */
    private Attempt build(ApiRequest request, URI uri, String signedPath, Redactor exchange) {
        HttpRequest.Builder rb = HttpRequest.newBuilder(uri)
                .timeout(config.requestTimeout())
                .header("Accept", "application/json");
        String body = request.body == null ? "" : request.body;
        long timestamp = 0;
        String signature = null;
        if (request.authenticated) {
            timestamp = clock.instant().getEpochSecond();
            String hex = signer.hexDigest(request.method, signedPath, timestamp, body);
            signature = Base64.getEncoder().encodeToString(hex.getBytes(StandardCharsets.US_ASCII));
            exchange = exchange.withSignatures(hex, signature);
        }
        debug(exchange, "> " + request.method + " " + uri);
        if (request.body != null) {
            rb.header("Content-Type", "application/json");
            rb.method(request.method, HttpRequest.BodyPublishers.ofString(request.body, StandardCharsets.UTF_8));
            debug(exchange, "> body: " + truncate(exchange, request.body));
        } else {
            rb.method(request.method, HttpRequest.BodyPublishers.noBody());
        }
        if (request.idempotencyKey != null) {
            rb.header("X-Idempotency-Key", request.idempotencyKey);
            debug(exchange, "> X-Idempotency-Key: " + request.idempotencyKey);
        }
        if (request.authenticated) {
            try {
                rb.header("ACCESS-API-KEY", config.apiKey());
            } catch (IllegalArgumentException e) {
                // java.net.http quotes the refused value in its message: never pass it on
                throw new InvalidRequestException("the api key cannot be sent: it holds characters that an http "
                        + "header cannot carry (check `CUSTODY_API_KEY`)");
            }
            rb.header("ACCESS-TIMESTAMP", Long.toString(timestamp));
            rb.header("ACCESS-SIGN", signature);
            debug(exchange, "> ACCESS-API-KEY: " + CustodyClientConfig.maskKey(config.apiKey()));
            debug(exchange, "> ACCESS-TIMESTAMP: " + timestamp);
            debug(exchange, "> ACCESS-SIGN: " + Redactor.MASK);
        }
        return new Attempt(rb.build(), exchange);
    }

    /** {@code value} as the JSON body to send. */
    String json(Object value) {
        try {
            return mapper.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new InvalidRequestException("cannot write the request body: " + firstLine(e.getOriginalMessage()));
        }
    }

    private Duration waitBeforeRetry(Duration backoff) {
        pause(backoff);
        Duration next = backoff.multipliedBy(2);
        return next.compareTo(config.maxBackoff()) > 0 ? config.maxBackoff() : next;
    }

    /**
     * Waits {@code duration} with the sleeper.
     *
     * @throws CustodyTransportException if interrupted (the interrupt flag is set again)
     */
    void pause(Duration duration) {
        try {
            sleeper.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CustodyTransportException("interrupted while waiting", 0, e);
        }
    }

    /** {@code text} without the API secret or the API key (whole or in fragments). */
    String redact(String text) {
        return redactor.redact(text);
    }

    /** Writes a debug line, redacted of the secret and the key. */
    void debug(String line) {
        debug(redactor, line);
    }

    private void debug(Redactor exchange, String line) {
        debug.accept(exchange.redact(line));
    }

    /**
     * {@code s} on one line, redacted, then cut to {@value #MAX_LOGGED_BODY} characters: redacting
     * first, so that a cut never leaves a piece of a credential behind.
     */
    private static String truncate(Redactor exchange, String s) {
        String one = exchange.redact(oneLine(exchange.redact(s)));
        return one.length() > MAX_LOGGED_BODY ? one.substring(0, MAX_LOGGED_BODY) + "…" : one;
    }

    /** {@code d} as {@code 2 s} or {@code 300 ms}. */
    static String human(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
    }

    private static String describe(IOException e) {
        if (e instanceof HttpConnectTimeoutException) {
            return "connect timed out";
        }
        if (e instanceof BodyTimeoutException) {
            return e.getMessage();
        }
        if (e instanceof HttpTimeoutException) {
            return "request timed out";
        }
        if (e instanceof ConnectException) {
            return "connection refused";
        }
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName().toLowerCase(Locale.ROOT) : oneLine(m);
    }
}
