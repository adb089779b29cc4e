package dev.custody.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.PolicyEngine;
import dev.custody.engine.Decision;
import dev.custody.engine.Outcome;
import dev.custody.engine.check.ActionReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How an analysis runs ({@link PolicyAnalyzer.Run}): the same findings on one thread and on two, a deadline that
 * turns what is left into {@code unknown}, progress for every rule; and the claims on a set of the benchmark's
 * generator ({@link RuleSetGenerator}) checked against actions drawn around its constants.
 */
class AnalysisRunTest {
    /** A per-query time-out far above what these queries take, so that a loaded machine gives no unknowns. */
    private static final long TIMEOUT_MS = 120_000;

    /**
     * The generated set's size and seed, and how many actions attack its claims: small, so that verify stays fast
     * on a loaded machine. The benchmark's sets, outside verify: {@code ./mvnw -B -o -q -pl analysis -am test
     * -Dtest=AnalysisRunTest -Dsurefire.failIfNoSpecifiedTests=false -Danalysis.generated.rules=100
     * -Danalysis.generated.seed=1 -Danalysis.generated.actions=20000}.
     */
    private static final int RULES = Integer.getInteger("analysis.generated.rules", 16);
    private static final int SEED = Integer.getInteger("analysis.generated.seed", 11);
    private static final int ACTIONS = Integer.getInteger("analysis.generated.actions", 400);

    @TempDir
    static Path dir;

    private static PolicySet generated;
    private static AnalysisReport oneJob;

    @BeforeAll
    static void analyseOnce() throws IOException {
        List<String> files = RuleSetGenerator.generate(RULES, SEED);
        Path[] paths = new Path[files.size()];
        for (int i = 0; i < files.size(); i++) {
            paths[i] = Files.writeString(dir.resolve("p" + i + ".yaml"), files.get(i));
        }
        generated = Fixtures.read(paths);
        assertEquals(List.of(), generated.problems());
        oneJob = new PolicyAnalyzer(TIMEOUT_MS).analyze(generated, Optional.empty(),
                new PolicyAnalyzer.Run(1, null, PolicyAnalyzer.Progress.NONE));
    }

    /** A finding without its witness: any action the solver finds for the same query would do. */
    private static List<String> claims(AnalysisReport report) {
        List<String> out = new ArrayList<>();
        for (AnalysisFinding f : report.findings()) {
            out.add(f.kind() + " " + f.rule().label() + " " + PolicyAnalyzer.labels(f.related()) + " " + f.message());
        }
        return out;
    }

    @Test
    void twoJobsFindWhatOneFinds() {
        // the review example has a finding of every kind, so the comparison is not of two empty lists
        PolicySet review = Fixtures.read(Path.of("../examples/analysis/review.yaml"));
        AnalysisReport one = new PolicyAnalyzer(TIMEOUT_MS).analyze(review, Optional.empty(),
                new PolicyAnalyzer.Run(1, null, PolicyAnalyzer.Progress.NONE));
        AnalysisReport two = new PolicyAnalyzer(TIMEOUT_MS).analyze(review, Optional.empty(),
                new PolicyAnalyzer.Run(2, null, PolicyAnalyzer.Progress.NONE));
        assertEquals(claims(one), claims(two));
        assertEquals(8, two.rules());
        assertEquals(7, two.analyzed());
        assertEquals(List.of(FindingKind.SHADOWED, FindingKind.DUPLICATE, FindingKind.UNSATISFIABLE,
                FindingKind.MAY_ERROR, FindingKind.NOT_ANALYZED, FindingKind.OVERRIDDEN, FindingKind.ALWAYS_TRUE),
                two.findings().stream().map(AnalysisFinding::kind).toList());
        for (AnalysisFinding f : two.findings()) {
            FindingKindsTest.checkWitness(review, f);
        }
    }

    /**
     * The witnesses too are the same with one job and two, and from run to run: each thread's incremental solver
     * returns other models, and {@link PolicyAnalyzer#tidy} makes every field canonical (the README prints them).
     */
    @Test
    void witnessesAreTheSameWhateverTheJobsAndTheRun() {
        List<String> first = null;
        for (int jobs : new int[] {1, 2, 2, 1, 2}) {
            AnalysisReport r = new PolicyAnalyzer(TIMEOUT_MS).analyze(generated, Optional.empty(),
                    new PolicyAnalyzer.Run(jobs, null, PolicyAnalyzer.Progress.NONE));
            List<String> witnesses = new ArrayList<>();
            for (AnalysisFinding f : r.findings()) {
                witnesses.add(f.rule().label() + " " + f.kind() + " " + f.witness());
            }
            if (first == null) {
                first = witnesses;
                assertTrue(witnesses.stream().anyMatch(w -> !w.endsWith(" null")), witnesses::toString);
            } else {
                assertEquals(first, witnesses, "jobs " + jobs);
            }
        }
    }

