package dev.custody.engine.properties;

import dev.custody.engine.Fixtures;
import dev.custody.engine.payload.Action;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Random bundles and the action to decide against them: up to four policies with random statuses (now
 * and then an unknown one) and wallet targeting (every wallet, the action's wallet in either case,
 * another wallet), each with up to five rules of random trigger action, effect, enabled flag and id
 * (given, or left to be derived), whose conditions come from {@link Conditions}.
 */
final class Scenarios {
    private Scenarios() {}

    /** One bundle's policies, in declaration order, and one action. */
    record Scenario(List<Policy> policies, Action action) {
        Scenario {
            policies = List.copyOf(policies);
        }

        @Override
        public String toString() {
            StringBuilder s = new StringBuilder("Scenario[action=").append(action).append(",\n  policies=");
            for (Policy p : policies) {
                s.append("\n    ").append(p.id()).append(" status=").append(p.status()).append(" wallets=")
                        .append(p.walletIds());
                for (Rule r : p.rules()) {
                    s.append("\n      ").append(r.ruleId()).append(' ').append(r.triggerAction()).append(' ')
                            .append(r.effect()).append(r.enabled() ? "" : " (disabled)").append(": ").append(r.condition());
                }
            }
            return s.append("]").toString();
        }
    }

    /** Scenarios whose conditions all compile (when one does not, the whole bundle is invalid). */
    static Arbitrary<Scenario> valid() {
        return scenarios(false);
    }

    /** Scenarios where now and then a condition does not compile or a status is unknown. */
    static Arbitrary<Scenario> any() {
        return scenarios(true);
    }

    private static Arbitrary<Scenario> scenarios(boolean invalidToo) {
        return Arbitraries.frequencyOf(
                        Tuple.of(2, Arbitraries.just(TriggerAction.WITHDRAWAL_CREATE)),
                        Tuple.of(1, Arbitraries.just(TriggerAction.WEB3_CONTRACT_CALL)))
                .flatMap(a -> Combinators.combine(policies(a, invalidToo), Payloads.of(a)).as(Scenario::new));
    }

    static Arbitrary<List<Policy>> policies(TriggerAction action, boolean invalidToo) {
        return draft(action, invalidToo).list().ofMinSize(1).ofMaxSize(4).map(drafts -> {
            List<Policy> out = new ArrayList<>();
            for (int i = 0; i < drafts.size(); i++) {
                out.add(drafts.get(i).build("p" + i));
            }
            return out;
        });
    }

    /** A policy without its id; rule ids are derived from the policy id once it is known. */
    record PolicyDraft(String status, List<String> wallets, List<RuleDraft> rules) {
        Policy build(String id) {
            List<Rule> built = new ArrayList<>();
            for (int i = 0; i < rules.size(); i++) {
                built.add(rules.get(i).build(id + ".r" + i));
            }
            return new Policy(id, "policy " + id, null, Fixtures.GROUP, wallets, built, status, 1, null, null);
        }
    }

    /** A rule whose id is given (from its position) or left null (so the bundle derives {@code p#i}). */
    record RuleDraft(String trigger, String condition, String effect, Boolean enabled, boolean givenId) {
        Rule build(String id) {
            return new Rule(givenId ? id : null, trigger, condition, effect, "because " + id, enabled);
        }
    }

    static Arbitrary<PolicyDraft> draft(TriggerAction action, boolean invalidToo) {
        Arbitrary<String> status = invalidToo
                ? Arbitraries.frequencyOf(Tuple.of(60, statuses()), Tuple.of(1, Arbitraries.of("Active", "enabled")))
                : statuses();
        Arbitrary<List<String>> wallets = Arbitraries.frequencyOf(
                Tuple.of(5, Arbitraries.just(List.of())),
                Tuple.of(2, Arbitraries.just(List.of(Fixtures.WALLET))),
                Tuple.of(2, Arbitraries.just(List.of(Fixtures.OTHER_WALLET))),
                Tuple.of(1, Arbitraries.just(List.of(Payloads.THIRD_WALLET, Fixtures.WALLET.toUpperCase()))));
        return Combinators.combine(status, wallets, rule(action, invalidToo).list().ofMaxSize(6)).as(PolicyDraft::new);
    }

    private static Arbitrary<String> statuses() {
        return Arbitraries.frequencyOf(
                Tuple.of(10, Arbitraries.just("active")),
                Tuple.of(3, Arbitraries.just((String) null)),
                Tuple.of(1, Arbitraries.of("pending", "inactive", "rejected")));
    }

    static Arbitrary<RuleDraft> rule(TriggerAction action, boolean invalidToo) {
        TriggerAction other = action == TriggerAction.WITHDRAWAL_CREATE
                ? TriggerAction.WEB3_CONTRACT_CALL : TriggerAction.WITHDRAWAL_CREATE;
        Arbitrary<TriggerAction> trigger = Arbitraries.frequencyOf(Tuple.of(6, Arbitraries.just(action)),
                Tuple.of(1, Arbitraries.just(other)));
        Arbitrary<Boolean> enabled = Arbitraries.frequencyOf(Tuple.of(6, Arbitraries.just((Boolean) null)),
                Tuple.of(2, Arbitraries.just(Boolean.TRUE)), Tuple.of(1, Arbitraries.just(Boolean.FALSE)));
        return trigger.flatMap(t -> Combinators.combine(
                invalidToo ? Conditions.mostlyValid(t, 120) : Conditions.of(t),
                Arbitraries.of("ALLOW", "DENY"), enabled, Arbitraries.of(true, false))
                .as((condition, effect, on, givenId) -> new RuleDraft(t.wireName(), condition, effect, on, givenId)));
    }
}
