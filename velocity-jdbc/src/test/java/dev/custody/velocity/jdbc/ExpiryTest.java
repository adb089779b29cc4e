package dev.custody.velocity.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.velocity.Settlement;
import dev.custody.engine.velocity.SettlementStatus;
import dev.custody.engine.velocity.VelocityLedger;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Retention (docs/design.md §18): the tables hold what a window can still reach, measured against the watermark; a
 * backlog (a day's rows expiring at once) is deleted over several transactions, the figures exact throughout.
 */
class ExpiryTest {
    private static final String WS = "5e5e5e5e-0000-4000-8000-000000000001";
    private static final String NET = "ETHEREUM_MAINNET";
    private static final Instant T0 = Instant.parse("2026-11-02T00:00:00Z");

    private static String wallet(int i) {
        return "5e5e5e5e-0000-4000-8000-0000000001" + String.format("%02d", i);
    }

    @ParameterizedTest
    @EnumSource(Stores.class)
    void rowsNoWindowCanReachAreDeletedAndABacklogGoesOverSeveralTransactions(Stores store) {
        Duration lateness = Duration.ofMinutes(5);
        VelocityLedger oracle = VelocityLedger.builder().lateness(lateness).build();
        try (JdbcVelocityLedger ledger = store.fresh(lateness)) {
            // 6,000 attempts and 3,000 settlements over 50 minutes: all inside every window
            List<JdbcVelocityLedger.Operation> ops = new ArrayList<>();
            for (int i = 0; i < 6_000; i++) {
                Instant at = T0.plusMillis(i * 500L);
                ops.add(new JdbcVelocityLedger.RecordAttempt("a-" + i, WS, wallet(i % 10), NET, at));
                oracle.recordAttempt(WS, wallet(i % 10), NET, at);
                if (i % 2 == 0) {
                    Settlement s = new Settlement("s-" + i, WS, wallet(i % 10), NET, BigDecimal.TEN,
                            SettlementStatus.EXECUTED, at);
                    ops.add(new JdbcVelocityLedger.RecordSettlement(s));
                    s.applyTo(oracle);
                }
                if (ops.size() >= 450) {
                    ledger.apply(ops);
                    ops.clear();
                }
            }
            ledger.apply(ops);
            assertEquals(3 * 6_000 + 3 * 3_000, ledger.retainedEntries());

            // two hours later: the attempts have left every window (1 h + lateness), the outflow has not (24 h)
            Instant later = T0.plus(Duration.ofHours(3));
            for (int k = 0; k < 12; k++) {
                ledger.velocity(WS, wallet(0), NET, later.plusSeconds(k));
            }
            assertEquals(3 * 3_000, ledger.retainedEntries());

            // a day and more later: 9,000 outflow rows expire, 2,048 a transaction
            Instant dayLater = T0.plus(Duration.ofHours(27));
            ledger.velocity(WS, wallet(0), NET, dayLater);
            long afterOne = ledger.retainedEntries();
            assertEquals(9_000 - LedgerConnection.EXPIRY_ROWS, afterOne);
            int transactions = 1;
            while (ledger.retainedEntries() > 0) {
                assertTrue(LedgerScript.same(oracle.velocity(WS, wallet(transactions % 10), NET,
                        dayLater.plusSeconds(transactions)), ledger.velocity(WS, wallet(transactions % 10), NET,
                        dayLater.plusSeconds(transactions))));
                transactions++;
            }
            assertEquals(5, transactions); // ceil(9,000 / 2,048)
        }
    }
}
