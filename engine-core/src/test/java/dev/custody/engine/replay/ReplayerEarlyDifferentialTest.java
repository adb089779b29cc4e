package dev.custody.engine.replay;

import static dev.custody.engine.Fixtures.allow;
import static dev.custody.engine.Fixtures.deny;
import static dev.custody.engine.Fixtures.policy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.PolicyEngine;
import dev.custody.engine.Decision;
import dev.custody.engine.velocity.VelocityLedger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Deciding on read (docs/design.md §12.2) against the plain in-order path: random streams of withdrawals with
 * and without their velocity sections, settlements, lines without {@code at}, lines late by up to 150 minutes,
 * repeated ids and malformed lines, read 128 lines ahead and then sequenced, as the replay pipeline does. The
 * decisions (outcome, rule, reason, trace, failure) must be those of deciding each line in stream order, the
 * ledger must end with the same figures, and more than 100 lines of each stream must have been decided on read,
 * so that the shortcut is exercised. With and without a ledger, 20 seeds each.
 */
class ReplayerEarlyDifferentialTest {
    static final String SECTIONS = ReplayerEarlyTest.SECTIONS;

    PolicyEngine engine() {
        return PolicyEngine.builder(ws -> List.of(policy("p",
                deny("burst", "wallet.withdrawal_count_1h >= 3"),
                deny("out", "wallet.outflow_1h + withdrawal.value_usd > 3000.0"),
                deny("net", "workspace.network_withdrawal_count_1h >= 6"),
                deny("night", "context.hour < 1"),
                allow("small", "withdrawal.value_usd < 100000.0"))))
                .clock(StreamLedgerTest.CLOCK).timeBudget(Duration.ofSeconds(30)).build();
    }

    private static StreamLedger ledger() {
        return new StreamLedger(VelocityLedger.builder().lateness(Duration.ofHours(1)).build(), false,
                StreamLedgerTest.CLOCK);
    }

    static String describe(Decision d) {
        return d == null ? "-" : d.actionId() + " " + d.outcome() + " " + d.ruleId() + " " + d.reason() + " "
                + d.failClosed() + " " + d.failure() + " " + d.error() + " " + d.bundleRevision() + " "
                + d.trace().stream().map(t -> t.ruleId() + ":" + t.result() + ":" + t.error()).toList();
    }

    List<ActionStream.Line> stream(long seed) {
        Random r = new Random(seed);
        List<ActionStream.Line> out = new ArrayList<>();
        Instant t = Instant.parse("2026-11-03T00:30:00Z");
        for (int i = 0; i < 3000; i++) {
            t = t.plusSeconds(r.nextInt(120));
            Instant at = r.nextInt(20) == 0 ? t.minusSeconds(60L * r.nextInt(150)) : t;
            String text;
            int k = r.nextInt(10);
            if (k < 3) {
                text = StreamLedgerTest.settled(r.nextBoolean() ? "executed" : "failed", 500 + r.nextInt(3000),
                        at.toString());
            } else if (k == 3) {
                text = "{\"id\": \"bad\", \"action\": ";
            } else {
                String sec = switch (r.nextInt(4)) {
                    case 0 -> SECTIONS;
                    case 1 -> SECTIONS.substring(0, SECTIONS.indexOf(", \"workspace\""));
                    case 2 -> ", \"wallet\": {}";
                    default -> "";
                };
                String id = "a-" + (r.nextInt(8) == 0 ? i - 1 : i); // now and then the id of the line before
                text = StreamLedgerTest.withdrawal(id, 50 + r.nextInt(4000), at.toString(), sec);
                if (r.nextInt(20) == 0) {
                    text = text.replace("\"at\": \"" + at + "\", ", "");
                }
            }
            out.add(ActionStream.parse(i + 1, text));
        }
        return out;
    }

    @Test
    void earlyEqualsPlain() {
        for (boolean ledger : new boolean[] {true, false}) {
            for (long seed = 1; seed <= 20; seed++) {
                List<ActionStream.Line> lines = stream(seed);
                StreamLedger pl = ledger ? ledger() : null;
                StreamLedger el = ledger ? ledger() : null;
                Replayer plain = new Replayer(engine(), pl, false, true);
                Replayer early = new Replayer(engine(), el, false, true);
                List<String> want = new ArrayList<>();
                for (ActionStream.Line l : lines) {
                    want.add(describe(plain.decide(plain.sequence(l))));
                }
                List<String> got = new ArrayList<>();
                int onRead = 0;
                for (int b = 0; b < lines.size(); b += 128) { // read a batch ahead, then sequence it, as the pipeline
                    List<Replayer.Step> read = new ArrayList<>();
                    for (ActionStream.Line l : lines.subList(b, Math.min(lines.size(), b + 128))) {
                        Replayer.Step s = early.read(l);
                        onRead += s.decided() != null ? 1 : 0;
                        read.add(s);
                    }
                    for (Replayer.Step s : read) {
                        got.add(describe(early.decide(early.sequence(s))));
                    }
                }
                assertEquals(want, got, "seed " + seed + " ledger " + ledger);
                assertTrue(onRead > 100, "early decisions happened: " + onRead);
                if (ledger) {
                    Instant end = Instant.parse("2026-11-10T00:00:00Z");
                    assertEquals(pl.ledger().velocity(StreamLedgerTest.WS, StreamLedgerTest.W, "ETHEREUM_MAINNET", end),
                            el.ledger().velocity(StreamLedgerTest.WS, StreamLedgerTest.W, "ETHEREUM_MAINNET", end));
                }
            }
        }
    }
}
