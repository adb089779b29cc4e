package dev.custody.velocity.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.velocity.Settlement;
import dev.custody.engine.velocity.SettlementStatus;
import dev.custody.engine.velocity.VelocityException;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What the ledger refuses rather than undercount (a review's findings): a settlement id reused with other content,
 * a second ledger with another lateness on the same database, and ids it cannot hold, refused alone without failing
 * the transaction they share.
 */
class LedgerGuardsTest {
    private static final String WS = "9a9a9a9a-0000-4000-8000-000000000001";
    private static final String WALLET = "9a9a9a9a-0000-4000-8000-0000000000aa";
    private static final String NET = "ETHEREUM_MAINNET";
    private static final Instant T0 = Instant.parse("2026-11-02T00:00:00Z");

    @ParameterizedTest
    @EnumSource(Stores.class)
    void aSettlementIdWithOtherContentIsAConflictAndRecordsNothing(Stores store) {
        try (JdbcVelocityLedger ledger = store.fresh(Duration.ofHours(1))) {
            Settlement failed = new Settlement("s-1", WS, WALLET, NET, new BigDecimal("900"), SettlementStatus.FAILED, T0);
            Settlement executed = new Settlement("s-1", WS, WALLET, NET, new BigDecimal("900"),
                    SettlementStatus.EXECUTED, T0.plusSeconds(60));
            assertEquals(JdbcVelocityLedger.Settled.Status.RECORDED, ledger.recordSettlement(failed).status());
            assertEquals(JdbcVelocityLedger.Settled.Status.DUPLICATE, ledger.recordSettlement(failed).status());
            JdbcVelocityLedger.Settled conflict = ledger.recordSettlement(executed);
            assertEquals(JdbcVelocityLedger.Settled.Status.CONFLICT, conflict.status());
            assertTrue(conflict.refusal().startsWith("settlement id `s-1` was already recorded with other content ("),
                    conflict.refusal());
            // in one batch too: the second of two settlements under one id, with other content
            List<JdbcVelocityLedger.Outcome> both = ledger.apply(List.of(
                    new JdbcVelocityLedger.RecordSettlement(new Settlement("s-2", WS, WALLET, NET, BigDecimal.TEN,
                            SettlementStatus.EXECUTED, T0.plusSeconds(120))),
                    new JdbcVelocityLedger.RecordSettlement(new Settlement("s-2", WS, WALLET, NET, BigDecimal.ONE,
                            SettlementStatus.EXECUTED, T0.plusSeconds(120)))));
            assertEquals(JdbcVelocityLedger.Settled.Status.RECORDED, ((JdbcVelocityLedger.Settled) both.get(0)).status());
            assertEquals(JdbcVelocityLedger.Settled.Status.CONFLICT, ((JdbcVelocityLedger.Settled) both.get(1)).status());
            assertEquals(0, BigDecimal.TEN.compareTo(ledger.velocity(WS, WALLET, NET, T0.plusSeconds(180))
                    .wallet().outflow1h()));
        }
    }

    @ParameterizedTest
    @EnumSource(Stores.class)
    void aLedgerWithAnotherLatenessOnTheSameDatabaseIsRefused(Stores store) throws Exception {
        String url = store.freshUrl();
        try (JdbcVelocityLedger first = Stores.open(url, Duration.ofHours(1))) {
            first.recordAttempt(WS, WALLET, NET, T0);
            try (JdbcVelocityLedger other = JdbcVelocityLedger.builder(url).lateness(Duration.ofMinutes(5))
                    .timeout(Duration.ofSeconds(5)).build()) {
                VelocityException e = assertThrows(VelocityException.class, () -> other.velocity(WS, WALLET, NET, T0));
                assertTrue(e.getMessage().contains("keeps a lateness of 1h, this one was built with 5m"), e.getMessage());
                assertFalse(other.available());
            }
            try (JdbcVelocityLedger same = Stores.open(url, Duration.ofHours(1))) {
                assertEquals(1, same.velocity(WS, WALLET, NET, T0.plusSeconds(1)).wallet().withdrawalCount1h());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Stores.class)
    void anIdTheLedgerCannotHoldIsRefusedAloneAndItsBatchGoesThrough(Stores store) {
        try (JdbcVelocityLedger ledger = store.fresh(Duration.ofHours(1))) {
            List<JdbcVelocityLedger.Outcome> out = ledger.apply(List.of(
                    new JdbcVelocityLedger.RecordAttempt("a-1", WS, WALLET, NET, T0),
                    new JdbcVelocityLedger.RecordAttempt("a-\u0000", WS, WALLET, NET, T0.plusSeconds(1)),
                    new JdbcVelocityLedger.RecordAttempt("a-\ud800", WS, WALLET, NET, T0.plusSeconds(2)),
                    new JdbcVelocityLedger.RecordAttempt("a-" + "x".repeat(600), WS, WALLET, NET, T0.plusSeconds(3)),
                    new JdbcVelocityLedger.RecordAttempt("a-2", WS, "w\u0000", NET, T0.plusSeconds(4)),
                    new JdbcVelocityLedger.RecordAttempt("a-3", WS, WALLET, NET, T0.plusSeconds(5))));
            JdbcVelocityLedger.Attempted first = (JdbcVelocityLedger.Attempted) out.get(0);
            assertTrue(first.recorded());
            assertEquals("an id holds a NUL character", ((JdbcVelocityLedger.Attempted) out.get(1)).conflict());
            assertEquals("an id holds a lone UTF-16 surrogate", ((JdbcVelocityLedger.Attempted) out.get(2)).conflict());
            assertEquals("an id of 602 characters is longer than the ledger holds (512)",
                    ((JdbcVelocityLedger.Attempted) out.get(3)).conflict());
            assertEquals("an id holds a NUL character", ((JdbcVelocityLedger.Attempted) out.get(4)).conflict());
            JdbcVelocityLedger.Attempted last = (JdbcVelocityLedger.Attempted) out.get(5);
            assertNull(last.conflict());
            assertEquals(1, last.figures().velocity().wallet().withdrawalCount1h()); // only a-1 before it
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ledger.recordSettlement(
                    new Settlement("s-\u0000", WS, WALLET, NET, BigDecimal.ONE, SettlementStatus.EXECUTED, T0)));
            assertEquals("an id holds a NUL character", e.getMessage());
        }
    }
}
