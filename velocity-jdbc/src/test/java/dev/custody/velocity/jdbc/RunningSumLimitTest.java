package dev.custody.velocity.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.velocity.Settlement;
import dev.custody.engine.velocity.SettlementStatus;
import dev.custody.engine.velocity.VelocityLedger;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The running sums' limit (docs/design.md §18): a key whose sums grow past 2^62 micro-dollars over time is rebased
 * and keeps the in-memory ledger's figures; a settlement that would put more than that in a key's retained rows is
 * refused whole (in order and late), never recorded as a wrong figure.
 */
class RunningSumLimitTest {
    private static final String WS = "3c1d0e2f-0000-4000-8000-000000000001";
    private static final String WALLET = "3c1d0e2f-0000-4000-8000-0000000000aa";
    private static final String NET = "ETHEREUM_MAINNET";
    private static final Instant T0 = Instant.parse("2026-11-02T00:00:00Z");
    private static final BigDecimal TRILLION_AND_HALF = new BigDecimal("1500000000000");

    private static Settlement settle(String id, BigDecimal usd, Instant at) {
        return new Settlement(id, WS, WALLET, NET, usd, SettlementStatus.EXECUTED, at);
    }

    @ParameterizedTest
    @EnumSource(Stores.class)
    void sumsThatGrowPastTheLimitOverDaysAreRebasedAndStayExact(Stores store) {
        VelocityLedger oracle = VelocityLedger.builder().lateness(Duration.ofMinutes(5)).build();
        try (JdbcVelocityLedger ledger = store.fresh(Duration.ofMinutes(5))) {
            // 1.5 trillion USD a day for six days: 9e18 micro-dollars in all, past 2^62 (4.6e18) on the fourth
            for (int day = 0; day < 6; day++) {
                Settlement s = settle("s-" + day, TRILLION_AND_HALF, T0.plus(Duration.ofHours(25L * day)));
                s.applyTo(oracle);
                assertEquals(JdbcVelocityLedger.Settled.Status.RECORDED, ledger.recordSettlement(s).status());
                Instant probe = s.at().plus(Duration.ofHours(1));
                assertTrue(LedgerScript.same(oracle.velocity(WS, WALLET, NET, probe),
                        ledger.velocity(WS, WALLET, NET, probe)), "day " + day);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Stores.class)
    void aSettlementThatWouldPassTheLimitInOneWindowIsRefusedWhole(Stores store) {
        try (JdbcVelocityLedger ledger = store.fresh(Duration.ofHours(1))) {
            BigDecimal two = new BigDecimal("2000000000000");
            assertEquals(JdbcVelocityLedger.Settled.Status.RECORDED, ledger.recordSettlement(settle("a", two, T0)).status());
            assertEquals(JdbcVelocityLedger.Settled.Status.RECORDED,
                    ledger.recordSettlement(settle("b", two, T0.plusSeconds(600))).status());
            // in order, and late (before the last row): 5e18 micro-dollars would be retained in the key
            for (Instant at : new Instant[] {T0.plusSeconds(900), T0.plusSeconds(300)}) {
                JdbcVelocityLedger.Settled refused = ledger.recordSettlement(settle("c-" + at, new BigDecimal("1000000000000"), at));
                assertEquals(JdbcVelocityLedger.Settled.Status.REFUSED, refused.status());
                assertTrue(refused.refusal().startsWith("the realized outflow retained for `"), refused.refusal());
            }
            // nothing of the refused ones was recorded, in any key
            var v = ledger.velocity(WS, WALLET, NET, T0.plusSeconds(1200));
            assertEquals(0, new BigDecimal("4000000000000").compareTo(v.wallet().outflow1h()));
            assertEquals(0, new BigDecimal("4000000000000").compareTo(v.workspace().outflow1h()));
            assertEquals(0, new BigDecimal("4000000000000").compareTo(v.network().outflow24h()));
        }
    }
}
