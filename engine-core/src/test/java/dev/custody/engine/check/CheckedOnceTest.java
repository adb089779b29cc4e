package dev.custody.engine.check;

import dev.custody.engine.payload.Action;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.custody.engine.Fixtures;
import dev.custody.engine.Decision;
import dev.custody.engine.Outcome;
import dev.custody.engine.internal.bundle.PolicyBundle;
import dev.custody.engine.TestEvaluator;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An action is checked once into its indexed form (docs/design.md §10.5): the {@link Action} remembers the result,
 * so deciding it again checks and copies nothing; what it remembers is told apart by trigger, wallet id and
 * instant, and the slots hold exactly what the sections hold.
 */
class CheckedOnceTest {
    private static final Instant MONDAY_3H = Instant.parse("2026-11-02T03:00:00Z");

    private static Payload valid(PayloadResult r) {
        return assertInstanceOf(PayloadResult.Valid.class, r).payload();
    }

    @Test
    void anActionWithItsOwnInstantIsCheckedOnceAndGivesTheSamePayloadEveryTime() {
        Action a = Fixtures.withdrawal(500).build();
        Payload first = valid(PayloadValidator.validate(a, Instant.EPOCH));
        assertSame(first, valid(PayloadValidator.validate(a, Instant.EPOCH)));
        // the evaluation instant is not used when the action has its own
        assertSame(first, valid(PayloadValidator.validate(a, MONDAY_3H)));
        assertEquals(Fixtures.TUESDAY_14H, first.instant());
    }

    @Test
    void anotherInstantOnTheSameSectionsGetsItsOwnContext() {
        Action a = Fixtures.withdrawal(500).build();
        Payload tuesday = valid(PayloadValidator.validate(a, Instant.EPOCH));
        Action moved = a.withAt(MONDAY_3H); // shares the sections, and so what was remembered of them
        Payload monday = valid(PayloadValidator.validate(moved, Instant.EPOCH));
        assertEquals(Map.of("hour", 3L, "day_of_week", "Monday"), monday.sections().get("context"));
        assertEquals(3L, monday.slot(Payload.slotOf(Section.CONTEXT, "hour")));
        assertEquals("Monday", monday.slot(Payload.slotOf(Section.CONTEXT, "day_of_week")));
        assertEquals(14L, tuesday.slot(Payload.slotOf(Section.CONTEXT, "hour")));
        assertEquals(tuesday.sections().get("withdrawal"), monday.sections().get("withdrawal"));
        // and the first action still gets its own (equal: only the last instant's payload is remembered)
        assertEquals(tuesday, valid(PayloadValidator.validate(a, Instant.EPOCH)));
    }

    @Test
    void anActionWithoutAnInstantGetsTheContextOfEachEvaluation() {
        Action a = Fixtures.withdrawal(500).at(null).build();
        Payload monday = valid(PayloadValidator.validate(a, MONDAY_3H));
        Payload tuesday = valid(PayloadValidator.validate(a, Fixtures.TUESDAY_14H));
        assertEquals(Map.of("hour", 3L, "day_of_week", "Monday"), monday.sections().get("context"));
        assertEquals(Map.of("hour", 14L, "day_of_week", "Tuesday"), tuesday.sections().get("context"));
        assertEquals("Tuesday", tuesday.slot(Payload.slotOf(Section.CONTEXT, "day_of_week")));
        assertEquals(MONDAY_3H, monday.instant());
        // later in the same hour: the values are shared, only the instant is new
        Payload later = valid(PayloadValidator.validate(a, Fixtures.TUESDAY_14H.plusSeconds(60)));
        assertEquals(Fixtures.TUESDAY_14H.plusSeconds(60), later.instant());
        assertSame(tuesday.sections(), later.sections());
        assertEquals("Tuesday", later.slot(Payload.slotOf(Section.CONTEXT, "day_of_week")));
        // an evaluation instant without a date does not make the action malformed for later evaluations
        assertEquals(new PayloadResult.Invalid("`at` `" + Instant.MAX + "` is out of the supported date range"),
                PayloadValidator.validate(a, Instant.MAX));
        assertEquals(Map.of("hour", 3L, "day_of_week", "Monday"),
                valid(PayloadValidator.validate(a, MONDAY_3H)).sections().get("context"));
    }

    @Test
    void aMalformedActionStaysMalformedWithTheSameMessage() {
        Action a = Fixtures.withdrawal(-5).build();
        PayloadResult.Invalid expected =
                new PayloadResult.Invalid("field `withdrawal.value_usd` must not be negative, got -5.0");
        assertEquals(expected, PayloadValidator.validate(a, Instant.EPOCH));
        assertEquals(expected, PayloadValidator.validate(a, Instant.EPOCH));
    }

