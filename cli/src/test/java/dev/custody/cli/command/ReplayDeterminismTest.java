package dev.custody.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.cli.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16: a replay of the same stream gives the same records, {@code elapsed_us} aside, at 1 and at 16
 * threads, on the example policies plus a pathological policy (regexes over the destination address,
 * comprehensions, a rule that passes a lowered cost limit on large withdrawals), and no record is a
 * {@code time_budget} denial: decisions are bounded by cost, not by how busy the machine is.
 */
class ReplayDeterminismTest {
    private static final String RANGE = "[" + "1,".repeat(59) + "1]";

    @TempDir
    Path dir;

    @Test
    void sixteenThreadsReplayExactlyAsOne() throws Exception {
        Path policies = Files.createDirectories(dir.resolve("pathological"));
        Files.writeString(policies.resolve("pathological.yaml"), """
                id: pathological
                name: pathological rules
                approval_group_id: 99999999-9999-4999-8999-999999999999
                status: active
                rules:
                  - rule_id: hex-address
                    trigger_action: withdrawal.create
                    effect: DENY
                    condition: "withdrawal.destination_address.matches('^0x([0-9a-f]{2})*(dead|beef)$')"
                  - rule_id: runaway
                    trigger_action: withdrawal.create
                    effect: DENY
                    condition: "withdrawal.value_usd > 20000.0 && %1$s.all(x, %1$s.all(y, (withdrawal.destination_address + withdrawal.network_code).size() > x))"
                  - rule_id: building
                    trigger_action: withdrawal.create
                    effect: DENY
                    condition: "%1$s.map(x, withdrawal.asset_symbol + string(x)).size() < 0"
                """.formatted(RANGE));
        Path stream = DiffAgreesWithReplayTest.STREAM;
        String[] common = {"replay", "--policies", DiffAgreesWithReplayTest.POLICIES.toString(), policies.toString(),
            "--actions", stream.toString(), "--format", "jsonl", "--cost-limit", "30000"};
        Cli.Result one = Cli.run(concat(common, "--threads", "1"));
        Cli.Result sixteen = Cli.run(concat(common, "--threads", "16"));
        assertEquals(0, one.exit(), one.err());
        assertEquals(0, sixteen.exit(), sixteen.err());
        assertEquals(one.outWithoutTimings(), sixteen.outWithoutTimings());
        assertTrue(one.out().contains("\"failure\":\"cost_budget\""), "the lowered limit stops the runaway rule");
        assertTrue(one.out().contains("\"decision\":\"ALLOW\""), "the pathological rules do not deny everything");
        assertTrue(!one.out().contains("time_budget") && !sixteen.out().contains("time_budget"));
        assertTrue(one.outLines().size() > 700, one.outLines().size() + " records");
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
