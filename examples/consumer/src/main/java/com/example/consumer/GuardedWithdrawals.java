package com.example.consumer;

import dev.custody.engine.PolicyEngine;
import dev.custody.engine.Decision;
import dev.custody.engine.payload.Action;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.PolicyStatus;
import dev.custody.engine.schema.TriggerAction;
import java.time.Instant;
import java.util.List;

/**
 * A service's view of the engine, from outside the project: policies from its own store (here a list), one engine,
 * a decision per withdrawal. Uses engine-core's public API only.
 */
public final class GuardedWithdrawals {
    static final String WORKSPACE = "00cd4ae6-310e-4566-99ae-1270f1ed5570";
    static final String GROUP = "985976e8-9faf-4e44-a2ed-b01af2ca04cf";

    static final Policy LIMITS = Policy.builder("limits")
            .name("withdrawal limits").approvalGroupId(GROUP).status(PolicyStatus.ACTIVE).version(1)
            .workspaceId(WORKSPACE)
            .rule(Rule.builder("big").triggerAction(TriggerAction.WITHDRAWAL_CREATE)
                    .condition("withdrawal.value_usd > 10000").effect(Effect.DENY).description("above $10,000").build())
            .rule(Rule.builder("listed").triggerAction(TriggerAction.WITHDRAWAL_CREATE)
                    .condition("withdrawal.is_whitelisted").effect(Effect.ALLOW).description("address book").build())
            .build();

    private final PolicyEngine engine = PolicyEngine.builder(workspaceId -> List.of(LIMITS)).build();

    /** The decision on a withdrawal of {@code usd} to a destination in the address book or not. */
    public Decision decide(double usd, boolean whitelisted) {
        Action withdrawal = Action.builder(TriggerAction.WITHDRAWAL_CREATE)
                .walletId("92e0490b-f666-47c5-8c1a-dd0688c6fc87")
                .workspaceId(WORKSPACE)
                .at(Instant.parse("2026-11-03T14:05:00Z"))
                .field("principal.role", "signer")
                .field("withdrawal.amount", usd)
                .field("withdrawal.value_usd", usd)
                .field("withdrawal.asset_symbol", "USDC")
                .field("withdrawal.asset_is_native", false)
                .field("withdrawal.destination_address", "0x9474bfd290aa63e670a8ad0f0ad082b5114b5ea0")
                .field("withdrawal.network_code", "ETHEREUM_MAINNET")
                .field("withdrawal.is_whitelisted", whitelisted)
                .field("withdrawal.address_age_sec", 86400)
                .build();
        return engine.evaluate(WORKSPACE, withdrawal);
    }

    public static void main(String[] args) {
        Decision d = new GuardedWithdrawals().decide(20000, true);
        System.out.println(d.outcome() + " " + d.ruleId() + ": " + d.reason());
    }
}
