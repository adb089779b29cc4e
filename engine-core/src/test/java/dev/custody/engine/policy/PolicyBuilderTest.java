package dev.custody.engine.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.Decision;
import dev.custody.engine.Outcome;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.payload.Action;
import dev.custody.engine.validate.PolicyValidator;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.PolicyStatus;
import dev.custody.engine.schema.TriggerAction;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link Policy.Builder} and {@link Rule.Builder}: what they build, and every message they refuse with. */
class PolicyBuilderTest {
    static final String GROUP = "985976e8-9faf-4e44-a2ed-b01af2ca04cf";
    static final String WALLET = "92e0490b-f666-47c5-8c1a-dd0688c6fc87";
    static final String WORKSPACE = "00cd4ae6-310e-4566-99ae-1270f1ed5570";

    static Rule.Builder big() {
        return Rule.builder("big").triggerAction(TriggerAction.WITHDRAWAL_CREATE)
                .condition("withdrawal.value_usd > 10000").effect(Effect.DENY);
    }

    static Policy.Builder limits() {
        return Policy.builder("limits").name("withdrawal limits").approvalGroupId(GROUP).status(PolicyStatus.ACTIVE)
                .rule(big().build());
    }

    @Test
    void aRuleIsItsWireRecordWithTypedValuesSpelledOut() {
        Rule r = big().description("above $10,000").build();
        assertEquals(new Rule("big", "withdrawal.create", "withdrawal.value_usd > 10000", "DENY", "above $10,000",
                true), r);
        Rule off = Rule.builder("call").triggerAction(TriggerAction.WEB3_CONTRACT_CALL)
                .condition("resource.method == 'approve'").effect(Effect.ALLOW).enabled(false).build();
        assertEquals(new Rule("call", "web3.contract_call", "resource.method == 'approve'", "ALLOW", null, false), off);
        assertEquals(false, off.enabled());
    }

    @Test
    void aPolicyIsItsWireRecordWithTypedValuesSpelledOut() {
        Rule listed = Rule.builder("listed").triggerAction(TriggerAction.WITHDRAWAL_CREATE)
                .condition("withdrawal.is_whitelisted").effect(Effect.ALLOW).description("address book").build();
        Policy p = Policy.builder("limits")
                .name("withdrawal limits")
                .description("limits of the treasury")
                .approvalGroupId(GROUP)
                .walletId(WALLET)
                .rule(big().build())
                .rules(List.of(listed))
                .status(PolicyStatus.PENDING)
                .version(3)
                .workspaceId(WORKSPACE)
                .createdAt(Instant.parse("2026-11-03T14:05:00Z"))
                .build();
        assertEquals(new Policy("limits", "withdrawal limits", "limits of the treasury", GROUP, List.of(WALLET),
                List.of(big().build(), listed), "pending", 3, WORKSPACE, "2026-11-03T14:05:00Z"), p);
        assertEquals(PolicyStatus.PENDING, p.effectiveStatus().orElseThrow());

        Policy minimal = limits().build();
        assertEquals(new Policy("limits", "withdrawal limits", null, GROUP, List.of(), List.of(big().build()), "active",
                null, null, null), minimal);
    }

    @Test
    void whatIsBuiltIsImmutableAndIndependentOfTheBuilder() {
        Policy.Builder b = limits().walletId(WALLET);
        Policy p = b.build();
        b.walletId("11111111-1111-4111-8111-111111111111").rule(big().build().withRuleId("other"));
        assertEquals(List.of(WALLET), p.walletIds());
        assertEquals(1, p.rules().size());
        assertThrows(UnsupportedOperationException.class, () -> p.walletIds().add(WALLET));
        assertThrows(UnsupportedOperationException.class, () -> p.rules().clear());
        assertEquals(2, b.build().walletIds().size());
    }

