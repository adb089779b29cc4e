package dev.custody.client;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** Builds clients wired to a stub server, a fake clock and recording sinks. */
public final class TestClients {
    public static final long NOW = 1_706_783_229L;

    public final FakeTime time = new FakeTime(NOW);
    public final List<String> warnings = new CopyOnWriteArrayList<>();
    public final List<String> debug = new CopyOnWriteArrayList<>();
    private final AtomicInteger keys = new AtomicInteger();

    public CustodyClient client(String baseUrl) {
        CustodyClientConfig config = CustodyClientConfig.builder(baseUrl)
                .credentials(Signatures.KEY, Signatures.SECRET)
                .connectTimeout(Duration.ofSeconds(2))
                .requestTimeout(Duration.ofSeconds(5))
                .build();
        return builder(config).build();
    }

    public CustodyClient.Builder builder(CustodyClientConfig config) {
        return CustodyClient.builder(config)
                .clock(time)
                .sleeper(time)
                .idempotencyKeys(() -> "idem-" + keys.incrementAndGet())
                .warnings(warnings::add)
                .debug(debug::add);
    }
}
