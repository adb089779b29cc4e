package dev.custody.engine.compile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.payload.Action;
import dev.custody.engine.check.Payload;
import dev.custody.engine.check.PayloadResult;
import dev.custody.engine.check.PayloadValidator;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.TriggerAction;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The probe that counts branch outcomes without cel-java ({@link BranchProbe}) must count exactly what cel-java's
 * listener sees: the same branches evaluated (short-circuits included), with the same values, on payloads with
 * fields present and absent, boundary numbers, int/double mixes and decoded arguments of any type.
 */
class BranchProbeDifferentialTest {
    private static final RuleCompiler COMPILER = RuleCompiler.create();
    private static final int PAYLOADS = Integer.getInteger("branchProbe.payloads", 400);

    private static final List<String> WITHDRAWAL = List.of(
            "!withdrawal.is_whitelisted && withdrawal.value_usd > 10000",
            "withdrawal.is_whitelisted\n  && withdrawal.address_age_sec < 86400\n  && withdrawal.value_usd > 5000",
            "withdrawal.is_whitelisted && withdrawal.address_age_sec >= 604800\n"
                    + "  && withdrawal.value_usd <= 2000 && withdrawal.asset_symbol in [\"USDC\", \"USDT\"]",
            "(context.hour >= 22 || context.hour < 6)\n  && withdrawal.value_usd > 25000",
            "context.day_of_week in [\"Saturday\", \"Sunday\"]\n  && withdrawal.value_usd > 50000",
            "principal.role == \"proposer\" && withdrawal.value_usd > 5000",
            "principal.role in [\"viewer\", \"guest\"] || withdrawal.value_usd == 1000.0",
            "has(principal.user_email)\n  && !principal.user_email.endsWith(\"@example.com\")",
            "has(wallet.outflow_24h)\n  && wallet.outflow_24h + withdrawal.value_usd > 1000000",
            "withdrawal.value_usd > 50000 && !(withdrawal.asset_symbol in [\"USDC\", \"USDT\"])",
            "has(wallet.withdrawal_count_1h) && wallet.withdrawal_count_1h >= 12",
            "wallet.outflow_1h > 5.0 || withdrawal.value_usd > 100.0",
            "wallet.withdrawal_count_1h + workspace.withdrawal_count_1h > 20 || wallet.withdrawal_count_1h == 3",
            "withdrawal.value_usd <= 100.0 ? principal.role == 'signer' : withdrawal.amount != 2.0",
            "(withdrawal.value_usd > 1000.0 ? 1 : 2) == 1 && withdrawal.destination_address.contains('ab')",
            "withdrawal.destination_address.startsWith('0x') != withdrawal.asset_is_native",
            "withdrawal.amount >= 9007199254740993 || withdrawal.amount < -1 || withdrawal.amount == 0.5");

    private static final List<String> CONTRACT_CALL = List.of(
            "resource.method_selector == \"0x095ea7b3\"\n  && has(resource.decoded_args.value)\n"
                    + "  && resource.decoded_args.value == \"115792089237316195423570985008687907853269984665640564039457584007913129639935\"",
            "has(resource.decoded_args.to) && resource.decoded_args.to == 'x' || resource.value_wei != \"0\"",
            "has(resource.decoded_args.amount) && resource.decoded_args.amount > 5 || resource.gas_limit >= 100000",
            "has(resource.decoded_args.flag) && (resource.decoded_args.flag || !resource.decoded_args.flag)",
            "context.day_of_week in [\"Saturday\", \"Sunday\"] && resource.value_wei != \"0\"");

