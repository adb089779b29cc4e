package dev.custody.velocity.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.custody.engine.velocity.Velocity;
import dev.custody.engine.velocity.VelocityLedger;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One meaning (issue 33, item 2): the same event streams through the in-memory {@link VelocityLedger} and through the
 * JDBC ledger on real SQLite and real PostgreSQL give identical figures (or identical refusals) for every attempt.
 */
class JdbcLedgerDifferentialTest {

    @ParameterizedTest
    @EnumSource(Stores.class)
    void generatedStreamsGiveTheOraclesFiguresForEveryAttempt(Stores store) {
        int attempts = 0;
        int refused = 0;
        int withOutflow = 0;
        // two streams of 12,000 events each: seed 1 under the in-memory ledger's default lateness (5 min), seed 2
        // under custody serve's and replay's (1 h)
        for (long seed : new long[] {1, 2}) {
            Duration lateness = seed == 1 ? Duration.ofMinutes(5) : Duration.ofHours(1);
            LedgerScript script = LedgerScript.generated(seed, 12_000, lateness);
            List<LedgerScript.Answer> expected = script.oracle(lateness);
            try (JdbcVelocityLedger ledger = store.fresh(lateness)) {
                List<LedgerScript.Answer> actual = script.jdbc(ledger, 250);
                assertSame(expected, actual, store + " seed " + seed + " lateness " + lateness);
                VelocityLedger oracle = VelocityLedger.builder().lateness(lateness).build();
                script.events.forEach(e -> {
                    if (e instanceof LedgerScript.Settle s) {
                        s.settlement().applyTo(oracle);
                    } else {
                        LedgerScript.Attempt a = (LedgerScript.Attempt) e;
                        oracle.recordAttempt(a.workspaceId(), a.walletId(), a.networkCode(), a.at());
                    }
                });
                assertEquals(oracle.droppedRecords(), ledger.droppedRecords(), "dropped records");
                assertEquals(oracle.watermark(), ledger.watermark(), "watermark");
            }
            attempts += expected.size();
            refused += (int) expected.stream().filter(a -> a.refusal() != null).count();
            withOutflow += (int) expected.stream().filter(a -> a.velocity() != null
                    && a.velocity().network().outflow1h().signum() > 0 && a.velocity().wallet().withdrawalCount1h() > 0)
                    .count();
        }
        System.out.printf("differential %s: %d attempts of 24,000 events, %d refused for lateness, %d with outflow and "
                + "earlier attempts in their windows: all equal%n", store, attempts, refused, withOutflow);
        // the streams reach what they are for: many attempts, some refused for lateness
        assertTrue(attempts > 12_000, "attempts: " + attempts);
        assertTrue(refused > 100, "refused: " + refused);
        assertTrue(withOutflow > 5_000, "attempts with outflow and earlier attempts in their windows: " + withOutflow);
    }

    @ParameterizedTest
    @EnumSource(Stores.class)
    void oneOperationATransactionGivesTheSameAsBatches(Stores store) {
        Duration lateness = Duration.ofMinutes(5);
        LedgerScript script = LedgerScript.generated(7, 600, lateness);
        try (JdbcVelocityLedger ledger = store.fresh(lateness)) {
            assertSame(script.oracle(lateness), script.jdbc(ledger, 1), store + " one at a time");
        }
    }

    @ParameterizedTest
    @EnumSource(Stores.class)
    void theExampleStreamGivesTheOraclesFigures(Stores store) throws Exception {
        Duration lateness = Duration.ofHours(1);
        LedgerScript script = LedgerScript.ofStream(Path.of("../examples/actions/stream.jsonl"));
        assertTrue(script.attempts() > 900, "attempts in the example stream: " + script.attempts());
        try (JdbcVelocityLedger ledger = store.fresh(lateness)) {
            assertSame(script.oracle(lateness), script.jdbc(ledger, 100), store + " example stream");
        }
    }

    @ParameterizedTest
    @EnumSource(Stores.class)
    void aReopenedLedgerGoesOnAsIfNeverClosed(Stores store) {
        Duration lateness = Duration.ofMinutes(5);
        LedgerScript script = LedgerScript.generated(11, 2_000, lateness);
        List<LedgerScript.Answer> expected = script.oracle(lateness);
        String url = store.freshUrl();
        LedgerScript first = new LedgerScript(script.events.subList(0, 1_000));
        LedgerScript second = new LedgerScript(script.events.subList(1_000, script.events.size()));
        List<LedgerScript.Answer> actual = new java.util.ArrayList<>();
        try (JdbcVelocityLedger ledger = Stores.open(url, lateness)) {
            actual.addAll(first.jdbc(ledger, 300));
        }
        try (JdbcVelocityLedger ledger = Stores.open(url, lateness)) {
            actual.addAll(second.jdbc(ledger, 300));
        }
        assertSame(expected, actual, store + " reopened");
    }

    static void assertSame(List<LedgerScript.Answer> expected, List<LedgerScript.Answer> actual, String what) {
        assertEquals(expected.size(), actual.size(), what + ": answers");
        int differ = 0;
        StringBuilder first = new StringBuilder();
        for (int i = 0; i < expected.size(); i++) {
            if (!LedgerScript.same(expected.get(i), actual.get(i))) {
                if (differ++ < 3) {
                    first.append("\n  attempt ").append(i).append(": expected ").append(expected.get(i))
                            .append("\n             actual   ").append(actual.get(i));
                }
            }
        }
        if (differ > 0) {
            fail(what + ": " + differ + " of " + expected.size() + " attempts differ" + first);
        }
    }

    static Velocity velocity(JdbcVelocityLedger ledger, String ws, String wallet, String net, Instant at) {
        return ledger.velocity(ws, wallet, net, at);
    }
}
