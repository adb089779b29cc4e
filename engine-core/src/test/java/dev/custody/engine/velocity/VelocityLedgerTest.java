package dev.custody.engine.velocity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class VelocityLedgerTest {
    static final String WS = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
    static final String WALLET = "11111111-1111-4111-8111-111111111111";
    static final String OTHER = "22222222-2222-4222-8222-222222222222";
    static final String ETH = "ETHEREUM_MAINNET";
    static final String BASE = "BASE_MAINNET";
    static final Instant T0 = Instant.parse("2026-11-03T12:00:00Z");

    private final VelocityLedger ledger = VelocityLedger.create();

    private Velocity at(Instant t) {
        return ledger.velocity(WS, WALLET, ETH, t);
    }

    private static BigDecimal usd(String s) {
        return new BigDecimal(s);
    }

    @Test
    void windowsAreOpenAtTheStartAndClosedAtTheEnd() {
        ledger.recordSettlement(WS, WALLET, ETH, usd("100"), SettlementStatus.EXECUTED, T0);
        // at the record's own instant it is in every window: (t - W, t]
        assertEquals(0, at(T0).wallet().outflow1h().compareTo(usd("100")));
        // one nanosecond before the hour is up, still in
        assertEquals(0, at(T0.plus(Duration.ofHours(1)).minusNanos(1)).wallet().outflow1h().compareTo(usd("100")));
        // exactly one hour later it has left the 1-hour window, not the 6-hour one
        Velocity v = at(T0.plus(Duration.ofHours(1)));
        assertEquals(0, v.wallet().outflow1h().signum());
        assertEquals(0, v.wallet().outflow6h().compareTo(usd("100")));
        assertEquals(0, at(T0.plus(Duration.ofHours(6))).wallet().outflow6h().signum());
        assertEquals(0, at(T0.plus(Duration.ofHours(24)).minusNanos(1)).wallet().outflow24h().compareTo(usd("100")));
        assertEquals(0, at(T0.plus(Duration.ofHours(24))).wallet().outflow24h().signum());
    }

    @Test
    void aRecordAfterTheQueryInstantIsNotCounted() {
        ledger.recordAttempt(WS, WALLET, ETH, T0.plusSeconds(60));
        assertEquals(0, at(T0).wallet().withdrawalCount1h());
        assertEquals(1, at(T0.plusSeconds(60)).wallet().withdrawalCount1h());
    }

    @Test
    void onlyExecutedAndSuccessfulSettlementsRealizeOutflow() {
        ledger.recordSettlement(WS, WALLET, ETH, usd("10"), SettlementStatus.EXECUTED, T0);
        ledger.recordSettlement(WS, WALLET, ETH, usd("20"), SettlementStatus.SUCCESS, T0);
        ledger.recordSettlement(WS, WALLET, ETH, usd("40"), SettlementStatus.FAILED, T0);
        Velocity v = at(T0);
        assertEquals(0, v.wallet().outflow24h().compareTo(usd("30")));
        // settlements are not attempts
        assertEquals(0, v.wallet().withdrawalCount1h());
    }

    @Test
    void attemptsCountPerWalletWorkspaceAndNetwork() {
        ledger.recordAttempt(WS, WALLET, ETH, T0);
        ledger.recordAttempt(WS, OTHER, ETH, T0);
        ledger.recordAttempt(WS, OTHER, BASE, T0);
        ledger.recordSettlement(WS, OTHER, BASE, usd("5"), SettlementStatus.SUCCESS, T0);
        Velocity v = at(T0.plusSeconds(1));
        assertEquals(1, v.wallet().withdrawalCount1h());
        assertEquals(3, v.workspace().withdrawalCount1h());
        assertEquals(2, v.network().withdrawalCount1h());
        assertEquals(0, v.wallet().outflow1h().signum());
        assertEquals(0, v.workspace().outflow1h().compareTo(usd("5")));
        assertEquals(0, v.network().outflow1h().signum());
        assertEquals(0, ledger.velocity(WS, OTHER, BASE, T0).network().outflow1h().compareTo(usd("5")));
    }

    @Test
    void idsAreMatchedWithoutRegardToCase() {
        ledger.recordAttempt(WS.toUpperCase(), WALLET.toUpperCase(), ETH, T0);
        Velocity v = at(T0);
        assertEquals(1, v.wallet().withdrawalCount1h());
        assertEquals(1, v.workspace().withdrawalCount1h());
    }

    @Test
    void sumsAreExactWhereDoublesDrift() {
        // 0.1 + 0.2 in double is 0.30000000000000004; a thousand add-and-evict cycles drift further
        for (int i = 0; i < 1000; i++) {
            ledger.recordSettlement(WS, WALLET, ETH, usd("0.1"), SettlementStatus.SUCCESS, T0.plusSeconds(i * 60L));
            ledger.recordSettlement(WS, WALLET, ETH, usd("0.2"), SettlementStatus.SUCCESS, T0.plusSeconds(i * 60L));
        }
        Velocity v = at(T0.plusSeconds(999 * 60L));
        assertEquals("18.000000", v.wallet().outflow1h().toPlainString());
        assertEquals("108.000000", v.wallet().outflow6h().toPlainString());
        assertEquals("300.000000", v.wallet().outflow24h().toPlainString());
    }

    @Test
    void valuesAreRoundedOnceToMicroDollarsHalfEven() {
        ledger.recordSettlement(WS, WALLET, ETH, usd("0.0000005"), SettlementStatus.SUCCESS, T0);
        ledger.recordSettlement(WS, WALLET, ETH, usd("0.0000015"), SettlementStatus.SUCCESS, T0);
        ledger.recordSettlement(WS, WALLET, ETH, usd("1.23456789"), SettlementStatus.SUCCESS, T0);
        assertEquals("1.234570", at(T0).wallet().outflow1h().toPlainString());
    }

    @Test
    void hugeSumsDoNotOverflow() {
        BigDecimal max = new BigDecimal("9223372036854.775807");
        for (int i = 0; i < 4; i++) {
            ledger.recordSettlement(WS, WALLET, ETH, max, SettlementStatus.SUCCESS, T0.plusSeconds(i));
        }
        assertEquals(0, at(T0.plusSeconds(3)).wallet().outflow1h().compareTo(max.multiply(BigDecimal.valueOf(4))));
        // and back down exactly as they expire
        assertEquals(0, at(T0.plus(Duration.ofHours(1)).plusSeconds(2)).wallet().outflow1h().compareTo(max));
        assertThrows(IllegalArgumentException.class, () -> ledger.recordSettlement(WS, WALLET, ETH,
                max.add(new BigDecimal("0.000001")), SettlementStatus.SUCCESS, T0));
        assertThrows(IllegalArgumentException.class, () -> ledger.recordSettlement(WS, WALLET, ETH,
                new BigDecimal("1E+1000000000"), SettlementStatus.SUCCESS, T0));
        assertThrows(IllegalArgumentException.class, () -> ledger.recordSettlement(WS, WALLET, ETH,
                usd("-1"), SettlementStatus.SUCCESS, T0));
    }

    @Test
    void aLateQueryBorrowsAcrossTheLowWordExactly() {
        BigDecimal max = new BigDecimal("9223372036854.775807"); // 2^63 - 1 micro-dollars
        for (int i = 0; i < 3; i++) {
            ledger.recordSettlement(WS, WALLET, ETH, max, SettlementStatus.SUCCESS, T0.plusSeconds(i));
        }
        // 3 (2^63 - 1) = 2^64 + 2^63 - 3: taking the newest away borrows from the high word
        assertEquals(0, at(T0.plusSeconds(1)).wallet().outflow1h().compareTo(max.multiply(BigDecimal.valueOf(2))));
        assertEquals(0, at(T0.plusSeconds(2)).wallet().outflow1h().compareTo(max.multiply(BigDecimal.valueOf(3))));
    }

    @Test
    void aLateRecordIsCountedExactly() {
        ledger.recordSettlement(WS, WALLET, ETH, usd("1"), SettlementStatus.SUCCESS, T0.plus(Duration.ofHours(2)));
        // arrives after, happened before: inside the 6-hour window, outside the 1-hour one
        ledger.recordSettlement(WS, WALLET, ETH, usd("2"), SettlementStatus.SUCCESS, T0);
        Velocity v = at(T0.plus(Duration.ofHours(2)));
        assertEquals(0, v.wallet().outflow1h().compareTo(usd("1")));
        assertEquals(0, v.wallet().outflow6h().compareTo(usd("3")));
        assertEquals(0, ledger.droppedRecords());
    }

    @Test
    void aLateRecordExactlyOneWindowBeforeTheNewestIsOutsideThatWindow() {
        Instant a = T0.plus(Duration.ofHours(2));
        ledger.recordSettlement(WS, WALLET, ETH, usd("1"), SettlementStatus.SUCCESS, a);
        ledger.recordAttempt(WS, WALLET, ETH, a);
        ledger.recordSettlement(WS, WALLET, ETH, usd("2"), SettlementStatus.SUCCESS, a.minus(Duration.ofHours(1)));
        ledger.recordAttempt(WS, WALLET, ETH, a.minus(Duration.ofHours(1)));
        Velocity v = at(a);
        assertEquals(0, v.wallet().outflow1h().compareTo(usd("1")));
        assertEquals(0, v.wallet().outflow6h().compareTo(usd("3")));
        assertEquals(1, v.wallet().withdrawalCount1h());
        // and the sums stay right as the windows move on
        Velocity later = at(a.plus(Duration.ofMinutes(30)));
        assertEquals(0, later.wallet().outflow1h().compareTo(usd("1")));
        assertEquals(0, later.wallet().outflow6h().compareTo(usd("3")));
    }

    @Test
    void aLateQueryExactlyOneWindowAfterARecordLeavesItOut() {
        ledger.recordSettlement(WS, WALLET, ETH, usd("2"), SettlementStatus.SUCCESS, T0);
        ledger.recordSettlement(WS, WALLET, ETH, usd("1"), SettlementStatus.SUCCESS,
                T0.plus(Duration.ofHours(1)).plusSeconds(120));
        Velocity v = at(T0.plus(Duration.ofHours(1))); // two minutes late: answered by a scan
        assertEquals(0, v.wallet().outflow1h().signum());
        assertEquals(0, v.wallet().outflow6h().compareTo(usd("2")));
    }

    @Test
    void aRecordTooOldForAnyAnswerableWindowIsDropped() {
        ledger.recordAttempt(WS, WALLET, ETH, T0.plus(Duration.ofHours(3)));
        ledger.recordAttempt(WS, WALLET, ETH, T0); // older than watermark - lateness - 1 h
        ledger.recordSettlement(WS, WALLET, ETH, usd("1"), SettlementStatus.SUCCESS, T0); // still within 24 h
        assertEquals(1, ledger.droppedRecords());
        Velocity v = at(T0.plus(Duration.ofHours(3)));
        assertEquals(1, v.wallet().withdrawalCount1h());
        assertEquals(0, v.wallet().outflow6h().compareTo(usd("1")));
    }

    @Test
    void aLateQueryWithinTheToleranceIsExact() {
        ledger.recordAttempt(WS, WALLET, ETH, T0);
        ledger.recordAttempt(WS, WALLET, ETH, T0.plusSeconds(120));
        ledger.recordSettlement(WS, WALLET, ETH, usd("7"), SettlementStatus.SUCCESS, T0.plusSeconds(180));
        Velocity v = at(T0.plusSeconds(60));
        assertEquals(1, v.wallet().withdrawalCount1h());
        assertEquals(0, v.wallet().outflow1h().signum());
        assertEquals(2, at(T0.plusSeconds(180)).wallet().withdrawalCount1h());
    }

    @Test
    void aQueryBeyondTheToleranceFailsInsteadOfUndercounting() {
        ledger.recordAttempt(WS, WALLET, ETH, T0.plus(Duration.ofHours(1)));
        VelocityException e = assertThrows(VelocityException.class, () -> at(T0));
        assertEquals("velocity as of `2026-11-03T12:00:00Z` is unavailable: the ledger has already seen "
                + "`2026-11-03T13:00:00Z`, more than 5m later", e.getMessage());
        // the boundary itself is answered
        assertEquals(0, at(T0.plus(Duration.ofMinutes(55))).wallet().withdrawalCount1h());
    }

    @Test
    void instantsOutsideTheSupportedRangeAreRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> ledger.recordAttempt(WS, WALLET, ETH, Instant.parse("2300-01-01T00:00:00Z")));
        assertThrows(IllegalArgumentException.class,
                () -> ledger.recordAttempt(WS, WALLET, ETH, Instant.parse("1969-12-31T23:59:59Z")));
    }

    @Test
    void memoryIsBoundedByTheLastDayOfRecords() {
        // one settlement and one attempt a minute over three days, across many wallets
        for (int i = 0; i < 3 * 24 * 60; i++) {
            String wallet = String.format("%08d-1111-4111-8111-111111111111", i % 500);
            ledger.recordSettlement(WS, wallet, ETH, usd("1"), SettlementStatus.SUCCESS, T0.plusSeconds(60L * i));
            ledger.recordAttempt(WS, wallet, ETH, T0.plusSeconds(60L * i));
        }
        ledger.sweep();
        // outflow: 24 h + 5 min of records in 3 keys; attempts: 1 h + 5 min in 3 keys
        long expected = 3L * (24 * 60 + 5) + 3L * (60 + 5);
        assertTrue(ledger.retainedEntries() <= expected, ledger.retainedEntries() + " > " + expected);
        assertTrue(ledger.retainedEntries() >= expected - 6, String.valueOf(ledger.retainedEntries()));
    }

    @Test
    void latenessIsConfigurable() {
        VelocityLedger strict = VelocityLedger.builder().lateness(Duration.ZERO).build();
        strict.recordAttempt(WS, WALLET, ETH, T0.plusSeconds(1));
        assertThrows(VelocityException.class, () -> strict.velocity(WS, WALLET, ETH, T0));
        assertThrows(IllegalArgumentException.class, () -> VelocityLedger.builder().lateness(Duration.ofHours(25)));
    }
}