    /**
     * The wallet and workspace of a witness are made canonical too: the first wallet (none the policies name,
     * then theirs in order) and workspace (none, then theirs) on which it still shows the finding, the fields
     * in their places. With many wallets the solver's choice among them differed from run to run.
     */
    @Test
    void tidyTakesTheFirstWalletAndWorkspaceThatShowTheFinding() {
        String w1 = "11111111-1111-4111-8111-111111111111";
        String w2 = "22222222-2222-4222-8222-222222222222";
        String k = "33333333-3333-4333-8333-333333333333";
        java.util.Map<String, Object> witness = new java.util.LinkedHashMap<>();
        witness.put("id", "w");
        witness.put("action", "withdrawal.create");
        witness.put("wallet_id", w2);
        witness.put("workspace_id", k);
        witness.put("at", "2026-11-02T00:00:00Z");
        witness.put("withdrawal", new java.util.LinkedHashMap<>(java.util.Map.of("value_usd", 5.0)));
        java.util.Map<String, Object> anyNamedWallet = PolicyAnalyzer.tidy(witness, java.util.Set.of(),
                List.of(w1, w2), List.of(k), x -> !ActionSpace.OTHER_WALLET.equals(x.get("wallet_id")));
        assertEquals(w1, anyNamedWallet.get("wallet_id"));
        assertEquals(List.of("id", "action", "wallet_id", "at", "withdrawal"), List.copyOf(anyNamedWallet.keySet()));
        java.util.Map<String, Object> theWorkspace = PolicyAnalyzer.tidy(witness, java.util.Set.of(),
                List.of(w1, w2), List.of(k), x -> k.equals(x.get("workspace_id")));
        assertEquals(ActionSpace.OTHER_WALLET, theWorkspace.get("wallet_id"));
        assertEquals(List.of("id", "action", "wallet_id", "workspace_id", "at", "withdrawal"),
                List.copyOf(theWorkspace.keySet()));
        assertEquals(k, theWorkspace.get("workspace_id"));
        java.util.Map<String, Object> onlyTheSecond = PolicyAnalyzer.tidy(witness, java.util.Set.of(),
                List.of(w1, w2), List.of(k), x -> w2.equals(x.get("wallet_id")));
        assertEquals(w2, onlyTheSecond.get("wallet_id"));
        assertEquals(List.of("id", "action", "wallet_id", "at", "withdrawal"), List.copyOf(onlyTheSecond.keySet()));
    }

    @Test
    void theGeneratedSetIsAnalysedWithoutTimeOuts() {
        assertEquals(RULES, oneJob.rules());
        assertTrue(oneJob.findings().stream().noneMatch(f -> f.kind() == FindingKind.UNKNOWN), claims(oneJob)::toString);
    }

    @Test
    void aDeadlineTurnsWhatIsLeftIntoUnknown() {
        List<int[]> calls = new CopyOnWriteArrayList<>();
        AnalysisReport late = new PolicyAnalyzer(TIMEOUT_MS).analyze(generated, Optional.empty(),
                new PolicyAnalyzer.Run(2, Duration.ofNanos(1), (done, total) -> calls.add(new int[] {done, total})));
        assertEquals(RULES, late.rules());
        assertEquals(0, late.analyzed());
        assertEquals(RULES, late.findings().size());
        for (int i = 0; i < RULES; i++) {
            AnalysisFinding f = late.findings().get(i);
            assertEquals(FindingKind.UNKNOWN, f.kind());
            assertEquals(generated.rules().get(i), f.rule());
            assertEquals("not analysed: the analysis deadline passed before this rule was done; nothing is claimed",
                    f.message());
            assertEquals(null, f.witness());
        }
        assertFalse(late.hasErrors());
        assertEquals(RULES, calls.size());
        assertTrue(calls.stream().allMatch(c -> c[1] == RULES));
    }

    @Test
    void progressIsToldOfEveryRuleOnce() {
        PolicySet small = Fixtures.yaml(dir, "small", Fixtures.policy("p",
                "a", "DENY", "withdrawal.value_usd > 100",
                "b", "DENY", "withdrawal.value_usd > 200",
                "c", "ALLOW", "principal.role == \"owner\""));
        List<Integer> done = new CopyOnWriteArrayList<>();
        AnalysisReport r = new PolicyAnalyzer(TIMEOUT_MS).analyze(small, Optional.empty(),
                new PolicyAnalyzer.Run(2, null, (d, total) -> {
                    assertEquals(3, total);
                    done.add(d);
                }));
        assertEquals(3, r.analyzed());
        assertEquals(List.of(1, 2, 3), done.stream().sorted().toList());
        assertEquals(List.of("SHADOWED p/b `p/a` whenever this rule is true, an earlier DENY rule (`p/a`) is true for "
                + "the same wallet: it never gets attribution"), claims(r));
    }

