package dev.custody.engine.replay;

import static dev.custody.engine.Fixtures.allow;
import static dev.custody.engine.Fixtures.deny;
import static dev.custody.engine.Fixtures.policy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.custody.engine.PolicyEngine;
import dev.custody.engine.Decision;
import dev.custody.engine.velocity.VelocityLedger;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link Replayer#read} decides an action on the reading thread only where the in-order stage cannot change the
 * decision, and never loads a bundle out of stream order; the decisions and the ledger are those of the plain
 * {@link Replayer#sequence} then {@link Replayer#decide}.
 */
class ReplayerEarlyTest {
    static final String WS = StreamLedgerTest.WS;
    static final Clock CLOCK = StreamLedgerTest.CLOCK;
    static final String SECTIONS = ", \"wallet\": {\"outflow_1h\": 0.0, \"outflow_6h\": 0.0, \"outflow_24h\": 0.0,"
            + " \"withdrawal_count_1h\": 0}, \"workspace\": {\"outflow_1h\": 0.0, \"outflow_6h\": 0.0, \"outflow_24h\": 0.0,"
            + " \"withdrawal_count_1h\": 0, \"network_outflow_1h\": 0.0, \"network_outflow_6h\": 0.0,"
            + " \"network_outflow_24h\": 0.0, \"network_withdrawal_count_1h\": 0}";

    final AtomicInteger loads = new AtomicInteger();

    PolicyEngine engine() {
        return PolicyEngine.builder(ws -> {
            loads.incrementAndGet();
            return List.of(policy("p", deny("big", "withdrawal.value_usd > 5000.0"),
                    deny("burst", "has(wallet.withdrawal_count_1h) && wallet.withdrawal_count_1h >= 2"),
                    allow("small", "withdrawal.value_usd < 100.0")));
        }).clock(CLOCK).timeBudget(Duration.ofSeconds(30)).build();
    }

    static Replayer replayer(PolicyEngine engine, boolean ledger, boolean assumeSettled) {
        StreamLedger l = ledger ? new StreamLedger(VelocityLedger.create(), assumeSettled, CLOCK) : null;
        return new Replayer(engine, l, assumeSettled, false);
    }

    static ActionStream.Line line(long n, String text) {
        return ActionStream.parse(n, text);
    }

    static String describe(Decision d) {
        return d.actionId() + " " + d.outcome() + " " + d.ruleId() + " " + d.reason() + " " + d.error();
    }

    @Test
    void onlyActionsTheStreamOrderCannotChangeAreDecidedOnRead() {
        Replayer r = replayer(engine(), true, false);
        ActionStream.Line first = line(1, StreamLedgerTest.withdrawal("a-1", 50, "2026-11-03T14:00:00Z", SECTIONS));
        assertNull(r.read(first).decided(), "the workspace's bundle is not loaded yet: the in-order stage loads it");
        assertEquals(0, loads.get(), "not loaded by the reading thread");
        r.sequence(r.read(first));
        assertEquals(1, loads.get());

        ActionStream.Line given = line(2, StreamLedgerTest.withdrawal("a-2", 50, "2026-11-03T14:01:00Z", SECTIONS));
        Replayer.Step early = r.read(given);
        assertNotNull(early.decided(), "its sections are given: nothing the ledger holds changes its decision");
        assertEquals("a-2 ALLOW small allowed by small null", describe(early.decided()));
        assertSame(early, r.sequence(early), "the in-order stage only counts the attempt");

        ActionStream.Line derived = line(3, StreamLedgerTest.withdrawal("a-3", 50, "2026-11-03T14:02:00Z", ""));
        assertNull(r.read(derived).decided(), "its velocity comes from the ledger, in stream order");
        assertEquals("a-3 DENY burst denied by burst null", describe(r.decide(r.sequence(r.read(derived)))),
                "the two earlier attempts (one decided on read) are in the ledger");

        ActionStream.Line undated = line(4, StreamLedgerTest.withdrawal("a-4", 50, "2026-11-03T14:03:00Z", SECTIONS)
                .replace("\"at\": \"2026-11-03T14:03:00Z\", ", ""));
        assertNull(r.read(undated).decided(), "without `at`, the in-order stage gives it its instant");
    }

    @Test
    void anAssumeSettledReplayDecidesEverythingInOrder() {
        Replayer r = replayer(engine(), true, true);
        ActionStream.Line a1 = line(1, StreamLedgerTest.withdrawal("a-1", 50, "2026-11-03T14:00:00Z", SECTIONS));
        r.decide(r.sequence(r.read(a1)));
        assertNull(r.read(line(2, StreamLedgerTest.withdrawal("a-2", 50, "2026-11-03T14:01:00Z", SECTIONS))).decided());
    }

    @Test
    void decisionsAndLedgerAreThoseOfTheInOrderPathWithOrWithoutALedger() {
        for (boolean ledger : new boolean[] {true, false}) {
            List<ActionStream.Line> lines = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                String at = "2026-11-03T14:%02d:00Z".formatted(i);
                double usd = i % 4 == 0 ? 9000 : 40 + i;
                lines.add(line(i + 1, StreamLedgerTest.withdrawal("a-" + i, usd, at, i % 3 == 0 ? "" : SECTIONS)));
            }
            Replayer plain = replayer(engine(), ledger, false);
            Replayer early = replayer(engine(), ledger, false);
            List<String> want = new ArrayList<>();
            List<String> got = new ArrayList<>();
            int decidedOnRead = 0;
            for (ActionStream.Line l : lines) {
                want.add(describe(plain.decide(plain.sequence(l))));
                Replayer.Step read = early.read(l);
                decidedOnRead += read.decided() != null ? 1 : 0;
                got.add(describe(early.decide(early.sequence(read))));
            }
            assertEquals(want, got, ledger ? "with a ledger" : "velocity given");
            assertEquals(ledger ? 8 : 11, decidedOnRead,
                    "all but the first and, with a ledger, the four without sections");
        }
    }

    @Test
    void anActionDecidedOnReadIsDecidedAsOfItsOwnInstant() {
        Replayer r = replayer(engine(), false, false);
        r.sequence(line(1, StreamLedgerTest.withdrawal("a-1", 50, "2026-11-03T14:00:00Z", SECTIONS)));
        Replayer.Step step = r.read(line(2, StreamLedgerTest.withdrawal("a-2", 6000, "2026-11-03T14:00:00Z", SECTIONS)));
        assertEquals("a-2 DENY big denied by big null", describe(step.decided()));
        assertEquals(Instant.parse("2026-11-03T14:00:00Z"),
                ((ActionStream.ActionLine) step.line()).action().at());
    }
}
