package dev.custody.engine.payload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.Fixtures;
import dev.custody.engine.internal.bundle.PolicyBundle;
import dev.custody.engine.Decision;
import dev.custody.engine.TestEvaluator;
import dev.custody.engine.Outcome;
import dev.custody.engine.velocity.SettlementStatus;
import dev.custody.engine.velocity.VelocityException;
import dev.custody.engine.velocity.VelocityLedger;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WithdrawalActionsTest {
    static final String WS = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
    static final String KNOWN = "0x28c6c06298d514db089934071355e5743bf21d60";
    static final String FRESH = "0x1111111111111111111111111111111111111111";
    static final String SKEWED = "0x2222222222222222222222222222222222222222";
    static final Instant NOW = Fixtures.TUESDAY_14H;

    private final VelocityLedger ledger = VelocityLedger.create();
    private final AddressBook book = (ws, network, address) -> switch (address.toLowerCase()) {
        case KNOWN -> Optional.of(new AddressBook.Entry(NOW.minus(Duration.ofDays(2)).minusMillis(500)));
        case SKEWED -> Optional.of(new AddressBook.Entry(NOW.plusSeconds(30)));
        default -> Optional.empty();
    };
    private final WithdrawalActions withdrawals = WithdrawalActions.builder()
            .addressBook(book).velocity(ledger).clock(Clock.fixed(NOW, ZoneOffset.UTC)).build();

    private static WithdrawalRequest usdc(String usd, String destination) {
        return new WithdrawalRequest(new BigDecimal(usd), new BigDecimal(usd), "USDC", false, "ETHEREUM_MAINNET",
                destination);
    }

    private Action action(String usd, String destination) {
        return withdrawals.action("w-1", WS, Fixtures.WALLET, new Principal("ops@example.com", "signer"),
                usdc(usd, destination));
    }

    @Test
    void buildsEverySectionFromOneInstant() {
        ledger.recordSettlement(WS, Fixtures.WALLET, "ETHEREUM_MAINNET", new BigDecimal("30000"),
                SettlementStatus.EXECUTED, NOW.minus(Duration.ofHours(2)));
        ledger.recordSettlement(WS, Fixtures.WALLET, "ETHEREUM_MAINNET", new BigDecimal("50000"),
                SettlementStatus.FAILED, NOW.minus(Duration.ofMinutes(20)));
        for (int i = 0; i < 3; i++) {
            ledger.recordAttempt(WS, Fixtures.WALLET, "ETHEREUM_MAINNET", NOW.minus(Duration.ofMinutes(10 + i)));
        }
        Action a = action("2500", KNOWN);
        assertEquals(NOW, a.at());
        assertEquals("w-1", a.id());
        assertEquals(WS, a.workspaceId());
        assertEquals(Map.of("user_email", "ops@example.com", "role", "signer"), a.sections().get("principal"));
        Map<String, Object> w = a.sections().get("withdrawal");
        assertEquals(true, w.get("is_whitelisted"));
        assertEquals(2L * 24 * 3600, w.get("address_age_sec"));
        assertEquals("USDC", w.get("asset_symbol"));
        assertEquals(false, w.get("asset_is_native"));
        assertEquals(KNOWN, w.get("destination_address"));
        assertEquals(0, new BigDecimal("30000").compareTo((BigDecimal) a.sections().get("wallet").get("outflow_24h")));
        assertEquals(0, ((BigDecimal) a.sections().get("wallet").get("outflow_1h")).signum());
        assertEquals(3L, a.sections().get("wallet").get("withdrawal_count_1h"));
        assertEquals(3L, a.sections().get("workspace").get("network_withdrawal_count_1h"));
    }

    @Test
    void anUnknownDestinationIsNotWhitelistedAndHasAgeZero() {
        Map<String, Object> w = action("10", FRESH).sections().get("withdrawal");
        assertEquals(false, w.get("is_whitelisted"));
        assertEquals(0L, w.get("address_age_sec"));
    }

    @Test
    void aRecordDatedInTheFutureIsNeverOlderThanZero() {
        assertEquals(0L, action("10", SKEWED).sections().get("withdrawal").get("address_age_sec"));
    }

    @Test
    void theUserEmailIsAbsentWhenUnknown() {
        Action a = withdrawals.action(null, WS, Fixtures.WALLET, new Principal(null, "admin"), usdc("1", KNOWN));
        assertFalse(a.sections().get("principal").containsKey("user_email"));
    }

    @Test
    void theBuiltActionIsDecidedOnItsVelocityAndAddressBookFields() {
        PolicyBundle b = Fixtures.bundle(Fixtures.policy("limits",
                Fixtures.deny("daily-cap", "wallet.outflow_24h + withdrawal.value_usd > 50000.0"),
                Fixtures.deny("burst", "wallet.withdrawal_count_1h >= 5"),
                Fixtures.allow("trusted", "withdrawal.is_whitelisted && withdrawal.address_age_sec >= 86400"
                        + " && withdrawal.value_usd < 10000")));
        TestEvaluator evaluator = relaxedEvaluator();
        ledger.recordSettlement(WS, Fixtures.WALLET, "ETHEREUM_MAINNET", new BigDecimal("30000"),
                SettlementStatus.SUCCESS, NOW.minus(Duration.ofHours(3)));

        Decision small = evaluator.evaluate(b, action("5000", KNOWN));
        assertEquals(Outcome.ALLOW, small.outcome());
        assertEquals("trusted", small.ruleId());

        assertEquals(Outcome.NO_MATCH, evaluator.evaluate(b, action("5000", FRESH)).outcome());

        Decision big = evaluator.evaluate(b, action("25000", KNOWN));
        assertEquals(Outcome.DENY, big.outcome());
        assertEquals("daily-cap", big.ruleId());

        for (int i = 0; i < 5; i++) {
            ledger.recordAttempt(WS, Fixtures.WALLET, "ETHEREUM_MAINNET", NOW.minusSeconds(i));
        }
        assertEquals("burst", evaluator.evaluate(b, action("5000", KNOWN)).ruleId());
    }

    @Test
    void aVelocitySourceThatCannotAnswerIsThrownForTheCallerToDeny() {
        WithdrawalActions broken = WithdrawalActions.builder().addressBook(book)
                .velocity((ws, wallet, network, at) -> {
                    throw new VelocityException("velocity store unreachable");
                }).build();
        assertThrows(VelocityException.class, () -> broken.action(null, WS, Fixtures.WALLET,
                new Principal(null, "signer"), usdc("1", KNOWN)));
    }

    @Test
    void theBuilderFailsFast() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> WithdrawalActions.builder().velocity(ledger).build());
        assertEquals("an address book is required: call addressBook(..)", e.getMessage());
        e = assertThrows(IllegalStateException.class, () -> WithdrawalActions.builder().addressBook(book).build());
        assertTrue(e.getMessage().startsWith("a velocity source is required"));
    }

    /** A budget far above the default: these tests are not about it, and a busy shared core must not fail them. */
    static TestEvaluator relaxedEvaluator() {
        return TestEvaluator.builder().timeBudget(java.time.Duration.ofSeconds(10)).build();
    }
}
