package dev.custody.engine.bench;

import dev.custody.engine.policy.Policy;
import dev.custody.engine.policy.Rule;
import java.util.ArrayList;
import java.util.List;

/**
 * The realistic bundle the benchmarks decide against: eight policies, 21 rules (19 of them for
 * {@code withdrawal.create}), both effects, wallet targeting, and the kinds of conditions a treasury team
 * writes: single and rolling outflow limits, a night and weekend freeze, address-book whitelisting with a
 * cool-down for new addresses, a blocklist, role limits, hot-wallet velocity limits, a cold-storage lock,
 * and auto-approval of small whitelisted withdrawals.
 */
final class Realistic {
    static final String HOT_1 = "a1a1a1a1-0000-4000-8000-000000000001";
    static final String HOT_2 = "a1a1a1a1-0000-4000-8000-000000000002";
    static final String COLD = "a1a1a1a1-0000-4000-8000-000000000003";
    static final String OPS = "a1a1a1a1-0000-4000-8000-000000000004";
    static final String GROUP = "99999999-9999-4999-8999-999999999999";
    static final String DEAD = "0x000000000000000000000000000000000000dead";
    static final String SANCTIONED = "0x7f367cc41522ce07553e823bf3be79a889debe1b";

    /** One rule as written. */
    record RuleSpec(String id, String trigger, String effect, String condition) {}

    /** One policy as written: its wallets (empty = every wallet) and rules, in declaration order. */
    record PolicySpec(String id, List<String> wallets, List<RuleSpec> rules) {}

    private Realistic() {}

    static final List<PolicySpec> POLICIES = List.of(
            new PolicySpec("treasury-limits", List.of(), List.of(
                    deny("single-limit", "withdrawal.value_usd > 250000.0"),
                    deny("wallet-24h", "wallet.outflow_24h + withdrawal.value_usd > 1000000.0"),
                    deny("workspace-24h", "workspace.outflow_24h + withdrawal.value_usd > 5000000.0"),
                    deny("network-1h", "workspace.network_outflow_1h + withdrawal.value_usd > 500000.0"))),
            new PolicySpec("night-freeze", List.of(), List.of(
                    deny("night", "(context.hour < 6 || context.hour >= 22) && withdrawal.value_usd > 10000.0"),
                    deny("weekend", "context.day_of_week in ['Saturday', 'Sunday'] && withdrawal.value_usd > 50000.0"))),
            new PolicySpec("address-book", List.of(), List.of(
                    deny("not-whitelisted", "!withdrawal.is_whitelisted && withdrawal.value_usd > 1000.0"),
                    deny("new-address", "withdrawal.is_whitelisted && withdrawal.address_age_sec < 86400.0"
                            + " && withdrawal.value_usd > 5000.0"),
                    deny("blocklist", "withdrawal.destination_address in ['" + DEAD + "', '" + SANCTIONED + "']"))),
            new PolicySpec("role-limits", List.of(), List.of(
                    deny("read-only-roles", "principal.role in ['viewer', 'guest']"),
                    deny("proposer-limit", "principal.role == 'proposer' && withdrawal.value_usd > 25000.0"),
                    deny("signer-limit", "principal.role == 'signer' && withdrawal.value_usd > 100000.0"))),
            new PolicySpec("hot-wallet-velocity", List.of(HOT_1, HOT_2), List.of(
                    deny("hot-count", "wallet.withdrawal_count_1h >= 20"),
                    deny("hot-1h", "wallet.outflow_1h + withdrawal.value_usd > 200000.0"),
                    deny("network-count", "workspace.network_withdrawal_count_1h >= 100"))),
            new PolicySpec("cold-storage", List.of(COLD), List.of(
                    deny("cold-lock", "withdrawal.value_usd > 0.0"))),
            new PolicySpec("auto-approve", List.of(), List.of(
                    allow("small-known", "withdrawal.is_whitelisted && withdrawal.address_age_sec >= 604800.0"
                            + " && withdrawal.value_usd <= 5000.0 && principal.role in ['owner', 'admin', 'signer']"),
                    allow("stablecoin-dust", "withdrawal.asset_symbol in ['USDC', 'USDT', 'DAI']"
                            + " && withdrawal.value_usd < 1000.0 && withdrawal.is_whitelisted"),
                    allow("treasury-desk", "has(principal.user_email)"
                            + " && principal.user_email.endsWith('@treasury.example.com')"
                            + " && withdrawal.is_whitelisted && withdrawal.value_usd < 20000.0"))),
            new PolicySpec("contract-calls", List.of(), List.of(
                    new RuleSpec("unknown-contract", "web3.contract_call", "DENY",
                            "!(resource.contract_address in ['0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'])"),
                    new RuleSpec("usdc-to-treasury", "web3.contract_call", "ALLOW",
                            "has(resource.decoded_args.to) && resource.decoded_args.to == '0x1111111111111111111111111111111111111111'"))));

    /** The bundle's policies as the engine reads them. */
    static List<Policy> policies() {
        List<Policy> out = new ArrayList<>();
        for (PolicySpec p : POLICIES) {
            List<Rule> rules = new ArrayList<>();
            for (RuleSpec r : p.rules()) {
                rules.add(new Rule(r.id(), r.trigger(), r.condition(), r.effect(), "rule " + r.id(), null));
            }
            out.add(new Policy(p.id(), "policy " + p.id(), null, GROUP, p.wallets(), rules, "active", 1, null, null));
        }
        return out;
    }

    static int withdrawalRuleCount() {
        return (int) POLICIES.stream().flatMap(p -> p.rules().stream())
                .filter(r -> r.trigger().equals("withdrawal.create")).count();
    }

    private static RuleSpec deny(String id, String condition) {
        return new RuleSpec(id, "withdrawal.create", "DENY", condition);
    }

    private static RuleSpec allow(String id, String condition) {
        return new RuleSpec(id, "withdrawal.create", "ALLOW", condition);
    }
}
