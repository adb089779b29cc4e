package dev.custody.engine.bench;

import dev.custody.engine.Outcome;
import dev.custody.engine.payload.Action;
import java.time.DayOfWeek;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The floor: {@link Realistic}'s withdrawal rules written by hand in Java over the same input (the action's
 * section maps), with the same selection, order, DENY-over-ALLOW and fail-closed handling. A read of an
 * absent field or of a value of the wrong type throws, which counts as the rule failing, as in CEL.
 */
final class HandWrittenEngine {
    /** Typed reads of the action's sections; an absent field throws. */
    static final class Fields {
        private final Map<String, Map<String, Object>> sections;
        final long hour;
        final DayOfWeek day;

        Fields(Action a) {
            this.sections = a.sections();
            ZonedDateTime utc = a.at().atZone(ZoneOffset.UTC);
            this.hour = utc.getHour();
            this.day = utc.getDayOfWeek();
        }

        private Object get(String section, String field) {
            Map<String, Object> s = sections.get(section);
            Object v = s == null ? null : s.get(field);
            if (v == null) {
                throw new IllegalStateException(section + "." + field + " is absent");
            }
            return v;
        }

        boolean weekend() {
            return day == DayOfWeek.SATURDAY || day == DayOfWeek.SUNDAY;
        }

        /** {@code resource.decoded_args}, the empty map when the call was not decoded. */
        @SuppressWarnings("unchecked")
        Map<String, Object> args() {
            Map<String, Object> r = sections.get("resource");
            Object v = r == null ? null : r.get("decoded_args");
            return v instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
        }

        boolean has(String section, String field) {
            Map<String, Object> s = sections.get(section);
            return s != null && s.get(field) != null;
        }

        double num(String section, String field) {
            return ((Number) get(section, field)).doubleValue();
        }

        long integer(String section, String field) {
            return (Long) get(section, field);
        }

        String str(String section, String field) {
            return (String) get(section, field);
        }

        boolean bool(String section, String field) {
            return (Boolean) get(section, field);
        }
    }

    private record JavaRule(String id, Set<String> wallets, Predicate<Fields> condition) {
        boolean targets(String wallet) {
            return wallets.isEmpty() || wallets.contains(wallet);
        }
    }

    private static final String W = "withdrawal";
    private static final Set<String> ALL = Set.of();
    private static final Set<String> HOT = Set.of(Realistic.HOT_1, Realistic.HOT_2);
    private static final Set<String> BLOCKED = Set.of(Realistic.DEAD, Realistic.SANCTIONED);
    private static final Set<String> APPROVERS = Set.of("owner", "admin", "signer");
    private static final Set<String> STABLES = Set.of("USDC", "USDT", "DAI");

    private static final List<JavaRule> DENY = List.of(
            new JavaRule("single-limit", ALL, f -> f.num(W, "value_usd") > 250000.0),
            new JavaRule("wallet-24h", ALL, f -> f.num("wallet", "outflow_24h") + f.num(W, "value_usd") > 1000000.0),
            new JavaRule("workspace-24h", ALL, f -> f.num("workspace", "outflow_24h") + f.num(W, "value_usd") > 5000000.0),
            new JavaRule("network-1h", ALL,
                    f -> f.num("workspace", "network_outflow_1h") + f.num(W, "value_usd") > 500000.0),
            new JavaRule("night", ALL, f -> (f.hour < 6 || f.hour >= 22) && f.num(W, "value_usd") > 10000.0),
            new JavaRule("weekend", ALL, f -> (f.day == DayOfWeek.SATURDAY || f.day == DayOfWeek.SUNDAY)
                    && f.num(W, "value_usd") > 50000.0),
            new JavaRule("not-whitelisted", ALL, f -> !f.bool(W, "is_whitelisted") && f.num(W, "value_usd") > 1000.0),
            new JavaRule("new-address", ALL, f -> f.bool(W, "is_whitelisted") && f.num(W, "address_age_sec") < 86400.0
                    && f.num(W, "value_usd") > 5000.0),
            new JavaRule("blocklist", ALL, f -> BLOCKED.contains(f.str(W, "destination_address"))),
            new JavaRule("read-only-roles", ALL, f -> {
                String role = f.str("principal", "role");
                return role.equals("viewer") || role.equals("guest");
            }),
            new JavaRule("proposer-limit", ALL,
                    f -> f.str("principal", "role").equals("proposer") && f.num(W, "value_usd") > 25000.0),
            new JavaRule("signer-limit", ALL,
                    f -> f.str("principal", "role").equals("signer") && f.num(W, "value_usd") > 100000.0),
            new JavaRule("hot-count", HOT, f -> f.integer("wallet", "withdrawal_count_1h") >= 20),
            new JavaRule("hot-1h", HOT, f -> f.num("wallet", "outflow_1h") + f.num(W, "value_usd") > 200000.0),
            new JavaRule("network-count", HOT, f -> f.integer("workspace", "network_withdrawal_count_1h") >= 100),
            new JavaRule("cold-lock", Set.of(Realistic.COLD), f -> f.num(W, "value_usd") > 0.0));

    private static final List<JavaRule> ALLOW = List.of(
            new JavaRule("small-known", ALL, f -> f.bool(W, "is_whitelisted") && f.num(W, "address_age_sec") >= 604800.0
                    && f.num(W, "value_usd") <= 5000.0 && APPROVERS.contains(f.str("principal", "role"))),
            new JavaRule("stablecoin-dust", ALL, f -> STABLES.contains(f.str(W, "asset_symbol"))
                    && f.num(W, "value_usd") < 1000.0 && f.bool(W, "is_whitelisted")),
            new JavaRule("treasury-desk", ALL, f -> f.has("principal", "user_email")
                    && f.str("principal", "user_email").endsWith("@treasury.example.com")
                    && f.bool(W, "is_whitelisted") && f.num(W, "value_usd") < 20000.0));

    Verdict decide(Action action) {
        Fields f = new Fields(action);
        String wallet = action.walletId().toLowerCase(Locale.ROOT);
        String firstFailed = null;
        for (JavaRule r : DENY) {
            if (!r.targets(wallet)) {
                continue;
            }
            try {
                if (r.condition().test(f)) {
                    return new Verdict(Outcome.DENY, r.id(), false);
                }
            } catch (RuntimeException e) {
                firstFailed = firstFailed == null ? r.id() : firstFailed;
            }
        }
        if (firstFailed != null) {
            return new Verdict(Outcome.DENY, firstFailed, true);
        }
        String firstTrue = null;
        for (JavaRule r : ALLOW) {
            if (!r.targets(wallet)) {
                continue;
            }
            try {
                if (r.condition().test(f) && firstTrue == null) {
                    firstTrue = r.id();
                }
            } catch (RuntimeException e) {
                return new Verdict(Outcome.DENY, r.id(), true);
            }
        }
        return firstTrue != null ? new Verdict(Outcome.ALLOW, firstTrue, false) : Verdict.NO_MATCH;
    }
}
