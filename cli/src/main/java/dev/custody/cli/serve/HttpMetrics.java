package dev.custody.cli.serve;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * {@code http.server.requests} (Prometheus: {@code http_server_requests_seconds_count}, {@code _sum}, {@code _max}),
 * a Micrometer timer per {@code method}, {@code uri} (the route: {@code /v1/decisions}, {@code /v1/decisions/batch},
 * {@code /health}, {@code /ready}, {@code /metrics}, or {@code NOT_FOUND} for any other path), {@code status} and
 * {@code outcome} ({@code SUCCESS}, {@code CLIENT_ERROR}, {@code SERVER_ERROR}): the tags Spring's and Micronaut's
 * servers use, so the usual dashboards work.
 *
 * <p>Bounded cardinality: paths outside the routes share one tag value and methods outside the usual ones are
 * {@code OTHER}, so a scanner cannot grow the registry. Each timer is looked up in a map of its own after its first
 * use (not built through Micrometer's builder per request). Thread-safe.
 */
final class HttpMetrics {
    static final String NAME = "http.server.requests";
    /** The {@code uri} tag of a path that is no route. */
    static final String NOT_FOUND = "NOT_FOUND";

    private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS");

    private record Key(String method, String uri, int status) {}

    private final MeterRegistry registry;
    private final ConcurrentHashMap<Key, Timer> timers = new ConcurrentHashMap<>();

    HttpMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Records one request of {@code nanos}. */
    void record(String method, String uri, int status, long nanos) {
        Key key = new Key(METHODS.contains(method) ? method : "OTHER", uri, status);
        Timer timer = timers.get(key);
        if (timer == null) {
            timer = timers.computeIfAbsent(key, k -> Timer.builder(NAME)
                    .description("HTTP requests the decision server answered")
                    .tag("method", k.method())
                    .tag("uri", k.uri())
                    .tag("status", Integer.toString(k.status()))
                    .tag("outcome", k.status() >= 500 ? "SERVER_ERROR" : k.status() >= 400 ? "CLIENT_ERROR" : "SUCCESS")
                    .register(registry));
        }
        timer.record(nanos, TimeUnit.NANOSECONDS);
    }
}