    /** A built policy is valid to the validator and decides through the engine. */
    @Test
    void aBuiltPolicyValidatesAndDecides() {
        Policy p = limits().rule(Rule.builder("listed").triggerAction(TriggerAction.WITHDRAWAL_CREATE)
                .condition("withdrawal.is_whitelisted").effect(Effect.ALLOW).build()).build();
        assertEquals(List.of(), new PolicyValidator(RuleCompiler.create()).validate(p).diagnostics());
        PolicyEngine engine = PolicyEngine.builder(ws -> List.of(p)).timeBudget(Duration.ofSeconds(30)).build();
        Decision big = engine.evaluate(WORKSPACE, withdrawal(20000, true));
        assertEquals(Outcome.DENY, big.outcome());
        assertEquals("big", big.ruleId());
        Decision listed = engine.evaluate(WORKSPACE, withdrawal(500, true));
        assertEquals(Outcome.ALLOW, listed.outcome());
        assertEquals("listed", listed.ruleId());
        assertEquals(Outcome.NO_MATCH, engine.evaluate(WORKSPACE, withdrawal(500, false)).outcome());
    }

    static Action withdrawal(double usd, boolean whitelisted) {
        return Action.builder(TriggerAction.WITHDRAWAL_CREATE)
                .walletId(WALLET).workspaceId(WORKSPACE).at(Instant.parse("2026-11-03T14:05:00Z"))
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
    }

