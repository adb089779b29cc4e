package dev.custody.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.cli.Cli;
import dev.custody.cli.ExitCode;
import dev.custody.cli.Fixtures;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Replay derives absent velocity sections from the stream's own records (docs/design.md §4). */
class ReplayVelocityTest {
    static final String VELOCITY_YAML = """
            id: velocity
            name: Velocity
            approval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf
            rules:
              - rule_id: daily-outflow
                trigger_action: withdrawal.create
                effect: DENY
                description: over $10,000 a day from one wallet
                condition: wallet.outflow_24h + withdrawal.value_usd > 10000.0
              - rule_id: burst
                trigger_action: withdrawal.create
                effect: DENY
                description: a third withdrawal within the hour
                condition: wallet.withdrawal_count_1h >= 2
            """;

    @TempDir
    Path dir;

    String policies;

    @BeforeEach
    void files() {
        policies = Cli.write(dir, "policies/velocity.yaml", VELOCITY_YAML);
    }

    /** A withdrawal without wallet and workspace sections: the replay's ledger fills them. */
    static String withdrawal(String id, String at, double usd) {
        return "{\"id\": \"" + id + "\", \"action\": \"withdrawal.create\", \"wallet_id\": \"" + Fixtures.WALLET
                + "\", \"workspace_id\": \"" + Fixtures.WORKSPACE + "\", \"at\": \"" + at + "\", "
                + "\"principal\": {\"role\": \"signer\"}, \"withdrawal\": {\"amount\": 1.0, \"value_usd\": " + usd
                + ", \"asset_symbol\": \"USDC\", \"asset_is_native\": false, \"destination_address\": \"0xabc\", "
                + "\"network_code\": \"ETHEREUM_MAINNET\", \"is_whitelisted\": false, \"address_age_sec\": 90000}}";
    }

    static String settled(String at, double usd, String status) {
        return "{\"event\": \"withdrawal.settled\", \"wallet_id\": \"" + Fixtures.WALLET + "\", \"workspace_id\": \""
                + Fixtures.WORKSPACE + "\", \"network_code\": \"ETHEREUM_MAINNET\", \"value_usd\": " + usd
                + ", \"status\": \"" + status + "\", \"at\": \"" + at + "\"}";
    }

    private Cli.Result replay(String actions, String... extra) {
        String file = Cli.write(dir, "actions.jsonl", actions + "\n");
        String[] args = new String[8 + extra.length];
        System.arraycopy(new String[] {"replay", "--policies", policies, "--actions", file, "--format", "text",
            "--time-budget=1m"}, 0, args, 0, 8);
        System.arraycopy(extra, 0, args, 8, extra.length);
        return Cli.run(args);
    }

    private static List<String> decisions(Cli.Result r) {
        return r.out().lines().map(l -> l.replaceAll("\\s+", " ").trim()).toList();
    }

    @Test
    void settledEventsRealizeOutflowAndEveryWithdrawalCountsAsAnAttempt() {
        Cli.Result r = replay(String.join("\n",
                withdrawal("w-1", "2026-11-03T10:00:00Z", 6000),
                settled("2026-11-03T10:05:00Z", 6000, "executed"),
                settled("2026-11-03T10:06:00Z", 9000, "failed"),
                withdrawal("w-2", "2026-11-03T10:10:00Z", 5000),
                withdrawal("w-3", "2026-11-03T10:20:00Z", 100)));
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        assertEquals(List.of(
                "w-1 NO_MATCH -",
                // 6,000 realized (the failed settlement counts nothing) + 5,000 requested
                "w-2 DENY daily-outflow over $10,000 a day from one wallet",
                // 6,100 is under the limit; w-1 and w-2 were attempts within the hour
                "w-3 DENY burst a third withdrawal within the hour"), decisions(r));
        assertTrue(r.err().contains("  applied 2 `withdrawal.settled` events to the velocity ledger"), r.err());
    }

    @Test
    void assumeSettledRealizesEveryWithdrawalThatWasNotDenied() {
        String stream = String.join("\n",
                withdrawal("w-1", "2026-11-03T08:00:00Z", 6000),
                withdrawal("w-2", "2026-11-03T12:00:00Z", 5000),
                withdrawal("w-3", "2026-11-03T16:00:00Z", 3000));
        assertEquals(List.of("w-1 NO_MATCH -", "w-2 NO_MATCH -", "w-3 NO_MATCH -"), decisions(replay(stream)));
        assertEquals(List.of(
                "w-1 NO_MATCH -",
                "w-2 DENY daily-outflow over $10,000 a day from one wallet",
                // w-2 was denied, so it realized nothing: 6,000 + 3,000
                "w-3 NO_MATCH -"), decisions(replay(stream, "--assume-settled")));
    }