    @Test
    void theProbeCountsWhatCelJavaEvaluates() {
        Random random = new Random(13);
        int compared = 0;
        int probedRuns = 0;
        int runs = (WITHDRAWAL.size() + CONTRACT_CALL.size()) * PAYLOADS;
        for (String c : WITHDRAWAL) {
            probedRuns += compare(TriggerAction.WITHDRAWAL_CREATE, c, random);
            compared++;
        }
        for (String c : CONTRACT_CALL) {
            probedRuns += compare(TriggerAction.WEB3_CONTRACT_CALL, c, random);
            compared++;
        }
        assertEquals(WITHDRAWAL.size() + CONTRACT_CALL.size(), compared);
        // the fast path answered most of them (it gives up on decoded arguments of unexpected types)
        assertTrue(probedRuns > runs * 8 / 10, probedRuns + " of " + runs);
    }

    /**
     * cel-java's strict calls (comparisons, string functions) stop at their first failing operand, so the branches
     * in the operand after it are not evaluated; the probe once evaluated them anyway and counted a `?:`'s condition
     * that cel-java never saw (found by the differential harness, DifferentialHarness).
     */
    @Test
    void anOperandAfterAFailingOneIsNotEvaluated() {
        // wallet.withdrawal_count_1h and principal.user_email absent: the left operand of `>` and the receiver fail
        Action.Builder a = Action.builder(TriggerAction.WITHDRAWAL_CREATE).id("x")
                .walletId("11111111-1111-4111-8111-111111111111").at(Instant.parse("2026-11-03T14:00:00Z"))
                .field("principal.role", "owner").field("withdrawal.amount", 1.0).field("withdrawal.value_usd", 5.0);
        Payload p = ((PayloadResult.Valid) PayloadValidator.validate(a.build(), Instant.parse("2026-11-03T14:00:00Z")))
                .payload();
        for (String condition : List.of(
                "wallet.withdrawal_count_1h > (context.day_of_week.contains('Tue') ? 1 : 2)",
                "wallet.withdrawal_count_1h == (withdrawal.amount > 0.5 ? 1 : 2) || true",
                "principal.user_email.startsWith(withdrawal.value_usd > 1.0 ? 'a' : 'b')")) {
            ConditionBranches b = branches(TriggerAction.WITHDRAWAL_CREATE, condition);
            int n = b.branches().size();
            long[] probed = new long[2 * n];
            long[] cel = new long[2 * n];
            assertTrue(b.observeProbed(p, (k, v) -> probed[2 * k + (v ? 0 : 1)]++), condition);
            b.observeInterpreted(p, (k, v) -> cel[2 * k + (v ? 0 : 1)]++);
            assertEquals(Arrays.toString(cel), Arrays.toString(probed), condition);
        }
    }

    @Test
    void conditionsOutsideTheFragmentRunOnCelJava() {
        assertFalse(branches(TriggerAction.WITHDRAWAL_CREATE, "[1, 2].all(x, x > 0) && context.hour >= 9").probed());
        assertFalse(branches(TriggerAction.WITHDRAWAL_CREATE, "size(withdrawal.asset_symbol) > 3").probed());
        assertTrue(branches(TriggerAction.WITHDRAWAL_CREATE, "withdrawal.value_usd > 3.0").probed());
    }

    private static ConditionBranches branches(TriggerAction action, String condition) {
        CompileResult r = COMPILER.compile(action, condition);
        return ConditionBranches.of(r.condition().orElseThrow(() -> new AssertionError(condition + ": " + r.diagnostics())));
    }

    /** Compares on {@link #PAYLOADS} payloads; returns how many the probe answered itself. */
    private static int compare(TriggerAction action, String condition, Random random) {
        ConditionBranches b = branches(action, condition);
        int n = b.branches().size();
        int probed = 0;
        for (int i = 0; i < PAYLOADS; i++) {
            Payload p = payload(action, random);
            long[] fast = new long[2 * n];
            long[] slow = new long[2 * n];
            if (b.observeProbed(p, (k, v) -> fast[2 * k + (v ? 0 : 1)]++)) {
                probed++;
            } else {
                b.observeInterpreted(p, (k, v) -> fast[2 * k + (v ? 0 : 1)]++);
            }
            b.observeInterpreted(p, (k, v) -> slow[2 * k + (v ? 0 : 1)]++);
            if (!Arrays.equals(slow, fast)) {
                throw new AssertionError("`" + condition + "` on " + p.sections() + ": cel-java " + Arrays.toString(slow)
                        + ", probe " + Arrays.toString(fast));
            }
        }
        return probed;
    }

