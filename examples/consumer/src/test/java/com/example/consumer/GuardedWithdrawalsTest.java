package com.example.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.custody.engine.Decision;
import dev.custody.engine.Outcome;
import org.junit.jupiter.api.Test;

class GuardedWithdrawalsTest {
    private final GuardedWithdrawals service = new GuardedWithdrawals();

    @Test
    void denyOverAllowWithAttribution() {
        Decision big = service.decide(20000, true);
        assertEquals(Outcome.DENY, big.outcome());
        assertEquals("big", big.ruleId());
        assertEquals("above $10,000", big.reason());
        assertEquals("listed", service.decide(500, true).ruleId());
        assertEquals(Outcome.NO_MATCH, service.decide(500, false).outcome());
    }
}
