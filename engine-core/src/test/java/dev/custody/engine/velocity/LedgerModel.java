package dev.custody.engine.velocity;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** A brute-force reference for {@link VelocityLedger}: keeps every record, sums by scanning. */
final class LedgerModel {
    private record Entry(String workspace, String wallet, String network, boolean attempt, BigInteger micros,
            Instant at) {}

    private final List<Entry> entries = new ArrayList<>();

    void attempt(String workspace, String wallet, String network, Instant at) {
        entries.add(new Entry(workspace, wallet, network, true, BigInteger.ZERO, at));
    }

    void settle(String workspace, String wallet, String network, BigDecimal usd, SettlementStatus status, Instant at) {
        if (status.realized()) {
            BigInteger micros = usd.setScale(6, RoundingMode.HALF_EVEN).movePointRight(6).toBigIntegerExact();
            entries.add(new Entry(workspace, wallet, network, false, micros, at));
        }
    }

    Velocity velocity(String workspace, String wallet, String network, Instant t) {
        return new Velocity(
                figures(t, e -> e.wallet().equals(wallet)),
                figures(t, e -> e.workspace().equals(workspace)),
                figures(t, e -> e.workspace().equals(workspace) && network.equals(e.network())));
    }

    private Velocity.Figures figures(Instant t, java.util.function.Predicate<Entry> scope) {
        BigInteger[] sums = {BigInteger.ZERO, BigInteger.ZERO, BigInteger.ZERO};
        long[] hours = {1, 6, 24};
        long count = 0;
        for (Entry e : entries) {
            if (!scope.test(e) || e.at().isAfter(t)) {
                continue;
            }
            if (e.attempt()) {
                if (e.at().isAfter(t.minus(Duration.ofHours(1)))) {
                    count++;
                }
                continue;
            }
            for (int w = 0; w < 3; w++) {
                if (e.at().isAfter(t.minus(Duration.ofHours(hours[w])))) {
                    sums[w] = sums[w].add(e.micros());
                }
            }
        }
        return new Velocity.Figures(new BigDecimal(sums[0], 6), new BigDecimal(sums[1], 6),
                new BigDecimal(sums[2], 6), count);
    }

    /** Whether two figure sets are equal as numbers (scales aside). */
    static boolean same(Velocity a, Velocity b) {
        return same(a.wallet(), b.wallet()) && same(a.workspace(), b.workspace()) && same(a.network(), b.network());
    }

    static boolean same(Velocity.Figures a, Velocity.Figures b) {
        return a.outflow1h().compareTo(b.outflow1h()) == 0 && a.outflow6h().compareTo(b.outflow6h()) == 0
                && a.outflow24h().compareTo(b.outflow24h()) == 0 && a.withdrawalCount1h() == b.withdrawalCount1h();
    }
}
