package dev.custody.engine.bench;

import dev.custody.engine.payload.Action;
import dev.custody.engine.schema.TriggerAction;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Streams of withdrawal actions for {@link Realistic}'s bundle, in three mixes: {@code mostlyNoMatch}
 * (85 % go to normal approval), {@code denyEarly} (85 % stopped by the first DENY rule) and {@code allow}
 * (85 % auto-approved: every DENY rule and the ALLOW rules run). The other 15 % are spread over the other
 * kinds, including DENYs by late rules. Seeded, so every run decides the same actions.
 */
final class Workload {
    enum Kind { NO_MATCH, DENY_EARLY, DENY_LATE, ALLOW }

    static final String[] MIXES = {"mostlyNoMatch", "denyEarly", "allow"};
    private static final Instant TUESDAY = Instant.parse("2026-11-03T00:00:00Z");
    private static final long DAY = 86_400;

    private Workload() {}

    static List<Action> mix(String mix, int n, long seed) {
        Kind dominant = switch (mix) {
            case "mostlyNoMatch" -> Kind.NO_MATCH;
            case "denyEarly" -> Kind.DENY_EARLY;
            case "allow" -> Kind.ALLOW;
            default -> throw new IllegalArgumentException("unknown mix `" + mix + "`");
        };
        Random r = new Random(seed);
        List<Action> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Kind k = r.nextInt(100) < 85 ? dominant : Kind.values()[r.nextInt(Kind.values().length)];
            out.add(action(k, r, "a-" + i));
        }
        return List.copyOf(out);
    }

    private static Action action(Kind kind, Random r, String id) {
        // a quiet weekday withdrawal of ETH to a whitelisted address known for a few days: no rule is true
        String wallet = pick(r, Realistic.HOT_1, Realistic.HOT_2, Realistic.OPS);
        String role = pick(r, "signer", "admin", "owner");
        String asset = pick(r, "ETH", "BTC", "WBTC");
        double usd = between(r, 5001, 9999);
        double ageSec = (long) between(r, 2, 6) * DAY;
        String email = r.nextBoolean() ? "ops@example.com" : null;
        long walletCount = (long) between(r, 0, 10);
        switch (kind) {
            case NO_MATCH -> {
            }
            case DENY_EARLY -> usd = between(r, 250_001, 900_000); // the first rule of the first policy
            case DENY_LATE -> {
                switch (r.nextInt(3)) {
                    case 0 -> { // role limit (4th policy)
                        role = "proposer";
                        usd = between(r, 25_001, 99_999);
                    }
                    case 1 -> { // hot-wallet velocity (5th policy)
                        wallet = Realistic.HOT_1;
                        walletCount = (long) between(r, 20, 40);
                    }
                    default -> wallet = Realistic.COLD; // cold storage (6th policy)
                }
            }
            case ALLOW -> {
                switch (r.nextInt(10)) {
                    case 0, 1 -> { // stablecoin dust
                        asset = pick(r, "USDC", "USDT", "DAI");
                        usd = between(r, 10, 999);
                    }
                    case 2 -> { // treasury desk
                        email = "desk@treasury.example.com";
                        usd = between(r, 6_000, 19_999);
                    }
                    default -> { // small withdrawal to a long-known address
                        usd = between(r, 100, 5000);
                        ageSec = (long) between(r, 8, 400) * DAY;
                    }
                }
            }
        }
        Action.Builder b = Action.builder(TriggerAction.WITHDRAWAL_CREATE)
                .id(id)
                .walletId(wallet)
                .at(TUESDAY.plus(Duration.ofHours(8 + r.nextInt(12))).plusSeconds(r.nextInt(3600)))
                .field("principal.role", role)
                .field("withdrawal.amount", usd / 3000.0)
                .field("withdrawal.value_usd", usd)
                .field("withdrawal.asset_symbol", asset)
                .field("withdrawal.asset_is_native", asset.equals("ETH"))
                .field("withdrawal.destination_address", "0x" + Long.toHexString(r.nextLong()) + "00000000000000000000000")
                .field("withdrawal.network_code", "ETHEREUM_MAINNET")
                .field("withdrawal.is_whitelisted", true)
                .field("withdrawal.address_age_sec", ageSec)
                .field("wallet.outflow_1h", between(r, 0, 50_000))
                .field("wallet.outflow_6h", between(r, 0, 150_000))
                .field("wallet.outflow_24h", between(r, 0, 400_000))
                .field("wallet.withdrawal_count_1h", walletCount)
                .field("workspace.outflow_1h", between(r, 0, 200_000))
                .field("workspace.outflow_6h", between(r, 0, 600_000))
                .field("workspace.outflow_24h", between(r, 0, 2_000_000))
                .field("workspace.withdrawal_count_1h", (long) between(r, 0, 80))
                .field("workspace.network_outflow_1h", between(r, 0, 100_000))
                .field("workspace.network_outflow_6h", between(r, 0, 300_000))
                .field("workspace.network_outflow_24h", between(r, 0, 1_000_000))
                .field("workspace.network_withdrawal_count_1h", (long) between(r, 0, 50));
        if (email != null) {
            b.field("principal.user_email", email);
        }
        return b.build();
    }

    private static double between(Random r, double lo, double hi) {
        return Math.round((lo + r.nextDouble() * (hi - lo)) * 100) / 100.0;
    }

    @SafeVarargs
    private static <T> T pick(Random r, T... values) {
        return values[r.nextInt(values.length)];
    }
}
