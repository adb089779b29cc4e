package dev.custody.engine.velocity;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A hand-run micro-measurement of {@link VelocityLedger} (no JMH; not a test, so surefire never runs it):
 * the cost of one record and of one query in nanoseconds, and the heap held per 100,000 records within
 * 24 hours.
 *
 * <p>Run it after a build, in a JVM of its own (the ledger needs only the JDK):
 * <pre>
 * ./mvnw -B -q -pl engine-core -am test-compile
 * java -Xms1g -Xmx1g -XX:+UseSerialGC \
 *      -cp engine-core/target/classes:engine-core/target/test-classes:engine-schema/target/classes \
 *      dev.custody.engine.velocity.VelocityLedgerMeasure
 * </pre>
 *
 * <p>Workload: 1,000 wallets in 50 workspaces on 4 networks (Zipf-like: a few wallets are busy); per
 * record, 55 % attempts and 45 % settlements (90 % of them realized); a record every 0.1 s on average, so
 * 864,000 records a day; 1 % of records arrive up to 2 minutes late (inside the default 5-minute
 * tolerance). The timed stream covers three days, so windows slide and entries are evicted all along.
 */
public final class VelocityLedgerMeasure {
    private static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");
    private static final String[] NETWORKS = {"ETHEREUM_MAINNET", "BASE_MAINNET", "POLYGON_MAINNET", "BSC_MAINNET"};
    private static final SettlementStatus[] STATUSES = {SettlementStatus.EXECUTED, SettlementStatus.SUCCESS};

    private VelocityLedgerMeasure() {}

    /** Pre-generated records, so that generating them is not measured. */
    private record Stream(int[] wallet, int[] network, boolean[] settle, boolean[] failed, BigDecimal[] usd,
            Instant[] at, String[] wallets, String[] workspaces) {
        int size() {
            return wallet.length;
        }
    }

    private static Stream stream(int n, long meanGapMillis, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        String[] wallets = new String[1000];
        String[] workspaces = new String[1000];
        for (int i = 0; i < wallets.length; i++) {
            wallets[i] = String.format("%08x-1111-4111-8111-111111111111", i);
            workspaces[i] = String.format("%08x-aaaa-4aaa-8aaa-aaaaaaaaaaaa", i % 50);
        }
        int[] wallet = new int[n];
        int[] network = new int[n];
        boolean[] settle = new boolean[n];
        boolean[] failed = new boolean[n];
        BigDecimal[] usd = new BigDecimal[n];
        Instant[] at = new Instant[n];
        long millis = 0;
        for (int i = 0; i < n; i++) {
            millis += r.nextLong(2 * meanGapMillis + 1);
            long late = r.nextInt(100) == 0 ? r.nextLong(120_000) : 0;
            at[i] = T0.plusMillis(Math.max(0, millis - late));
            double u = r.nextDouble();
            wallet[i] = (int) (wallets.length * u * u * u); // skewed towards low ids
            network[i] = r.nextInt(NETWORKS.length);
            settle[i] = r.nextInt(100) < 45;
            failed[i] = r.nextInt(10) == 0;
            usd[i] = BigDecimal.valueOf(r.nextLong(1, 5_000_000_00L), 2);
        }
        return new Stream(wallet, network, settle, failed, usd, at, wallets, workspaces);
    }

    private static void feed(VelocityLedger ledger, Stream s, int from, int to) {
        for (int i = from; i < to; i++) {
            int w = s.wallet[i];
            if (s.settle[i]) {
                ledger.recordSettlement(s.workspaces[w], s.wallets[w], NETWORKS[s.network[i]], s.usd[i],
                        s.failed[i] ? SettlementStatus.FAILED : STATUSES[i & 1], s.at[i]);
            } else {
                ledger.recordAttempt(s.workspaces[w], s.wallets[w], NETWORKS[s.network[i]], s.at[i]);
            }
        }
    }

    private static long queries(VelocityLedger ledger, Stream s, int from, int to) {
        long sink = 0;
        for (int i = from; i < to; i++) {
            int w = s.wallet[i];
            Velocity v = ledger.velocity(s.workspaces[w], s.wallets[w], NETWORKS[s.network[i]], s.at[i]);
            sink += v.wallet().withdrawalCount1h();
        }
        return sink;
    }

    public static void main(String[] args) {
        int days = 3;
        int perDay = 864_000;
        Stream s = stream(days * perDay, 100, 42);
        System.out.printf("records: %,d over %d days (%,d a day), 1 %% up to 2 min late%n", s.size(), days, perDay);

        // record cost: whole stream, 8 rounds, the first three are warm-up
        double[] ns = new double[8];
        for (int round = 0; round < ns.length; round++) {
            VelocityLedger ledger = VelocityLedger.create();
            long t0 = System.nanoTime();
            feed(ledger, s, 0, s.size());
            ns[round] = (System.nanoTime() - t0) / (double) s.size();
        }
        System.out.printf("record: %.0f ns per record, median of the last 5 rounds (rounds: %s)%n",
                median(Arrays.copyOfRange(ns, 3, ns.length)), fmt(ns));

        // query cost: a ledger at steady state (two days fed), then one query per record of the third day
        double[] qs = new double[8];
        long sink = 0;
        for (int round = 0; round < qs.length; round++) {
            VelocityLedger ledger = VelocityLedger.create();
            feed(ledger, s, 0, 2 * perDay);
            long t0 = System.nanoTime();
            sink += queries(ledger, s, 2 * perDay, 3 * perDay);
            qs[round] = (System.nanoTime() - t0) / (double) perDay;
        }
        System.out.printf("query: %.0f ns per query, median of the last 5 rounds (rounds: %s) [sink %d]%n",
                median(Arrays.copyOfRange(qs, 3, qs.length)), fmt(qs), sink);

        // memory: 100,000 realized settlements within 24 h (every one stays in all three keys' outflow)
        memory("100k realized settlements in 24 h", settlementsOnly(100_000, 42));
        // and the mixed workload: the last 24 h of the stream above hold about 864k records
        memory("100k records of the mixed stream in 24 h (attempts kept 1 h only)", stream(100_000, 864, 7));
    }

    private static Stream settlementsOnly(int n, long seed) {
        Stream s = stream(n, 864, seed);
        Arrays.fill(s.settle, true);
        Arrays.fill(s.failed, false);
        return s;
    }

    private static void memory(String label, Stream s) {
        long before = usedAfterGc();
        VelocityLedger ledger = VelocityLedger.create();
        feed(ledger, s, 0, s.size());
        ledger.sweep();
        long after = usedAfterGc();
        long retained = ledger.retainedEntries();
        System.out.printf("memory, %s: %,d bytes per 100k records (%,d entries retained, %.1f bytes per entry;"
                        + " span %s)%n", label, (after - before) * 100_000L / s.size(), retained,
                (after - before) / (double) retained, Duration.between(s.at[0], s.at[s.size() - 1]));
        // keep the ledger reachable until after the measurement
        if (ledger.retainedEntries() < 0) {
            System.out.println(ledger);
        }
    }

    private static long usedAfterGc() {
        Runtime rt = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            used = Math.min(used, rt.totalMemory() - rt.freeMemory());
        }
        return used;
    }

    private static double median(double[] xs) {
        double[] c = xs.clone();
        Arrays.sort(c);
        return c[c.length / 2];
    }

    private static String fmt(double[] xs) {
        StringBuilder sb = new StringBuilder();
        for (double x : xs) {
            sb.append(sb.length() == 0 ? "" : " ").append(Math.round(x));
        }
        return sb.toString();
    }
}