    static Stream<Arguments> ruleErrors() {
        return Stream.of(
                refused(() -> Rule.builder(null).triggerAction(TriggerAction.WITHDRAWAL_CREATE).condition("true")
                        .effect(Effect.ALLOW).build(), "rule id is required"),
                refused(() -> Rule.builder("  ").triggerAction(TriggerAction.WITHDRAWAL_CREATE).condition("true")
                        .effect(Effect.ALLOW).build(), "rule id is blank"),
                refused(() -> Rule.builder("big").condition("true").effect(Effect.DENY).build(),
                        "rule `big`: trigger action is required"),
                refused(() -> Rule.builder("big").triggerAction(TriggerAction.WITHDRAWAL_CREATE).condition("true")
                        .build(), "rule `big`: effect is required"),
                refused(() -> Rule.builder("big").triggerAction(TriggerAction.WITHDRAWAL_CREATE).effect(Effect.DENY)
                        .build(), "rule `big`: condition is required"),
                refused(() -> big().condition(" \n\t").build(), "rule `big`: condition is blank"),
                refused(() -> big().condition("true" + " ".repeat(3997)).build(),
                        "rule `big`: condition is 4001 characters long; the limit is 4000"),
                // code points, not chars: 500 emoji are 1000 chars and within the limit, 501 are not
                refused(() -> big().description("\uD83D\uDCB8".repeat(501)).build(),
                        "rule `big`: description is 501 characters long; the limit is 500"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("ruleErrors")
    void aRuleBuilderRefuses(Supplier<?> build, String message) {
        assertEquals(message, assertThrows(IllegalStateException.class, build::get).getMessage());
    }

    static Stream<Arguments> policyErrors() {
        List<String> manyWallets = new ArrayList<>(Collections.nCopies(501, WALLET));
        List<Rule> manyRules = new ArrayList<>();
        for (int i = 0; i < 51; i++) {
            manyRules.add(big().build().withRuleId("r" + i));
        }
        return Stream.of(
                refused(() -> Policy.builder(null).name("withdrawal limits").approvalGroupId(GROUP)
                        .status(PolicyStatus.ACTIVE).build(), "policy id is required"),
                refused(() -> Policy.builder("").name("withdrawal limits").approvalGroupId(GROUP)
                        .status(PolicyStatus.ACTIVE).build(), "policy id is blank"),
                refused(() -> Policy.builder("limits").approvalGroupId(GROUP).status(PolicyStatus.ACTIVE).build(),
                        "policy `limits`: name is required"),
                refused(() -> limits().name("ab").build(),
                        "policy `limits`: name is 2 characters long; it must be 3 to 100"),
                refused(() -> limits().name("n".repeat(101)).build(),
                        "policy `limits`: name is 101 characters long; it must be 3 to 100"),
                refused(() -> limits().description("d".repeat(501)).build(),
                        "policy `limits`: description is 501 characters long; the limit is 500"),
                refused(() -> Policy.builder("limits").name("withdrawal limits").status(PolicyStatus.ACTIVE).build(),
                        "policy `limits`: approval group id is required"),
                refused(() -> limits().approvalGroupId("group-1").build(),
                        "policy `limits`: approval group id `group-1` is not a UUID"),
                refused(() -> Policy.builder("limits").name("withdrawal limits").approvalGroupId(GROUP).build(),
                        "policy `limits`: status is required (active, pending, inactive or rejected)"),
                refused(() -> limits().walletIds(manyWallets).build(),
                        "policy `limits`: 501 wallet ids; the limit is 500"),
                refused(() -> limits().walletId(WALLET).walletId("wallet-2").build(),
                        "policy `limits`: wallet id `wallet-2` is not a UUID"),
                refused(() -> Policy.builder("limits").name("withdrawal limits").approvalGroupId(GROUP)
                        .status(PolicyStatus.ACTIVE).rules(manyRules).build(),
                        "policy `limits`: 51 rules; the limit is 50"),
                refused(() -> limits().rule(big().effect(Effect.ALLOW).build()).build(),
                        "policy `limits`: rule id `big` is used twice"),
                refused(() -> limits().version(0).build(), "policy `limits`: version must be 1 or more, got 0"),
                refused(() -> limits().workspaceId(" ").build(), "policy `limits`: workspace id is blank"),
                // a rule given as a wire record is checked as the rule builder checks, named inside its policy
                refused(() -> limits().rule(new Rule(null, "withdrawal.create", "true", "ALLOW", null, null)).build(),
                        "policy `limits`: rule id is required"),
                refused(() -> limits().rule(new Rule("r", "Withdrawal.Create", "true", "ALLOW", null, null)).build(),
                        "policy `limits`: rule `r`: unknown trigger action `Withdrawal.Create`"),
                refused(() -> limits().rule(new Rule("r", "withdrawal.create", "true", "allow", null, null)).build(),
                        "policy `limits`: rule `r`: unknown effect `allow`"),
                refused(() -> limits().rule(new Rule("r", "withdrawal.create", "", "ALLOW", null, null)).build(),
                        "policy `limits`: rule `r`: condition is blank"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("policyErrors")
    void aPolicyBuilderRefuses(Supplier<?> build, String message) {
        assertEquals(message, assertThrows(IllegalStateException.class, build::get).getMessage());
    }

    @Test
    void settersRefuseNullsByName() {
        assertEquals("status", assertThrows(NullPointerException.class,
                () -> Policy.builder("p").status(null)).getMessage());
        assertEquals("effect", assertThrows(NullPointerException.class,
                () -> Rule.builder("r").effect(null)).getMessage());
        assertEquals("triggerAction", assertThrows(NullPointerException.class,
                () -> Rule.builder("r").triggerAction(null)).getMessage());
        assertEquals("rule", assertThrows(NullPointerException.class,
                () -> Policy.builder("p").rule(null)).getMessage());
    }

    @Test
    void everyLimitIsReachableExactly() {
        // at the limits, nothing is refused
        Policy p = limits().name("n".repeat(100)).description("d".repeat(500))
                .rule(Rule.builder("long").triggerAction(TriggerAction.WITHDRAWAL_CREATE)
                        .condition("true" + " ".repeat(3996)).effect(Effect.ALLOW).description("d".repeat(500)).build())
                .walletIds(Collections.nCopies(500, WALLET)).build();
        assertEquals(500, p.walletIds().size());
        assertTrue(limits().name("abc").build().name().length() == 3);
    }

    private static Arguments refused(Supplier<?> build, String message) {
        return Arguments.of(build, message);
    }
}