    @Test
    void sectionsGivenInTheActionAreUsedAsGiven() {
        String given = withdrawal("w-2", "2026-11-03T10:10:00Z", 5000)
                .replace("\"principal\"", "\"wallet\": {\"outflow_24h\": 0.0, \"withdrawal_count_1h\": 0}, \"principal\"");
        Cli.Result r = replay(String.join("\n",
                settled("2026-11-03T10:05:00Z", 9000, "success"),
                given));
        assertEquals(List.of("w-2 NO_MATCH -"), decisions(r));
    }

    @Test
    void aMalformedEventIsAMalformedLine() {
        Cli.Result r = replay(String.join("\n",
                settled("2026-11-03T10:05:00Z", 6000, "pending"),
                withdrawal("w-1", "2026-11-03T10:10:00Z", 100)));
        assertEquals(ExitCode.INPUT, r.exit(), r.toString());
        List<String> lines = decisions(r);
        assertEquals(2, lines.size(), r.out());
        assertTrue(lines.get(0).startsWith("line 1 DENY"), lines.get(0));
        assertTrue(lines.get(0).contains("status"), lines.get(0));
        assertEquals("w-1 NO_MATCH -", lines.get(1));
    }

    @Test
    void velocityGivenEvaluatesActionsAsGivenAndCountsEventsWithoutApplyingThem() {
        String given = withdrawal("w-3", "2026-11-03T10:20:00Z", 100)
                .replace("\"principal\"", "\"wallet\": {\"outflow_24h\": 9950.0, \"withdrawal_count_1h\": 0}, \"principal\"");
        Cli.Result r = replay(String.join("\n",
                withdrawal("w-1", "2026-11-03T10:00:00Z", 6000),
                settled("2026-11-03T10:05:00Z", 6000, "executed"),
                settled("2026-11-03T10:06:00Z", 9000, "failed"),
                given), "--velocity", "given");
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        assertEquals(List.of(
                // no ledger: the wallet section stays absent, and reading it fails closed (the engine's own
                // error, the same the library gives)
                "w-1 DENY daily-outflow fail-closed: rule `daily-outflow` failed: `wallet.outflow_24h` is absent "
                        + "from the payload (at 1:8)",
                // the section given is used as given: 9,950 + 100 is over the limit, the settlements change nothing
                "w-3 DENY daily-outflow over $10,000 a day from one wallet"), decisions(r));
        assertTrue(r.err().contains("\n  ignored 2 `withdrawal.settled` events (--velocity given)\n"), r.err());
        assertFalse(r.err().contains("applied"), r.err());
    }

    @Test
    void velocityDeriveIsTheDefault() {
        String stream = String.join("\n",
                withdrawal("w-1", "2026-11-03T10:00:00Z", 6000),
                settled("2026-11-03T10:05:00Z", 6000, "executed"),
                withdrawal("w-2", "2026-11-03T10:10:00Z", 5000));
        Cli.Result derived = replay(stream, "--velocity", "derive");
        assertEquals(List.of(
                "w-1 NO_MATCH -",
                "w-2 DENY daily-outflow over $10,000 a day from one wallet"), decisions(derived));
        assertEquals(decisions(replay(stream)), decisions(derived));
        assertTrue(derived.err().contains("\n  applied 1 `withdrawal.settled` event to the velocity ledger\n"),
                derived.err());
    }

    @Test
    void velocityGivenWithAssumeSettledIsAUsageError() {
        Cli.Result r = replay(withdrawal("w-1", "2026-11-03T10:00:00Z", 6000), "--velocity", "given", "--assume-settled");
        assertEquals(ExitCode.USAGE, r.exit(), r.toString());
        assertEquals("", r.out());
        assertEquals(List.of("error: `--assume-settled` needs a velocity ledger; it cannot be used with "
                + "`--velocity given`"), r.errLines());
    }

    @Test
    void anUnknownVelocityModeIsAUsageError() {
        Cli.Result r = replay(withdrawal("w-1", "2026-11-03T10:00:00Z", 6000), "--velocity", "ledger");
        assertEquals(ExitCode.USAGE, r.exit(), r.toString());
        assertEquals(List.of("error: invalid value for option `--velocity`: expected one of [derive, given] "
                + "(case-sensitive) but was `ledger`; see `custody replay --help`"), r.errLines());
    }
}
