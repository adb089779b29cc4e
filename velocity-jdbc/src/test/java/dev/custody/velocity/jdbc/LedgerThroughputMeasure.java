package dev.custody.velocity.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * How many attempts a second the ledger records in batches, one thread, per store: a measurement, not a test (tagged
 * {@code benchmark}, outside {@code verify}). Run: {@code ./mvnw -B -o test -pl velocity-jdbc
 * -Dtest=LedgerThroughputMeasure -Dvelocity.excludedGroups=none}.
 */
@Tag("benchmark")
class LedgerThroughputMeasure {
    private static final int BATCH = Integer.getInteger("batch", 256);

    @ParameterizedTest
    @EnumSource(Stores.class)
    void attemptsPerSecond(Stores store) {
        try (JdbcVelocityLedger ledger = store.fresh(Duration.ofHours(1))) {
            Instant t0 = Instant.parse("2026-11-02T00:00:00Z");
            for (int round = 0; round < 3; round++) {
                int n = 30_000;
                long start = System.nanoTime();
                for (int from = 0; from < n; from += BATCH) {
                    List<JdbcVelocityLedger.Operation> ops = new ArrayList<>();
                    for (int i = from; i < from + BATCH; i++) {
                        int k = round * n + i;
                        ops.add(new JdbcVelocityLedger.RecordAttempt("a-" + k, "ws-" + (k % 3), "wallet-" + (k % 50),
                                "NET-" + (k % 4), t0.plusMillis(k * 10L)));
                    }
                    ledger.apply(ops);
                }
                double s = (System.nanoTime() - start) / 1e9;
                System.out.printf("%s round %d: %.0f attempts/s (%.1f us each)%n", store, round, n / s, s * 1e6 / n);
            }
        }
    }
}