    @Test
    void whatIsRememberedIsToldApartByWalletAndTrigger() {
        Action a = Fixtures.withdrawal(500).build();
        valid(PayloadValidator.validate(a, Instant.EPOCH));
        // the same sections under another wallet id: checked again, not taken from the first
        Action badWallet = new Action(a.id(), a.action(), "not-a-uuid", a.workspaceId(), a.at(), a.sections());
        assertEquals(new PayloadResult.Invalid("`wallet_id` `not-a-uuid` is not a UUID"),
                PayloadValidator.validate(badWallet, Instant.EPOCH));
        Action other = new Action(a.id(), a.action(), Fixtures.OTHER_WALLET.toUpperCase(), a.workspaceId(), a.at(),
                a.sections());
        assertEquals(Fixtures.OTHER_WALLET, valid(PayloadValidator.validate(other, Instant.EPOCH)).walletId());
        // the same sections under another trigger: a withdrawal's sections are not part of a contract call
        Action call = new Action(a.id(), TriggerAction.WEB3_CONTRACT_CALL, a.walletId(), a.workspaceId(), a.at(),
                a.sections());
        assertInstanceOf(PayloadResult.Invalid.class, PayloadValidator.validate(call, Instant.EPOCH));
        assertEquals(Fixtures.WALLET, valid(PayloadValidator.validate(a, Instant.EPOCH)).walletId());
    }

    @Test
    void slotsHoldWhatTheSectionsHold() {
        Action a = Fixtures.withdrawal(500).field("wallet.withdrawal_count_1h", 7).build();
        Payload p = valid(PayloadValidator.validate(a, Instant.EPOCH));
        assertEquals(500.0, p.slot(Payload.slotOf(Section.WITHDRAWAL, "value_usd")));
        assertEquals(7L, p.slot(Payload.slotOf(Section.WALLET, "withdrawal_count_1h"))); // an Integer, as CEL's int
        assertEquals("signer", p.slot(Payload.slotOf(Section.PRINCIPAL, "role")));
        assertNull(p.slot(Payload.slotOf(Section.PRINCIPAL, "user_email"))); // absent
        assertEquals(-1, Payload.slotOf(Section.WITHDRAWAL, "no_such_field"));
        for (Map.Entry<String, Map<String, Object>> section : p.sections().entrySet()) {
            Section s = Section.fromWireName(section.getKey()).orElseThrow();
            for (Map.Entry<String, Object> field : section.getValue().entrySet()) {
                assertSame(field.getValue(), p.slot(Payload.slotOf(s, field.getKey())), section.getKey() + "." + field.getKey());
            }
        }
    }

    @Test
    void aContractCallWithoutDecodedArgumentsHasTheEmptyMapInItsSlot() {
        Action call = Action.builder(TriggerAction.WEB3_CONTRACT_CALL).walletId(Fixtures.WALLET).at(MONDAY_3H)
                .field("resource.contract_address", "0xdef").build();
        Payload p = valid(PayloadValidator.validate(call, Instant.EPOCH));
        assertEquals(Map.of(), p.slot(Payload.slotOf(Section.RESOURCE, "decoded_args")));
        assertEquals(Map.of(), p.sections().get("resource").get("decoded_args"));
    }

    @Test
    void nestedValuesAreReadAtTheFirstDecisionOnly() {
        Map<String, Object> args = new HashMap<>(Map.of("amount", 5L));
        Action call = Action.builder(TriggerAction.WEB3_CONTRACT_CALL).id("c1").walletId(Fixtures.WALLET).at(MONDAY_3H)
                .field("resource.contract_address", "0xdef").field("resource.decoded_args", args).build();
        PolicyBundle bundle = Fixtures.bundle(Fixtures.policy("p", new Rule("big", "web3.contract_call",
                "has(resource.decoded_args.amount) && resource.decoded_args.amount > 100", "DENY", null, null)));
        TestEvaluator evaluator = TestEvaluator.create();
        assertEquals(Outcome.NO_MATCH, evaluator.evaluate(bundle, call).outcome());
        args.put("amount", 500L); // too late: the action was checked with 5
        Decision again = evaluator.evaluate(bundle, call);
        assertEquals(Outcome.NO_MATCH, again.outcome());
        assertNull(again.failure());
        // a new action is checked anew
        Decision fresh = evaluator.evaluate(bundle, call.withSection("resource",
                Map.of("contract_address", "0xdef", "decoded_args", args)));
        assertEquals(Outcome.DENY, fresh.outcome());
        assertEquals("big", fresh.ruleId());
        assertNull(fresh.failure());
    }
}
