package dev.custody.engine;

import dev.custody.engine.internal.bundle.PolicyBundle;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.payload.Action;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.validate.PolicyValidator;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.schema.TriggerAction;
import java.time.Instant;
import java.util.List;

/** Small builders shared by the engine's tests. */
public final class Fixtures {
    public static final String WALLET = "11111111-1111-4111-8111-111111111111";
    public static final String OTHER_WALLET = "22222222-2222-4222-8222-222222222222";
    public static final String GROUP = "99999999-9999-4999-8999-999999999999";
    public static final Instant TUESDAY_14H = Instant.parse("2026-11-03T14:05:00Z");
    public static final PolicyValidator VALIDATOR = new PolicyValidator(RuleCompiler.create());

    private Fixtures() {}

    public static Rule deny(String id, String condition) {
        return new Rule(id, "withdrawal.create", condition, "DENY", "denied by " + id, null);
    }

    public static Rule allow(String id, String condition) {
        return new Rule(id, "withdrawal.create", condition, "ALLOW", "allowed by " + id, null);
    }

    public static Policy policy(String id, Rule... rules) {
        return new Policy(id, "policy " + id, null, GROUP, List.of(), List.of(rules), "active", 1, null, null);
    }

    public static Policy policy(String id, String status, List<String> wallets, Rule... rules) {
        return new Policy(id, "policy " + id, null, GROUP, wallets, List.of(rules), status, 1, null, null);
    }

    public static PolicyBundle bundle(Policy... policies) {
        return PolicyBundle.compile(List.of(policies), VALIDATOR);
    }

    /** A well-formed withdrawal of {@code usd} dollars from {@link #WALLET}. */
    public static Action.Builder withdrawal(double usd) {
        return Action.builder(TriggerAction.WITHDRAWAL_CREATE)
                .id("a-1")
                .walletId(WALLET)
                .at(TUESDAY_14H)
                .field("principal.role", "signer")
                .field("withdrawal.amount", 1.5)
                .field("withdrawal.value_usd", usd)
                .field("withdrawal.asset_symbol", "ETH")
                .field("withdrawal.asset_is_native", true)
                .field("withdrawal.destination_address", "0xabc")
                .field("withdrawal.network_code", "ETHEREUM_MAINNET")
                .field("withdrawal.is_whitelisted", false)
                .field("withdrawal.address_age_sec", 0)
                .field("wallet.outflow_24h", 12000.0)
                .field("wallet.withdrawal_count_1h", 2);
    }
}