    @Test
    void aRunNeedsAJobAndAPositiveDeadline() {
        assertThrows(IllegalArgumentException.class, () -> new PolicyAnalyzer.Run(0, null, PolicyAnalyzer.Progress.NONE));
        assertThrows(IllegalArgumentException.class,
                () -> new PolicyAnalyzer.Run(1, Duration.ZERO, PolicyAnalyzer.Progress.NONE));
    }

    /** The soundness check of {@link SoundnessProperties}, on the generated set and actions around its constants. */
    @Test
    void noActionContradictsAFindingOnAGeneratedSet() {
        PolicyEngine engine = Fixtures.engine(generated);
        Random random = new Random(5);
        for (AnalysisFinding f : oneJob.findings()) {
            FindingKindsTest.checkWitness(generated, f);
        }
        for (int i = 0; i < ACTIONS; i++) {
            Map<String, Object> a = action(random);
            Decision d = engine.evaluate(((ActionReader.Read) ActionReader.fromMap(new LinkedHashMap<>(a))).action(),
                    false);
            for (AnalysisFinding f : oneJob.findings()) {
                AnalyzedRule r = f.rule();
                Optional<Boolean> v = Replay.value(r, a);
                String why = f + " on " + a + " decided " + d;
                boolean applies = (r.walletIds().isEmpty() || r.walletIds().contains(a.get("wallet_id")))
                        && (r.workspaceId() == null || r.workspaceId().equals(a.get("workspace_id")));
                switch (f.kind()) {
                    case UNSATISFIABLE -> assertNotEquals(Optional.of(true), v, why);
                    case ALWAYS_TRUE -> assertEquals(Optional.of(true), v, why);
                    case SHADOWED, DUPLICATE -> {
                        if (!d.failClosed()) {
                            assertFalse(r.policyId().equals(d.policyId()) && r.ruleId().equals(d.ruleId()), why);
                        }
                    }
                    case OVERRIDDEN -> {
                        if (applies && v.equals(Optional.of(true))) {
                            assertEquals(Outcome.DENY, d.outcome(), why);
                        }
                    }
                    default -> {
                        // may_error has a witness (checked above); not_analyzed and unknown claim nothing
                    }
                }
            }
        }
    }

    private static final double[] USD = {0.0, 499.5, 500.0, 500.5, 1000.0, 2000.0, 5000.0, 5000.25, 10000.0, 25000.0,
        50000.0, 100000.0, 250000.0, 250001.0, 1e6};

    /** An action with values around the generator's constants, on one of the set's wallets and workspaces. */
    private static Map<String, Object> action(Random random) {
        List<String> wallets = new ArrayList<>(List.of(ActionSpace.OTHER_WALLET));
        List<String> workspaces = new ArrayList<>();
        workspaces.add(null);
        for (AnalyzedRule r : generated.rules()) {
            wallets.addAll(r.walletIds());
            if (r.workspaceId() != null) {
                workspaces.add(r.workspaceId());
            }
        }
        Map<String, Object> principal = new LinkedHashMap<>();
        principal.put("role", List.of("viewer", "guest", "proposer", "signer", "admin", "owner").get(random.nextInt(6)));
        if (random.nextBoolean()) {
            principal.put("user_email", "u@corp" + random.nextInt(6) + ".example");
        }
        Map<String, Object> w = new LinkedHashMap<>();
        w.put("amount", 1.0);
        w.put("value_usd", USD[random.nextInt(USD.length)]);
        w.put("asset_symbol", List.of("BTC", "ETH", "USDC", "USDT", "DAI", "SOL", "XRP").get(random.nextInt(7)));
        w.put("asset_is_native", true);
        w.put("destination_address", random.nextBoolean() ? "0x" + "ab".repeat(20) : "bc1q");
        w.put("network_code", "ETHEREUM_MAINNET");
        w.put("is_whitelisted", random.nextBoolean());
        w.put("address_age_sec", List.of(0, 499, 500, 3599, 3600, 86400, 604799, 604800).get(random.nextInt(8)));
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("id", "random");
        a.put("action", "withdrawal.create");
        a.put("wallet_id", wallets.get(random.nextInt(wallets.size())));
        String ws = workspaces.get(random.nextInt(workspaces.size()));
        if (ws != null) {
            a.put("workspace_id", ws);
        }
        a.put("at", ActionSpace.instant(List.of("Monday", "Saturday", "Sunday").get(random.nextInt(3)),
                random.nextInt(24)));
        a.put("principal", principal);
        a.put("withdrawal", w);
        a.put("wallet", Map.of("outflow_1h", 0, "outflow_6h", 0, "outflow_24h", USD[random.nextInt(USD.length)] * 10,
                "withdrawal_count_1h", 0));
        a.put("workspace", Map.of("outflow_1h", 0, "outflow_6h", 0, "outflow_24h", 0, "withdrawal_count_1h", 0,
                "network_outflow_1h", 0, "network_outflow_6h", 0, "network_outflow_24h", 0,
                "network_withdrawal_count_1h", 0));
        return a;
    }
}
