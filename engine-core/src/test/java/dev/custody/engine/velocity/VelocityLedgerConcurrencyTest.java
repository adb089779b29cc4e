package dev.custody.engine.velocity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Several writer threads (and a reader) on one ledger: whatever the interleaving, the final figures are
 * those of the model that saw the same records in one thread. Record instants span 40 minutes, less than
 * the 1-hour window plus the lateness, so no interleaving can make a record "too late" to count.
 */
class VelocityLedgerConcurrencyTest {
    private static final Instant T0 = Instant.parse("2026-11-03T12:00:00Z");
    private static final int THREADS = 4;
    private static final int PER_THREAD = 5_000;

    @Test
    void concurrentWritersReachTheSameFinalState() throws Exception {
        for (int round = 0; round < 3; round++) {
            VelocityLedger ledger = VelocityLedger.create();
            LedgerModel model = new LedgerModel();
            ExecutorService pool = Executors.newFixedThreadPool(THREADS + 1);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int th = 0; th < THREADS; th++) {
                int thread = th;
                for (int i = 0; i < PER_THREAD; i++) {
                    Op op = op(thread, i);
                    if (op.settle) {
                        model.settle(op.ws, op.wallet, op.net, op.usd, op.status, op.at);
                    } else {
                        model.attempt(op.ws, op.wallet, op.net, op.at);
                    }
                }
                futures.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < PER_THREAD; i++) {
                        Op op = op(thread, i);
                        if (op.settle) {
                            ledger.recordSettlement(op.ws, op.wallet, op.net, op.usd, op.status, op.at);
                        } else {
                            ledger.recordAttempt(op.ws, op.wallet, op.net, op.at);
                        }
                    }
                    return null;
                }));
            }
            futures.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < 2_000; i++) {
                    Velocity v = ledger.velocity("ws-0", "wallet-0", "NET-0", T0.plusSeconds(40 * 60));
                    assertTrue(v.workspace().withdrawalCount1h() >= v.network().withdrawalCount1h());
                }
                return null;
            }));
            go.countDown();
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
            pool.shutdown();
            assertEquals(0, ledger.droppedRecords());
            Instant end = T0.plusSeconds(40 * 60);
            for (int w = 0; w < 8; w++) {
                for (int n = 0; n < 2; n++) {
                    String ws = "ws-" + (w % 2);
                    Velocity got = ledger.velocity(ws, "wallet-" + w, "NET-" + n, end);
                    Velocity want = model.velocity(ws, "wallet-" + w, "NET-" + n, end);
                    assertTrue(LedgerModel.same(got, want), got + " != " + want);
                }
            }
        }
    }

    private record Op(boolean settle, String ws, String wallet, String net, BigDecimal usd, SettlementStatus status,
            Instant at) {}

    /** A deterministic pseudo-random record for (thread, index). */
    private static Op op(int thread, int i) {
        long h = (thread * 1_000_003L + i) * 0x9E3779B97F4A7C15L;
        h ^= h >>> 29;
        int wallet = Math.floorMod(h, 8);
        String net = "NET-" + Math.floorMod(h >>> 8, 2);
        Instant at = T0.plusMillis(Math.floorMod(h >>> 16, 40 * 60 * 1000L));
        boolean settle = ((h >>> 40) & 1) == 0;
        SettlementStatus status = SettlementStatus.values()[Math.floorMod(h >>> 41, 3)];
        BigDecimal usd = BigDecimal.valueOf(Math.floorMod(h >>> 20, 100_000_000L), 2);
        return new Op(settle, "ws-" + (wallet % 2), "wallet-" + wallet, net, usd, status, at);
    }
}
