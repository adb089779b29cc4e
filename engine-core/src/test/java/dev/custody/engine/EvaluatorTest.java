package dev.custody.engine;

import static dev.custody.engine.Fixtures.allow;
import static dev.custody.engine.Fixtures.bundle;
import static dev.custody.engine.Fixtures.deny;
import static dev.custody.engine.Fixtures.policy;
import static dev.custody.engine.Fixtures.withdrawal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.internal.bundle.PolicyBundle;
import dev.custody.engine.compile.CostMeter;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.payload.Action;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.validate.PolicyValidator;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.schema.TriggerAction;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class EvaluatorTest {
    // These tests pin semantics, not latency: the first evaluations in a fresh JVM load CEL's runtime and
    // can take tens of milliseconds, which on a loaded machine exceeds the default 100 ms budget and turns
    // the expected decision into a time-out. The budget itself is pinned by the tests that set their own.
    private static final Duration PATIENT = Duration.ofSeconds(10);

    private final Evaluator evaluator = Evaluator.builder().timeBudget(PATIENT).build();

    private Decision decide(PolicyBundle b, Action a) {
        return evaluator.evaluate(b, a, true);
    }

    @Test
    void denyWinsOverAllowAndIsAttributedToTheFirstTrueDenyRule() {
        PolicyBundle b = bundle(
                policy("p1", allow("a1", "withdrawal.value_usd < 100000")),
                policy("p2", deny("d1", "withdrawal.value_usd > 100000"), deny("d2", "withdrawal.value_usd > 5000"),
                        deny("d3", "true")));
        Decision d = decide(b, withdrawal(7400).build());
        assertEquals(Outcome.DENY, d.outcome());
        assertEquals("p2", d.policyId());
        assertEquals("d2", d.ruleId());
        assertEquals("denied by d2", d.reason());
        assertFalse(d.failClosed());
        assertNull(d.error());
        // evaluation stops at the first true DENY rule; ALLOW rules are not evaluated
        assertEquals(List.of("d1", "d2"), d.trace().stream().map(TraceEntry::ruleId).toList());
    }

    @Test
    void allowWhenNoDenyMatchesIsTheFirstTrueAllowInDeclarationOrder() {
        PolicyBundle b = bundle(
                policy("p1", deny("d1", "withdrawal.value_usd > 100000"), allow("a1", "withdrawal.value_usd > 9000")),
                policy("p2", allow("a2", "withdrawal.is_whitelisted == false"), allow("a3", "true")));
        Decision d = decide(b, withdrawal(7400).build());
        assertEquals(Outcome.ALLOW, d.outcome());
        assertEquals("p2", d.policyId());
        assertEquals("a2", d.ruleId());
        assertEquals("allowed by a2", d.reason());
        // every ALLOW rule is evaluated (an error in a later one would deny)
        assertEquals(List.of("d1", "a1", "a2", "a3"), d.trace().stream().map(TraceEntry::ruleId).toList());
    }

    @Test
    void noMatchWhenNothingIsTrue() {
        Decision d = decide(bundle(policy("p", deny("d", "withdrawal.value_usd > 1e6"),
                allow("a", "withdrawal.is_whitelisted"))), withdrawal(7400).build());
        assertEquals(Outcome.NO_MATCH, d.outcome());
        assertNull(d.ruleId());
        assertNull(d.policyId());
        assertFalse(d.failClosed());
    }

    @Test
    void emptyBundleIsNoMatch() {
        assertEquals(Outcome.NO_MATCH, decide(bundle(), withdrawal(1).build()).outcome());
    }

    @Test
    void trueDenyDecidesEvenWhenAnEarlierDenyRuleErrored() {
        PolicyBundle b = bundle(policy("p",
                deny("needs-email", "has(principal.role) && principal.user_email == 'x@y.z'"),
                deny("big", "withdrawal.value_usd > 5000")));
        Decision d = decide(b, withdrawal(7400).build());
        assertEquals(Outcome.DENY, d.outcome());
        assertEquals("big", d.ruleId());
        assertFalse(d.failClosed());
        assertEquals(TraceEntry.Result.ERROR, d.trace().get(0).result());
        assertEquals("`principal.user_email` is absent from the payload (at 1:34)", d.trace().get(0).error());
    }

    @Test
    void anErroredDenyRuleWithoutATrueDenyFailsClosedAndSkipsAllow() {
        PolicyBundle b = bundle(policy("p",
                deny("needs-email", "principal.user_email.endsWith('@evil.com')"),
                allow("all", "true")));
        Decision d = decide(b, withdrawal(7400).build());
        assertEquals(Outcome.DENY, d.outcome());
        assertTrue(d.failClosed());
        assertEquals("needs-email", d.ruleId());
        assertNull(d.reason());
        assertEquals("rule `needs-email` failed: `principal.user_email` is absent from the payload (at 1:11)",
                d.error());
        assertEquals(1, d.trace().size());
    }

    @Test
    void anErroredAllowRuleFailsClosedEvenWhenAnotherAllowIsTrue() {
        PolicyBundle b = bundle(policy("p",
                allow("first", "true"),
                allow("email", "principal.user_email == 'ops@example.com'")));
        Decision d = decide(b, withdrawal(10).build());
        assertEquals(Outcome.DENY, d.outcome());
        assertTrue(d.failClosed());
        assertEquals("email", d.ruleId());
    }

    @Test
    void errorsAbsorbedByLogicalOperatorsAreNotErrors() {
        // CEL's || absorbs the absent-field error when the other side is true
        PolicyBundle b = bundle(policy("p", allow("a", "principal.user_email == 'x' || true")));
        Decision d = decide(b, withdrawal(10).build());
        assertEquals(Outcome.ALLOW, d.outcome());
        assertFalse(d.failClosed());
    }

    @Test
    void onlyActivePoliciesAndEnabledRulesCount() {
        Rule disabled = new Rule("off", "withdrawal.create", "true", "DENY", null, false);
        PolicyBundle b = bundle(
                policy("pending", "pending", List.of(), deny("d1", "true")),
                policy("inactive", "inactive", List.of(), deny("d2", "true")),
                policy("rejected", "rejected", List.of(), deny("d3", "true")),
                policy("active", "active", List.of(), disabled, allow("a", "true")));
        Decision d = decide(b, withdrawal(10).build());
        assertEquals(Outcome.ALLOW, d.outcome());
        assertEquals("a", d.ruleId());
        assertEquals(1, b.policyCount());
        assertEquals(1, b.ruleCount());
        assertEquals(1, b.compiledRuleCount());
    }

    @Test
    void theBundleCountsTheRulesWithACompiledForm() {
        PolicyBundle b = bundle(policy("active", "active", List.of(),
                deny("d1", "withdrawal.value_usd > 10000"),
                deny("d2", "uint(wallet.withdrawal_count_1h) > 3u"),
                allow("a", "['owner', 'admin'].exists(r, principal.role == r)")));
        assertEquals(3, b.ruleCount());
        assertEquals(2, b.compiledRuleCount()); // unsigned integers run on cel-java
    }

    @Test
    void aPolicyWithoutStatusIsActive() {
        Policy p = new Policy("p", "no status", null, Fixtures.GROUP, List.of(), List.of(deny("d", "true")), null, null,
                null, null);
        assertEquals(Outcome.DENY, decide(bundle(p), withdrawal(1).build()).outcome());
    }

    @Test
    void rulesOfTheOtherTriggerActionAreNotKept() {
        Rule call = new Rule("c", "web3.contract_call", "true", "DENY", null, null);
        Decision d = decide(bundle(policy("p", call)), withdrawal(1).build());
        assertEquals(Outcome.NO_MATCH, d.outcome());
        assertTrue(d.trace().isEmpty());
    }

    @Test
    void walletTargetingKeepsOnlyPoliciesOfTheWalletAndEmptyTargetsAll() {
        PolicyBundle b = bundle(
                policy("other", "active", List.of(Fixtures.OTHER_WALLET), deny("d-other", "true")),
                policy("mine", "active", List.of(Fixtures.WALLET.toUpperCase()), allow("a-mine", "true")),
                policy("all", "active", List.of(), allow("a-all", "true")));
        Decision d = decide(b, withdrawal(1).build());
        assertEquals(Outcome.ALLOW, d.outcome());
        assertEquals("a-mine", d.ruleId());
        assertEquals(List.of("a-mine", "a-all"), d.trace().stream().map(TraceEntry::ruleId).toList());
    }

    @Test
    void aRuleThatDoesNotCompileMakesTheWholeBundleDeny() {
        PolicyBundle b = bundle(
                policy("good", allow("a", "true")),
                policy("bad", deny("typo", "withdrawal.amout > 1")));
        assertFalse(b.valid());
        Decision d = decide(b, withdrawal(1).build());
        assertEquals(Outcome.DENY, d.outcome());
        assertTrue(d.failClosed());
        assertEquals("policies do not compile: policy `bad` /rules/0/condition 1:12: error[unknown_field] "
                + "unknown field `withdrawal.amout` (hint: did you mean `withdrawal.amount`?)", d.error());
    }

    @Test
    void aDisabledRuleThatDoesNotCompileDoesNotBreakTheBundle() {
        Rule broken = new Rule("off", "withdrawal.create", "withdrawal.amout > 1", "DENY", null, false);
        PolicyBundle b = bundle(policy("p", broken, allow("a", "true")));
        assertTrue(b.valid());
        assertEquals(Outcome.ALLOW, decide(b, withdrawal(1).build()).outcome());
    }

    @Test
    void anInactivePolicyThatDoesNotCompileDoesNotBreakTheBundle() {
        PolicyBundle b = bundle(policy("draft", "pending", List.of(), deny("d", "withdrawal.amout > 1")),
                policy("p", allow("a", "true")));
        assertTrue(b.valid());
        assertEquals(Outcome.ALLOW, decide(b, withdrawal(1).build()).outcome());
    }

    @Test
    void anUnknownStatusFailsClosed() {
        PolicyBundle b = bundle(policy("p", "actve", List.of(), allow("a", "true")));
        Decision d = decide(b, withdrawal(1).build());
        assertTrue(d.failClosed());
        assertEquals("policies do not compile: policy `p` /status error[invalid_status] unknown status `actve` "
                + "(hint: statuses: pending, active, inactive, rejected)", d.error());
    }

    @Test
    void malformedPayloadsFailClosedWithTheFieldNamed() {
        PolicyBundle b = bundle(policy("p", allow("a", "true")));
        assertMalformed(b, withdrawal(1).field("withdrawal.value_usd", "7400").build(),
                "malformed action: field `withdrawal.value_usd` must be a number, not a string");
        assertMalformed(b, withdrawal(1).field("withdrawal.valueusd", 3.0).build(),
                "malformed action: unknown field `withdrawal.valueusd` (did you mean `withdrawal.value_usd`?)");
        assertMalformed(b, withdrawal(-1).build(), "malformed action: field `withdrawal.value_usd` must not be negative, got -1.0");
        assertMalformed(b, withdrawal(Double.NaN).build(), "malformed action: field `withdrawal.value_usd` must be a finite number");
        assertMalformed(b, withdrawal(1).field("wallet.withdrawal_count_1h", 2.5).build(),
                "malformed action: field `wallet.withdrawal_count_1h` must be a whole number in the integer range, not 2.5");
        assertMalformed(b, withdrawal(1).field("principal.role", "root").build(),
                "malformed action: field `principal.role` `root` is not one of owner, admin, signer, proposer, viewer, guest");
        assertMalformed(b, withdrawal(1).field("resource.gas_limit", 1).build(),
                "malformed action: section `resource` is not part of a `withdrawal.create` payload");
        assertMalformed(b, withdrawal(1).field("context.hour", 3).build(),
                "malformed action: `context` is computed from the evaluation instant; set the action's `at` instead");
        assertMalformed(b, withdrawal(1).walletId("not-a-uuid").build(), "malformed action: `wallet_id` `not-a-uuid` is not a UUID");
        assertMalformed(b, withdrawal(1).walletId(null).build(), "malformed action: `wallet_id` is missing");
    }

    @Test
    void anInstantWithoutACalendarDateIsMalformedNotAnInternalError() {
        // found by EvaluatorProperties: Instant.MAX has no UTC date, so context.hour could not be computed and
        // the evaluator denied with "internal error while evaluating: DateTimeException"
        PolicyBundle b = bundle(policy("p", allow("a", "true")));
        assertMalformed(b, withdrawal(1).at(Instant.MAX).build(),
                "malformed action: `at` `+1000000000-12-31T23:59:59.999999999Z` is out of the supported date range");
        assertMalformed(b, withdrawal(1).at(Instant.MIN).build(),
                "malformed action: `at` `-1000000000-01-01T00:00:00Z` is out of the supported date range");
        // the JSON form reads such an instant (Instant.parse accepts it), so it must be refused here
        Action fromJson = ((dev.custody.engine.check.ActionReader.Read) dev.custody.engine.check.ActionReader.read(
                "{\"action\": \"withdrawal.create\", \"wallet_id\": \"" + Fixtures.WALLET
                        + "\", \"at\": \"+1000000000-01-01T00:00:00Z\"}")).action();
        assertMalformed(b, fromJson,
                "malformed action: `at` `+1000000000-01-01T00:00:00Z` is out of the supported date range");
    }

    @Test
    void aNullSectionOrFieldNameIsMalformedNotAnInternalError() {
        // found by EvaluatorProperties: a null key (possible in a Java map, never in JSON) threw
        // NullPointerException while the message was built, so the evaluator denied with "internal error"
        PolicyBundle b = bundle(policy("p", allow("a", "true")));
        java.util.Map<String, Object> fields = new java.util.HashMap<>();
        fields.put(null, 1.0);
        assertMalformed(b, withdrawal(1).section("withdrawal", fields).build(),
                "malformed action: a field of section `withdrawal` has no name (null)");
        assertMalformed(b, withdrawal(1).section(null, java.util.Map.of("amount", 1.0)).build(),
                "malformed action: a section has no name (null)");
    }

    @Test
    void aSectionLeftOutHasNoFieldsSoGuardsHoldAndReadsNameTheField() {
        // found by EvaluatorProperties: a section missing from the action was an unresolved CEL variable, so
        // `has(workspace.outflow_1h)` was "unknown" rather than false and a correctly guarded rule failed
        // closed with "condition returned a value of another type, not a boolean"
        PolicyBundle b = bundle(policy("p",
                deny("velocity", "has(workspace.outflow_1h) && workspace.outflow_1h > 1000.0"),
                allow("email", "!has(principal.user_email) || principal.user_email.endsWith('@example.com')")));
        Action bare = Action.builder(TriggerAction.WITHDRAWAL_CREATE).walletId(Fixtures.WALLET).at(Fixtures.TUESDAY_14H)
                .field("withdrawal.value_usd", 10.0).build();
        Decision d = decide(b, bare);
        assertEquals(Outcome.ALLOW, d.outcome());
        assertEquals("email", d.ruleId());
        assertFalse(d.failClosed());

        PolicyBundle unguarded = bundle(policy("p", deny("velocity", "workspace.outflow_1h > 1000.0")));
        Decision u = decide(unguarded, bare);
        assertTrue(u.failClosed());
        assertEquals("rule `velocity` failed: `workspace.outflow_1h` is absent from the payload (at 1:11)", u.error());
    }

    @Test
    void aCallWithoutDecodedArgsIsUnrecognizedSoHasIsFalse() {
        // found by ConditionProperties: with no `decoded_args` in the action, has(resource.decoded_args.to) read
        // an absent field and failed, so the guard the validator demands denied every such call fail-closed
        Rule guarded = new Rule("to", "web3.contract_call",
                "has(resource.decoded_args.to) && resource.decoded_args.to == '0x1111111111111111111111111111111111111111'",
                "ALLOW", null, null);
        Action call = Action.builder(TriggerAction.WEB3_CONTRACT_CALL).walletId(Fixtures.WALLET).at(Fixtures.TUESDAY_14H)
                .field("principal.role", "admin")
                .field("resource.contract_address", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48")
                .field("resource.method_selector", "0x12345678")
                .build();
        Decision d = decide(bundle(policy("p", guarded)), call);
        assertEquals(Outcome.NO_MATCH, d.outcome());
        assertFalse(d.failClosed());
        Decision noResource = decide(bundle(policy("p", guarded)),
                Action.builder(TriggerAction.WEB3_CONTRACT_CALL).walletId(Fixtures.WALLET).build());
        assertEquals(Outcome.NO_MATCH, noResource.outcome());
    }

    private void assertMalformed(PolicyBundle b, Action a, String error) {
        Decision d = decide(b, a);
        assertEquals(Outcome.DENY, d.outcome());
        assertTrue(d.failClosed());
        assertEquals(error, d.error());
    }

    @Test
    void contextComesFromTheActionInstantOrTheClockInUtc() {
        PolicyBundle b = bundle(policy("p", deny("night", "context.hour < 6 || context.day_of_week == 'Sunday'")));
        Evaluator at3am = Evaluator.builder().timeBudget(PATIENT)
                .clock(Clock.fixed(Instant.parse("2026-11-03T03:00:00Z"), ZoneOffset.UTC)).build();
        Action noInstant = withdrawal(1).at(null).build();
        assertEquals(Outcome.DENY, at3am.evaluate(b, noInstant).outcome());
        // the action's own instant wins over the clock
        assertEquals(Outcome.NO_MATCH, at3am.evaluate(b, withdrawal(1).at(Fixtures.TUESDAY_14H).build()).outcome());
        assertEquals(Outcome.DENY,
                at3am.evaluate(b, withdrawal(1).at(Instant.parse("2026-11-08T12:00:00Z")).build()).outcome());
    }

    @Test
    void heterogeneousNumericComparisonsWork() {
        PolicyBundle b = bundle(policy("p", deny("d", "withdrawal.value_usd > 10000 && wallet.withdrawal_count_1h >= 2.0")));
        assertEquals(Outcome.DENY, decide(b, withdrawal(10001).build()).outcome());
        assertEquals(Outcome.NO_MATCH, decide(b, withdrawal(10000).build()).outcome());
    }

    @Test
    void aRunawayRuleIsStoppedByTheClockBackstopWhenCostIsUnlimited() {
        // Without the iteration bound and the budget this rule runs for hours: 200^4 = 1.6G iterations. So an
        // evaluation that ends at all was stopped inside the rule; the 60 s limit bounds a hang, it measures nothing
        RuleCompiler unbounded = RuleCompiler.builder().comprehensionMaxIterations(Integer.MAX_VALUE).build();
        String range = "[" + String.join(",", java.util.Collections.nCopies(200, "1")) + "]";
        String runaway = range + ".all(w, " + range + ".all(x, " + range + ".all(y, " + range
                + ".all(z, w + x + y + z > 0))))";
        PolicyBundle b = PolicyBundle.compile(List.of(policy("p", deny("slow", runaway), allow("a", "true"))),
                new PolicyValidator(unbounded));
        Evaluator e = Evaluator.builder().timeBudget(Duration.ofMillis(50)).costLimit(CostMeter.UNLIMITED).build();
        Decision d = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(60),
                () -> e.evaluate(b, withdrawal(1).build()));
        assertEquals(FailureKind.TIME_BUDGET, d.failure());
        assertEquals(Outcome.DENY, d.outcome());
        assertTrue(d.failClosed());
        assertEquals("slow", d.ruleId());
        assertEquals("time budget of 50 ms exceeded in rule `slow`", d.error());
    }

    @Test
    void theBackstopWatchesOnlyRulesThatMayRunLong() {
        // rules that cannot run long are bounded by the cost meter alone: even a 1 ns backstop does not deny them
        Evaluator instant = Evaluator.builder().timeBudget(Duration.ofNanos(1)).build();
        assertEquals(Outcome.ALLOW, instant.evaluate(bundle(policy("p", allow("a", "true"))), withdrawal(1).build()).outcome());
        assertEquals(Outcome.DENY, instant.evaluate(bundle(policy("p", deny("d", "false"), deny("a", "true"))),
                withdrawal(1).build()).outcome());
        // a rule with a comprehension is watched: past the backstop once it ran, the decision is not its answer
        PolicyBundle b = bundle(policy("p", allow("loop", "[1, 2, 3].all(x, x > 0)")));
        Decision d = instant.evaluate(b, withdrawal(1).build());
        assertEquals(Outcome.DENY, d.outcome());
        assertTrue(d.failClosed());
        assertEquals(FailureKind.TIME_BUDGET, d.failure());
        assertEquals("loop", d.ruleId());
        assertEquals("time budget of 0 µs exceeded in rule `loop`", d.error());
    }

    @Test
    void theDefaultIterationBoundStopsARunawayRuleAsAnError() {
        String range = "[" + String.join(",", java.util.Collections.nCopies(200, "1")) + "]";
        PolicyBundle b = bundle(policy("p", deny("slow", range + ".all(x, " + range + ".all(y, x + y > 0))"),
                allow("a", "true")));
        // a generous budget, so that the iteration bound (not the clock) stops it
        Evaluator patient = Evaluator.builder().timeBudget(Duration.ofSeconds(30)).costLimit(CostMeter.UNLIMITED).build();
        Decision d = patient.evaluate(b, withdrawal(1).build());
        assertEquals(Outcome.DENY, d.outcome());
        assertTrue(d.failClosed());
        assertEquals("rule `slow` failed: iteration budget exceeded: 10000 (at 1:406)", d.error());
    }

    @Test
    void contractCallsReadResourceAndGuardedDecodedArgs() {
        Rule allowlist = new Rule("usdc-only", "web3.contract_call",
                "resource.contract_address == '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48' && "
                        + "has(resource.decoded_args.to) && resource.decoded_args.to == '0x1111111111111111111111111111111111111111'",
                "ALLOW", "treasury USDC", null);
        PolicyBundle b = bundle(policy("p", allowlist));
        Action call = Action.builder(TriggerAction.WEB3_CONTRACT_CALL).walletId(Fixtures.WALLET).at(Fixtures.TUESDAY_14H)
                .field("principal.role", "admin")
                .field("resource.network_code", "ETHEREUM_MAINNET")
                .field("resource.contract_address", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48")
                .field("resource.method_selector", "0xa9059cbb")
                .field("resource.value_wei", "0")
                .field("resource.gas_limit", 60000)
                .field("resource.decoded_args", java.util.Map.of("to", "0x1111111111111111111111111111111111111111",
                        "value", "1000000"))
                .build();
        assertEquals(Outcome.ALLOW, decide(b, call).outcome());
        Action unrecognized = call.withSection("resource", java.util.Map.of("network_code", "ETHEREUM_MAINNET",
                "contract_address", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "method_selector", "0x12345678",
                "value_wei", "0", "gas_limit", 60000, "decoded_args", java.util.Map.of()));
        assertEquals(Outcome.NO_MATCH, decide(b, unrecognized).outcome());
    }

    @Test
    void aCallWithoutDecodedArgsIsAnUnrecognizedCall() {
        // docs/design.md §3: an unrecognized call has an empty decoded_args map, so has() answers false; a call given
        // without decoded_args is one whose arguments were not recognized, so a guarded rule is false there
        // rather than failing closed
        Rule guarded = new Rule("treasury", "web3.contract_call",
                "has(resource.decoded_args.to) && resource.decoded_args.to == '0x1'", "ALLOW", null, null);
        Rule unlessRecognized = new Rule("unknown-calls", "web3.contract_call",
                "!has(resource.decoded_args.to)", "DENY", null, null);
        Action call = Action.builder(TriggerAction.WEB3_CONTRACT_CALL).walletId(Fixtures.WALLET).at(Fixtures.TUESDAY_14H)
                .field("resource.contract_address", "0x00000000219ab540356cbb839cbe05303d7705fa")
                .field("resource.method_selector", "0x22895118")
                .build();
        Decision allow = decide(bundle(policy("p", guarded)), call);
        assertEquals(Outcome.NO_MATCH, allow.outcome(), String.valueOf(allow.error()));
        Decision deny = decide(bundle(policy("p", unlessRecognized)), call);
        assertEquals(Outcome.DENY, deny.outcome());
        assertFalse(deny.failClosed());
        assertEquals("unknown-calls", deny.ruleId());
        // a call without any resource section is treated the same way for decoded_args
        Action bare = Action.builder(TriggerAction.WEB3_CONTRACT_CALL).walletId(Fixtures.WALLET).at(Fixtures.TUESDAY_14H)
                .build();
        assertEquals(Outcome.NO_MATCH, decide(bundle(policy("p", guarded)), bare).outcome());
    }
}
