package dev.custody.velocity.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.velocity.VelocityLedger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Concurrent writers (issue 33, item 2): a stream's events applied from eight threads through two ledgers (two
 * pools, two committers: what two replicas are) on the same database, each event by two threads (a retry), end with
 * the figures of the in-memory ledger fed the stream once (a settlement without an id twice: it has nothing to be
 * recognized by). The stream spans 40 minutes, within the 1 h lateness, so the final figures do not depend on the
 * order the threads got.
 */
class ConcurrentWritersTest {

    @ParameterizedTest
    @EnumSource(Stores.class)
    void eightThreadsOnTwoLedgersOfOneDatabaseCountEveryEventOnce(Stores store) throws Exception {
        Duration lateness = Duration.ofHours(1);
        // 3,000 events over 40 minutes, 3 workspaces, 9 wallets, 2 networks: none refused or dropped
        java.util.Random r = new java.util.Random(31);
        Instant start = Instant.parse("2026-11-02T08:00:00Z");
        List<LedgerScript.Event> events = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            int w = r.nextInt(3);
            String ws = "c0c0c0c0-0000-4000-8000-00000000000" + w;
            String wallet = "c0c0c0c0-000" + w + "-4000-8000-0000000000" + (10 + r.nextInt(3));
            String net = r.nextBoolean() ? "ETHEREUM_MAINNET" : "BASE_MAINNET";
            Instant at = start.plusMillis(i * 800L);
            if (r.nextInt(3) == 0) {
                events.add(new LedgerScript.Settle(new dev.custody.engine.velocity.Settlement(
                        r.nextInt(4) == 0 ? null : "s-" + i, ws, wallet, net,
                        java.math.BigDecimal.valueOf(r.nextInt(1_000_000_000), 4),
                        dev.custody.engine.velocity.SettlementStatus.EXECUTED, at)));
            } else {
                events.add(new LedgerScript.Attempt("a-" + i, ws, wallet, net, at));
            }
        }

        String url = store.freshUrl();
        try (JdbcVelocityLedger one = Stores.open(url, lateness); JdbcVelocityLedger two = Stores.open(url, lateness)) {
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    int thread = t;
                    done.add(pool.submit(() -> {
                        // every event is sent by two threads, through the two ledgers in turn
                        for (int i = thread % 4; i < events.size(); i += 4) {
                            JdbcVelocityLedger ledger = (i + thread / 4) % 2 == 0 ? one : two; // the two copies: one each
                            ledger.apply(List.of(LedgerScript.operation(events.get(i))));
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
            VelocityLedger oracle = VelocityLedger.builder().lateness(lateness).build();
            Set<String> settled = new HashSet<>();
            for (LedgerScript.Event e : events) {
                if (e instanceof LedgerScript.Settle s) {
                    // a settlement without an id is recorded each time it is given: twice here
                    if (s.settlement().id() == null) {
                        s.settlement().applyTo(oracle);
                        s.settlement().applyTo(oracle);
                    } else if (settled.add(s.settlement().id())) {
                        s.settlement().applyTo(oracle);
                    }
                } else {
                    LedgerScript.Attempt a = (LedgerScript.Attempt) e;
                    oracle.recordAttempt(a.workspaceId(), a.walletId(), a.networkCode(), a.at());
                }
            }
            Instant probe = start.plus(Duration.ofMinutes(45));
            int compared = 0;
            for (LedgerScript.Event e : events) {
                if (e instanceof LedgerScript.Attempt a) {
                    assertTrue(LedgerScript.same(oracle.velocity(a.workspaceId(), a.walletId(), a.networkCode(), probe),
                            one.velocity(a.workspaceId(), a.walletId(), a.networkCode(), probe)), a.toString());
                    compared++;
                }
            }
            assertTrue(compared > 1_500, "compared: " + compared);
            assertEquals(0, one.droppedRecords());
        }
    }

}
