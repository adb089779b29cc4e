package dev.custody.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.custody.engine.Decision;
import dev.custody.engine.Outcome;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.PolicySources;
import dev.custody.engine.payload.Principal;
import dev.custody.engine.payload.WithdrawalRequest;
import dev.custody.engine.velocity.Settlement;
import dev.custody.engine.velocity.SettlementStatus;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteDataSource;

/** {@link VelocityGuard} on a real SQLite file: derived figures decide, a retried request decides alike. */
class VelocityGuardTest {
    private static final String WS = "7d0c8f52-1b7e-4c47-9b43-b5f0a3e1c001";
    private static final String WALLET = "7d0c8f52-1b7e-4c47-9b43-b5f0a3e1c0aa";
    private static final String POLICY = """
            id: velocity
            name: Velocity
            approval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf
            rules:
              - rule_id: burst
                trigger_action: withdrawal.create
                effect: DENY
                description: a third attempt within the hour
                condition: wallet.withdrawal_count_1h >= 2
              - rule_id: daily
                trigger_action: withdrawal.create
                effect: DENY
                description: more than $10,000 a day
                condition: wallet.outflow_24h + withdrawal.value_usd > 10000
            """;

    @TempDir
    Path dir;

    @Test
    void derivedFiguresDecideAndARetriedRequestDecidesAlike() {
        SQLiteDataSource db = new SQLiteDataSource();
        db.setUrl("jdbc:sqlite:" + dir.resolve("service.db"));
        PolicyEngine engine = PolicyEngine.builder(ws -> PolicySources.parse(POLICY, "velocity.yaml")).build();
        Principal signer = new Principal("ops@example.com", "signer");
        WithdrawalRequest small = new WithdrawalRequest(BigDecimal.ONE, new BigDecimal("4000"), "USDC", false,
                "ETHEREUM_MAINNET", "0xabc");
        try (VelocityGuard guard = new VelocityGuard(engine, (ws, network, address) -> Optional.empty(), db)) {
            Decision first = guard.decide("r-1", WS, WALLET, signer, small);
            assertEquals(Outcome.NO_MATCH, first.outcome());
            guard.onSettled(new Settlement("s-1", WS, WALLET, "ETHEREUM_MAINNET", new BigDecimal("7000"),
                    SettlementStatus.EXECUTED, Instant.now()));
            Decision second = guard.decide("r-2", WS, WALLET, signer, small);
            assertEquals(Outcome.DENY, second.outcome());
            assertEquals("daily", second.ruleId()); // 7,000 settled + 4,000 asked > 10,000
            Decision again = guard.decide("r-2", WS, WALLET, signer, small);
            assertEquals(List.of(second.outcome(), second.ruleId()), List.of(again.outcome(), again.ruleId()));
            Decision third = guard.decide("r-3", WS, WALLET, signer, small);
            assertEquals("burst", third.ruleId()); // r-1 and r-2 before it, the retry of r-2 not counted
            assertNull(third.failure());
        }
    }
}