    private static Object pick(Random r, Object... values) {
        return values[r.nextInt(values.length)];
    }

    private static Payload payload(TriggerAction action, Random r) {
        Instant at = Instant.parse("2026-11-02T00:00:00Z").plusSeconds(r.nextInt(7 * 24) * 3600L);
        Action.Builder a = Action.builder(action).id("x").walletId("11111111-1111-4111-8111-111111111111").at(at);
        a.field("principal.role", pick(r, FieldSchema.ROLES.toArray()));
        if (r.nextBoolean()) {
            a.field("principal.user_email", pick(r, "ana@example.com", "bo@contractor.example.net", ""));
        }
        if (action == TriggerAction.WITHDRAWAL_CREATE) {
            maybe(r, a, "withdrawal.value_usd", pick(r, 0.0, 100.0, 999.99, 1000.0, 1000.5, 5000.0, 10000.0, 10000.01,
                    25000.0, 50000.0, 250000.0, 1.0e15));
            maybe(r, a, "withdrawal.amount", pick(r, 0.0, 0.5, 2.0, 9007199254740992.0, 9007199254740994.0, 3.0));
            maybe(r, a, "withdrawal.asset_symbol", pick(r, "USDC", "USDT", "ETH", ""));
            maybe(r, a, "withdrawal.asset_is_native", r.nextBoolean());
            maybe(r, a, "withdrawal.destination_address", pick(r, "0xabc", "bc1q", "0x", ""));
            maybe(r, a, "withdrawal.network_code", "ETHEREUM_MAINNET");
            maybe(r, a, "withdrawal.is_whitelisted", r.nextBoolean());
            maybe(r, a, "withdrawal.address_age_sec", pick(r, 0L, 86399L, 86400L, 604800L, 9000000L));
            maybe(r, a, "wallet.outflow_1h", pick(r, 0.0, 5.0, 5.5));
            maybe(r, a, "wallet.outflow_24h", pick(r, 0.0, 999999.0, 1000000.0, 2.0e6));
            maybe(r, a, "wallet.withdrawal_count_1h", pick(r, 0L, 3L, 11L, 12L, 40L));
            maybe(r, a, "workspace.withdrawal_count_1h", pick(r, 0L, 9L, 17L, Long.MAX_VALUE));
        } else {
            maybe(r, a, "resource.network_code", "ETHEREUM_MAINNET");
            maybe(r, a, "resource.contract_address", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
            maybe(r, a, "resource.method_selector", pick(r, "0x095ea7b3", "0xa9059cbb"));
            maybe(r, a, "resource.value_wei", pick(r, "0", "1"));
            maybe(r, a, "resource.gas_limit", pick(r, 21000L, 100000L, 250000L));
            Map<String, Object> args = new HashMap<>();
            if (r.nextBoolean()) {
                args.put("value", pick(r, "1", "115792089237316195423570985008687907853269984665640564039457584007913129639935"));
            }
            if (r.nextBoolean()) {
                args.put("to", pick(r, "x", "y"));
            }
            if (r.nextBoolean()) {
                args.put("amount", pick(r, "7", 7L, 3L, 6.5, true));
            }
            if (r.nextBoolean()) {
                args.put("flag", pick(r, true, false, "true", 1L));
            }
            if (r.nextInt(4) > 0) {
                a.field("resource.decoded_args", args);
            }
        }
        PayloadResult checked = PayloadValidator.validate(a.build(), at);
        if (checked instanceof PayloadResult.Valid v) {
            return v.payload();
        }
        throw new AssertionError("generated an invalid payload: " + ((PayloadResult.Invalid) checked).error());
    }

    private static void maybe(Random r, Action.Builder a, String path, Object value) {
        if (r.nextInt(8) > 0) {
            a.field(path, value);
        }
    }
}
