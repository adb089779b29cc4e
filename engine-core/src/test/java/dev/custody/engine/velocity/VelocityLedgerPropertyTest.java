package dev.custody.engine.velocity;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * The ledger against a brute-force model over random streams: every figure of every query equal, with
 * records out of order, window boundaries hit exactly, big jumps in time, and values large enough to carry
 * into the high word of the sums.
 */
class VelocityLedgerPropertyTest {
    private static final Instant BASE = Instant.parse("2026-11-01T00:00:00Z");
    private static final Duration GRID = Duration.ofMinutes(5);
    private static final String[] WORKSPACES = {"ws-a", "ws-b"};
    private static final String[] NETWORKS = {"ETHEREUM_MAINNET", "BASE_MAINNET"};

    enum Kind { ATTEMPT, SETTLE, QUERY }

    /**
     * How the cursor moves, in grid units of 5 minutes (1 h = 12 units, 24 h = 288): by {@code units} from
     * where it is, or to {@code units} from the latest unit seen (where the keys' anchors are), which is how
     * a late record lands exactly one window before an anchor and a query comes back to it.
     */
    record Move(boolean fromLatest, int units) {}

    /**
     * One step: move the cursor, then do something at the cursor plus {@code jitterNanos}. The grid makes
     * records land exactly on window bounds; the jitter probes a nanosecond either side.
     */
    record Op(Kind kind, Move move, long jitterNanos, int wallet, int network, long micros,
            SettlementStatus status) {}

    @Property(tries = 200)
    void everyFigureEqualsTheModel(@ForAll("streams") List<Op> ops, @ForAll("latenesses") Duration lateness) {
        VelocityLedger ledger = VelocityLedger.builder().lateness(lateness).build();
        LedgerModel model = new LedgerModel();
        long units = 0;
        long latest = 0;
        Instant watermark = null;
        for (Op op : ops) {
            units = op.move().fromLatest() ? latest + op.move().units() : units + op.move().units();
            latest = Math.max(latest, units);
            Instant cursor = BASE.plus(GRID.multipliedBy(units)).plusNanos(op.jitterNanos());
            String wallet = "wallet-" + op.wallet();
            String ws = WORKSPACES[op.wallet() % 2];
            String net = NETWORKS[op.network()];
            switch (op.kind()) {
                case ATTEMPT -> {
                    ledger.recordAttempt(ws, wallet, net, cursor);
                    model.attempt(ws, wallet, net, cursor);
                }
                case SETTLE -> {
                    BigDecimal usd = BigDecimal.valueOf(op.micros(), 6);
                    ledger.recordSettlement(ws, wallet, net, usd, op.status(), cursor);
                    model.settle(ws, wallet, net, usd, op.status(), cursor);
                }
                case QUERY -> {
                    Instant t = cursor;
                    if (watermark != null && t.isBefore(watermark.minus(lateness))) {
                        assertThrows(VelocityException.class, () -> ledger.velocity(ws, wallet, net, t));
                        continue;
                    }
                    Velocity got = ledger.velocity(ws, wallet, net, t);
                    Velocity want = model.velocity(ws, wallet, net, t);
                    assertTrue(LedgerModel.same(got, want), () -> "at " + t + "\n got  " + got + "\n want " + want);
                }
            }
            watermark = watermark == null || cursor.isAfter(watermark) ? cursor : watermark;
        }
    }

    @Provide
    Arbitrary<Duration> latenesses() {
        return Arbitraries.of(Duration.ZERO, Duration.ofMinutes(10), Duration.ofHours(24));
    }

    @Provide
    Arbitrary<List<Op>> streams() {
        Arbitrary<Move> moves = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.just(new Move(false, 0))),
                // divisors of an hour, so records keep meeting window bounds
                Tuple.of(8, Arbitraries.of(1, 2, 3, 4, 6).map(n -> new Move(false, n))),
                Tuple.of(2, Arbitraries.integers().between(1, 12).map(n -> new Move(false, n))),
                // exactly one window later
                Tuple.of(2, Arbitraries.of(12, 72, 288).map(n -> new Move(false, n))),
                // back in time: within a 10-minute tolerance (1, 2 units) or beyond it (3+)
                Tuple.of(4, Arbitraries.integers().between(-4, -1).map(n -> new Move(false, n))),
                // back to the latest instant, or to exactly one window before it, or past what is kept
                Tuple.of(3, Arbitraries.of(0, -12, -72, -288, -290, -291).map(n -> new Move(true, n))),
                // a jump past every window
                Tuple.of(1, Arbitraries.integers().between(72, 400).map(n -> new Move(false, n))));
        Arbitrary<Long> jitter = Arbitraries.frequencyOf(
                Tuple.of(8, Arbitraries.just(0L)),
                Tuple.of(1, Arbitraries.of(-1L, 1L)),
                Tuple.of(1, Arbitraries.longs().between(-GRID.toNanos() / 2, GRID.toNanos() / 2)));
        Arbitrary<Long> micros = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.longs().between(0, 1_000_000_000_000L)),
                Tuple.of(1, Arbitraries.longs().between(Long.MAX_VALUE - 1000, Long.MAX_VALUE)));
        Arbitrary<Op> op = Combinators.combine(
                Arbitraries.of(Kind.values()), moves, jitter, Arbitraries.integers().between(0, 3),
                Arbitraries.integers().between(0, 1), micros, Arbitraries.of(SettlementStatus.values()))
                .as(Op::new);
        return op.list().ofMinSize(1).ofMaxSize(120);
    }
}
