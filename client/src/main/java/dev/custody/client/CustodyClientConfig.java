package dev.custody.client;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * Connection settings of a {@link CustodyClient}: base URL (which includes {@code /api/v1}),
 * credentials, time-outs and the retry budget.
 *
 * <p>Immutable and thread-safe. The API secret has no public accessor, and {@link #toString()}
 * masks it (and shows only the first characters of the API key), so a config can be logged.
 */
public final class CustodyClientConfig {
    private final URI baseUrl;
    private final String apiKey;
    private final String apiSecret;
    private final Duration connectTimeout;
    private final Duration requestTimeout;
    private final int maxAttempts;
    private final Duration initialBackoff;
    private final Duration maxBackoff;

    private CustodyClientConfig(Builder b) {
        this.baseUrl = normalize(b.baseUrl);
        this.apiKey = emptyToNull(b.apiKey);
        this.apiSecret = emptyToNull(b.apiSecret);
        this.connectTimeout = positive(b.connectTimeout, "connect timeout");
        this.requestTimeout = positive(b.requestTimeout, "request timeout");
        if (b.maxAttempts < 1 || b.maxAttempts > 10) {
            throw new IllegalArgumentException("max attempts must be between 1 and 10, got " + b.maxAttempts);
        }
        this.maxAttempts = b.maxAttempts;
        this.initialBackoff = positive(b.initialBackoff, "initial backoff");
        this.maxBackoff = positive(b.maxBackoff, "max backoff");
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("max backoff is shorter than the initial backoff");
        }
    }

    /** A builder with the defaults: 10 s connect, 30 s request time-out, 3 attempts, 0.5–5 s backoff. */
    public static Builder builder(String baseUrl) {
        return new Builder(baseUrl);
    }

    /** The base URL, without a trailing slash, for example {@code https://host/api/v1}. */
    public URI baseUrl() {
        return baseUrl;
    }

    /** The API key, or {@code null} when none is configured. */
    public String apiKey() {
        return apiKey;
    }

    /** Whether both the API key and the secret are configured. */
    public boolean hasCredentials() {
        return apiKey != null && apiSecret != null;
    }

    /** Package-private on purpose: only the client itself may read the secret. */
    String apiSecret() {
        return apiSecret;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    /**
     * How long one attempt may take, from sending the request to the last byte of the answer: the
     * response headers and the whole body (a stalled body counts as a time-out).
     */
    public Duration requestTimeout() {
        return requestTimeout;
    }

    /** Attempts per idempotent request, the first one included. */
    public int maxAttempts() {
        return maxAttempts;
    }

    public Duration initialBackoff() {
        return initialBackoff;
    }

    public Duration maxBackoff() {
        return maxBackoff;
    }

    @Override
    public String toString() {
        return "CustodyClientConfig[baseUrl=" + baseUrl
                + ", apiKey=" + maskKey(apiKey)
                + ", apiSecret=" + (apiSecret == null ? "<none>" : Redactor.MASK)
                + ", connectTimeout=" + connectTimeout
                + ", requestTimeout=" + requestTimeout
                + ", maxAttempts=" + maxAttempts
                + ", initialBackoff=" + initialBackoff
                + ", maxBackoff=" + maxBackoff + "]";
    }

    static String maskKey(String key) {
        if (key == null) {
            return "<none>";
        }
        return key.length() <= 8 ? "****" : key.substring(0, 4) + "****";
    }

    private static URI normalize(String raw) {
        Objects.requireNonNull(raw, "baseUrl");
        String trimmed = raw.strip();
        while (trimmed.endsWith("/")) {
            trimmed = trimmed.substring(0, trimmed.length() - 1);
        }
        URI uri;
        try {
            uri = URI.create(trimmed);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("base url `" + raw + "` is not a valid url");
        }
        if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) {
            throw new IllegalArgumentException("base url `" + raw + "` must start with http:// or https://");
        }
        if (uri.getHost() == null) {
            throw new IllegalArgumentException("base url `" + raw + "` has no host");
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("base url `" + raw + "` must not have a query or fragment");
        }
        return uri;
    }

    private static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    private static Duration positive(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive");
        }
        return d;
    }

    /** Mutable builder; not thread-safe. {@link #build()} validates every setting. */
    public static final class Builder {
        private final String baseUrl;
        private String apiKey;
        private String apiSecret;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration requestTimeout = Duration.ofSeconds(30);
        private int maxAttempts = 3;
        private Duration initialBackoff = Duration.ofMillis(500);
        private Duration maxBackoff = Duration.ofSeconds(5);

        private Builder(String baseUrl) {
            this.baseUrl = baseUrl;
        }

        public Builder credentials(String apiKey, String apiSecret) {
            this.apiKey = apiKey;
            this.apiSecret = apiSecret;
            return this;
        }

        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
            return this;
        }

        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = requestTimeout;
            return this;
        }

        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        public Builder backoff(Duration initial, Duration max) {
            this.initialBackoff = initial;
            this.maxBackoff = max;
            return this;
        }

        public CustodyClientConfig build() {
            return new CustodyClientConfig(this);
        }

        @Override
        public String toString() {
            return "CustodyClientConfig.Builder[baseUrl=" + baseUrl + ", apiKey=" + maskKey(apiKey)
                    + ", apiSecret=" + (apiSecret == null ? "<none>" : Redactor.MASK) + "]";
        }
    }
}
