package dev.custody.engine.replay;

import dev.custody.engine.Decisions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.custody.engine.Fixtures;
import dev.custody.engine.internal.bundle.PolicyBundle;
import dev.custody.engine.Decision;
import dev.custody.engine.FailureKind;
import dev.custody.engine.TestEvaluator;
import dev.custody.engine.Outcome;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.ActionReader;
import dev.custody.engine.velocity.VelocityLedger;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StreamLedgerTest {
    static final String WS = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
    static final String W = Fixtures.WALLET;
    static final ObjectMapper JSON = new ObjectMapper();
    static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-03T15:00:00Z"), ZoneOffset.UTC);

    /** Velocity limits: at most 10,000 USD an hour per wallet, fewer than 3 earlier attempts in the hour. */
    static final PolicyBundle BUNDLE = Fixtures.bundle(Fixtures.policy("velocity",
            Fixtures.deny("hourly-cap", "wallet.outflow_1h + withdrawal.value_usd > 10000.0"),
            Fixtures.deny("burst", "wallet.withdrawal_count_1h >= 3"),
            Fixtures.deny("network-cap", "workspace.network_outflow_24h > 100000.0")));

    static String settled(String status, double usd, String at) {
        return "{\"event\": \"withdrawal.settled\", \"wallet_id\": \"" + W + "\", \"workspace_id\": \"" + WS
                + "\", \"network_code\": \"ETHEREUM_MAINNET\", \"value_usd\": " + usd + ", \"status\": \"" + status
                + "\", \"at\": \"" + at + "\"}";
    }

    static String withdrawal(String id, double usd, String at, String extra) {
        return "{\"id\": \"" + id + "\", \"action\": \"withdrawal.create\", \"wallet_id\": \"" + W
                + "\", \"workspace_id\": \"" + WS + "\", \"at\": \"" + at + "\", \"principal\": {\"role\": \"signer\"},"
                + " \"withdrawal\": {\"amount\": 1, \"value_usd\": " + usd + ", \"asset_symbol\": \"USDC\","
                + " \"asset_is_native\": false, \"destination_address\": \"0xabc\", \"network_code\": \"ETHEREUM_MAINNET\","
                + " \"is_whitelisted\": true, \"address_age_sec\": 100000}" + extra + "}";
    }

    /** The loop the CLI replay runs: one decision (or event error) per line. */
    static List<String> replay(StreamLedger velocity, String... lines) throws Exception {
        TestEvaluator evaluator = relaxedEvaluator();
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            ActionReader.Result read = ActionReader.read(line);
            if (read instanceof ActionReader.Malformed m) {
                out.add("event error: " + m.message());
                continue;
            }
            if (read instanceof ActionReader.SettlementRead s) {
                if (velocity.apply(s.settlement()) instanceof StreamLedger.Rejected r) {
                    out.add("event error: " + r.message());
                }
                continue;
            }
            Action action = ((ActionReader.Read) read).action();
            StreamLedger.Prepared p = velocity.prepare(action);
            Decision d = p instanceof StreamLedger.Ready ready
                    ? evaluator.evaluate(BUNDLE, ready.action())
                    : Decisions.failClosed(action.id(), action.action(), FailureKind.MALFORMED_ACTION, ((StreamLedger.Unavailable) p).error(), 0);
            velocity.record(p.action(), d);
            out.add(action.id() + " " + d.outcome() + (d.ruleId() == null ? "" : " " + d.ruleId())
                    + (d.failClosed() ? " fail_closed" : ""));
        }
        return out;
    }

    @Test
    void settledEventsRealizeOutflowAndFailedOnesDoNot() throws Exception {
        StreamLedger velocity = new StreamLedger(VelocityLedger.create(), false, CLOCK);
        assertEquals(List.of("a1 NO_MATCH", "a2 DENY hourly-cap", "a3 NO_MATCH"), replay(velocity,
                settled("executed", 6000, "2026-11-03T14:00:00Z"),
                settled("failed", 90000, "2026-11-03T14:01:00Z"),
                // 6000 + 4000 is not above the cap
                withdrawal("a1", 4000, "2026-11-03T14:10:00Z", ""),
                settled("success", 0.5, "2026-11-03T14:20:00Z"),
                // 6000.5 + 4000 is
                withdrawal("a2", 4000, "2026-11-03T14:30:00Z", ""),
                // 14:00 has left the hour (window (t - 1h, t]), the 0.5 has not
                withdrawal("a3", 9999.5, "2026-11-03T15:00:00Z", "")));
    }

    @Test
    void anAttemptIsCountedAfterItsDecisionSoItNeverCountsItself() throws Exception {
        StreamLedger velocity = new StreamLedger(VelocityLedger.create(), false, CLOCK);
        assertEquals(List.of("b1 NO_MATCH", "b2 NO_MATCH", "b3 NO_MATCH", "b4 DENY burst", "b5 NO_MATCH",
                "b6 NO_MATCH", "b7 DENY burst"), replay(velocity,
                withdrawal("b1", 1, "2026-11-03T14:00:00Z", ""), // sees nothing
                withdrawal("b2", 1, "2026-11-03T14:00:00Z", ""), // sees b1, recorded at the same instant
                withdrawal("b3", 1, "2026-11-03T14:30:00Z", ""), // sees b1 b2
                withdrawal("b4", 1, "2026-11-03T14:59:59Z", ""), // sees b1 b2 b3: 3, denied
                // window (14:00, 15:00]: b1 and b2 are exactly an hour old and out; b3 and b4 are in
                withdrawal("b5", 1, "2026-11-03T15:00:00Z", ""),
                withdrawal("b6", 1, "2026-11-03T15:30:00Z", ""), // (14:30, 15:30]: b4 b5
                withdrawal("b7", 1, "2026-11-03T15:30:00Z", ""))); // b4 b5 b6: the denied b4 counts
    }

    @Test
    void withAssumeSettledEveryWithdrawalNotDeniedIsRealized() throws Exception {
        StreamLedger velocity = new StreamLedger(VelocityLedger.create(), true, CLOCK);
        assertEquals(List.of("c1 NO_MATCH", "c2 DENY hourly-cap", "c3 NO_MATCH"), replay(velocity,
                withdrawal("c1", 6000, "2026-11-03T14:00:00Z", ""),
                withdrawal("c2", 6000, "2026-11-03T14:10:00Z", ""),
                // c2 was denied: it realized nothing, so 6000 + 4000 is within the cap
                withdrawal("c3", 4000, "2026-11-03T14:20:00Z", "")));
        assertEquals(0, new BigDecimal("10000").compareTo(velocity.ledger()
                .velocity(WS, W, "ETHEREUM_MAINNET", Instant.parse("2026-11-03T14:20:00Z")).wallet().outflow1h()));
    }

    @Test
    void givenSectionsAreUsedAsGiven() throws Exception {
        StreamLedger velocity = new StreamLedger(VelocityLedger.create(), false, CLOCK);
        assertEquals(List.of("d1 NO_MATCH", "d2 DENY network-cap", "d3 DENY hourly-cap"), replay(velocity,
                settled("executed", 9000, "2026-11-03T14:00:00Z"),
                // the ledger says 9000 in the hour (9000 + 2000 would be denied), the action says 0: it wins,
                // and the absent workspace section is derived
                withdrawal("d1", 2000, "2026-11-03T14:10:00Z",
                        ", \"wallet\": {\"outflow_1h\": 0, \"withdrawal_count_1h\": 0}"),
                withdrawal("d2", 1, "2026-11-03T14:10:00Z", ", \"workspace\": {\"network_outflow_24h\": 200000}"),
                withdrawal("d3", 2000, "2026-11-03T14:10:00Z", "")));
    }

    @Test
    void anEmptyGivenSectionIsGivenAndReadingItFailsClosed() throws Exception {
        StreamLedger velocity = new StreamLedger(VelocityLedger.create(), false, CLOCK);
        assertEquals(List.of("e1 DENY hourly-cap fail_closed"), replay(velocity,
                withdrawal("e1", 1, "2026-11-03T14:10:00Z", ", \"wallet\": {}")));
    }

    @Test
    void anActionFarBehindTheStreamIsDeniedFailClosed() throws Exception {
        StreamLedger velocity = new StreamLedger(VelocityLedger.create(), false, CLOCK);
        assertEquals(List.of("f1 NO_MATCH", "f2 DENY fail_closed"), replay(velocity,
                withdrawal("f1", 1, "2026-11-03T14:10:00Z", ""),
                withdrawal("f2", 1, "2026-11-03T13:10:00Z", "")));
    }

    @Test
    void anActionWithoutInstantTakesTheClocks() {
        StreamLedger velocity = new StreamLedger(VelocityLedger.create(), false, CLOCK);
        Action a = Fixtures.withdrawal(1).at(null).workspaceId(WS).build();
        StreamLedger.Ready r = assertInstanceOf(StreamLedger.Ready.class, velocity.prepare(a));
        assertEquals(CLOCK.instant(), r.action().at());
        // Fixtures gives a wallet section; the workspace section is derived
        assertEquals(a.sections().get("wallet"), r.action().sections().get("wallet"));
        assertEquals(0L, r.action().sections().get("workspace").get("withdrawal_count_1h"));
    }

    @Test
    void withoutItsKeysAnActionKeepsItsSectionsAbsent() {
        StreamLedger velocity = new StreamLedger(VelocityLedger.create(), false, CLOCK);
        Map<String, Map<String, Object>> sections = new LinkedHashMap<>(Fixtures.withdrawal(1).build().sections());
        sections.remove("wallet");
        Action noWorkspace = new Action("g1", Fixtures.withdrawal(1).build().action(), W, null, CLOCK.instant(), sections);
        StreamLedger.Ready r = assertInstanceOf(StreamLedger.Ready.class, velocity.prepare(noWorkspace));
        assertEquals(List.of("velocity not derived: `workspace_id` is missing"), r.notes());
        assertTrue(!r.action().sections().containsKey("wallet"));
        assertEquals(List.of("attempt not recorded: `workspace_id` is missing"),
                velocity.record(r.action(), Decisions.failClosed("g1", noWorkspace.action(), FailureKind.MALFORMED_ACTION, "x", 0)));
    }

    @Test
    void contractCallsPassThrough() {
        StreamLedger velocity = new StreamLedger(VelocityLedger.create(), true, CLOCK);
        Action call = ((ActionReader.Read) ActionReader.read("{\"action\": \"web3.contract_call\", \"wallet_id\": \"" + W
                + "\", \"at\": \"2026-11-03T14:00:00Z\", \"resource\": {}}")).action();
        StreamLedger.Ready r = assertInstanceOf(StreamLedger.Ready.class, velocity.prepare(call));
        assertEquals(call, r.action());
        assertEquals(List.of(), velocity.record(call, Decisions.failClosed(null, call.action(), FailureKind.MALFORMED_ACTION, "x", 0)));
        assertTrue(velocity.ledger().watermark().isEmpty());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"event\": \"withdrawal.setled\"}                     | unknown event `withdrawal.setled` (did you mean `withdrawal.settled`?)",
            "{\"event\": \"withdrawal.settled\", \"valu_usd\": 1}   | unknown property `valu_usd` in a `withdrawal.settled` record (did you mean `value_usd`?)",
            "{\"event\": \"withdrawal.settled\"}                    | `wallet_id` is missing",
            "{'event': 'withdrawal.settled', 'wallet_id': 'w', 'workspace_id': 's', 'network_code': 'n', 'value_usd': '5', 'status': 'success', 'at': '2026-11-03T14:00:00Z'} | `value_usd` must be a number",
            "{'event': 'withdrawal.settled', 'wallet_id': 'w', 'workspace_id': 's', 'network_code': 'n', 'value_usd': -5, 'status': 'success', 'at': '2026-11-03T14:00:00Z'} | `value_usd` must not be negative, got -5",
            "{'event': 'withdrawal.settled', 'wallet_id': 'w', 'workspace_id': 's', 'network_code': 'n', 'value_usd': 5, 'status': 'done', 'at': '2026-11-03T14:00:00Z'} | `status` must be `executed`, `success` or `failed`, not `done`",
            "{'event': 'withdrawal.settled', 'wallet_id': 'w', 'workspace_id': 's', 'network_code': 'n', 'value_usd': 5, 'status': 'success', 'at': 'yesterday'} | `at` `yesterday` is not an ISO-8601 instant such as `2026-11-02T14:05:00Z`",
            "{'event': 'withdrawal.settled', 'wallet_id': 'w', 'workspace_id': 's', 'network_code': 'n', 'value_usd': 1e20, 'status': 'success', 'at': '2026-11-03T14:00:00Z'} | `value_usd` 1.0E+20 is too large",
            "{'event': 'withdrawal.settled', 'wallet_id': 5, 'workspace_id': 's', 'network_code': 'n', 'value_usd': 5, 'status': 'success', 'at': '2026-11-03T14:00:00Z'} | `wallet_id` must be a non-empty string",
    })
    void malformedEventsAreRejected(String json, String message) throws Exception {
        // the reader refuses what it can check alone; the ledger, what is out of its range (1e20 USD)
        ActionReader.Result read = ActionReader.read(json.replace('\'', '"'));
        if (read instanceof ActionReader.SettlementRead s) {
            StreamLedger velocity = new StreamLedger(VelocityLedger.create(), false, CLOCK);
            StreamLedger.Rejected r = assertInstanceOf(StreamLedger.Rejected.class, velocity.apply(s.settlement()));
            assertEquals(message, r.message());
        } else {
            assertEquals(message, assertInstanceOf(ActionReader.Malformed.class, read).message());
        }
    }

    /** A budget far above the default: these tests are not about it, and a busy shared core must not fail them. */
    static TestEvaluator relaxedEvaluator() {
        return TestEvaluator.builder().timeBudget(java.time.Duration.ofSeconds(10)).build();
    }
}
