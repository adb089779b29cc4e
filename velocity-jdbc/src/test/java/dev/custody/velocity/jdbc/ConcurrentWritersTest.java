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
 * Concurrent writers (issue 33, item 2): a stream's events applied from eight threads through one ledger, and from
 * two ledgers (two pools, two committers: what two replicas are) on the same database, each event twice (retries),
 * end with the figures of the in-memory ledger fed the stream once. The stream spans 40 minutes, within the 1 h
 * lateness, so the final figures do not depend on the order the threads got.
 */
class ConcurrentWritersTest {

    @ParameterizedTest
    @EnumSource(Stores.class)
    void eightThreadsOnTwoLedgersOfOneDatabaseCountEveryEventOnce(Stores store) throws Exception {
        Duration lateness = Duration.ofHours(1);
        LedgerScript script = LedgerScript.generated(31, 4_000, lateness);
        // keep the events of the first 40 minutes of the stream, none refused or dropped
        Instant start = script.events.stream().map(ConcurrentWritersTest::at).min(Instant::compareTo).orElseThrow();
        List<LedgerScript.Event> events = script.events.stream()
                .filter(e -> !at(e).isBefore(start) && at(e).isBefore(start.plus(Duration.ofMinutes(40)))).toList();
        assertTrue(events.size() > 500, "events: " + events.size());

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
                            JdbcVelocityLedger ledger = (i + thread) % 2 == 0 ? one : two;
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
            assertTrue(compared > 300, "compared: " + compared);
            assertEquals(0, one.droppedRecords());
        }
    }

    private static Instant at(LedgerScript.Event e) {
        return e instanceof LedgerScript.Settle s ? s.settlement().at() : ((LedgerScript.Attempt) e).at();
    }
}
