package dev.custody.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.custody.cli.Cli;
import dev.custody.cli.ExitCode;
import dev.custody.cli.Fixtures;
import dev.custody.engine.files.FilePolicySource;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.log.DecisionLog;
import dev.custody.engine.log.JsonLinesDecisionSink;
import dev.custody.engine.check.ActionReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code replay --from-log}: a decision log written by the engine's sink reads back, re-decided against the same
 * policies with zero differences, and against a revision with exactly the decisions that changed.
 */
class ReplayFromLogTest {
    @TempDir
    Path dir;

    Path log;
    String policies;

    @BeforeEach
    void logSomeDecisions() throws Exception {
        policies = Cli.write(dir, "base/limits.yaml", Fixtures.LIMITS_YAML);
        log = dir.resolve("decisions.jsonl");
        try (DecisionLog decisionLog = DecisionLog.of(JsonLinesDecisionSink.builder(log).build())) {
            PolicyEngine engine = PolicyEngine.builder(FilePolicySource.read(List.of(Path.of(policies)))::policies)
                    .timeBudget(Duration.ofSeconds(30)).observer(decisionLog).build();
            for (String line : List.of(Fixtures.withdrawal("w-1", 20000, false), Fixtures.withdrawal("w-2", 5000, true),
                    Fixtures.withdrawal("w-3", 500, false))) {
                engine.evaluate(((ActionReader.Read) ActionReader.read(line)).action(), false);
            }
        }
    }

    @Test
    void theSamePoliciesDecideEveryLoggedActionAlike() {
        Cli.Result r = Cli.run("replay", "--policies", policies, "--from-log", log.toString(), "--time-budget", "1m");
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        assertEquals("", r.out());
        assertEquals("3 logged decisions re-decided, 0 differ\n", r.err());
    }

    @Test
    void aRevisionListsExactlyTheDecisionsItChanges() {
        String head = Cli.write(dir, "head/limits.yaml", Fixtures.LIMITS_YAML.replace("> 10000", "> 1000"));
        Cli.Result r = Cli.run("replay", "--policies", head, "--from-log", log.toString(), "--time-budget", "1m");
        assertEquals(ExitCode.INPUT, r.exit(), r.toString());
        assertEquals(List.of("w-2          ALLOW → DENY   listed → big"), r.outLines());
        assertEquals("3 logged decisions re-decided, 1 differ\n", r.err());
        Cli.Result jsonl = Cli.run("replay", "--policies", head, "--from-log", log.toString(), "--time-budget", "1m",
                "--format", "jsonl");
        assertEquals(1, jsonl.outLines().size());
        assertEquals(true, jsonl.outLines().get(0).startsWith("{\"id\":\"w-2\",\"line\":2,\"logged\":{\"decision\":\"ALLOW\","
                + "\"policy_id\":\"limits\",\"rule_id\":\"listed\",\"failure\":null,\"bundle_revision\":\"e44fe297c984784c\"},"
                + "\"now\":{\"decision\":\"DENY\",\"policy_id\":\"limits\",\"rule_id\":\"big\",\"failure\":null,"
                + "\"bundle_revision\":\""), jsonl.outLines().get(0));
    }

    @Test
    void aDigestOnlyRecordCannotBeReDecidedAndSaysSo() throws Exception {
        Files.writeString(log, "{\"decided_at\": \"2026-11-03T14:05:00Z\", \"workspace_id\": \"w\", "
                + "\"decision\": {\"decision\": \"DENY\"}, \"action_digest\": \"ab12\"}\n", java.nio.file.StandardOpenOption.APPEND);
        Cli.Result r = Cli.run("replay", "--policies", policies, "--from-log", log.toString(), "--time-budget", "1m");
        assertEquals(ExitCode.INPUT, r.exit());
        assertEquals(List.of("error: line 4: the log holds a digest of the action, not the action: it cannot be re-decided",
                "4 logged decisions re-decided, 0 differ, 1 unreadable"), r.errLines());
    }

    @Test
    void actionsAndFromLogAreExclusive() {
        Cli.Result r = Cli.run("replay", "--policies", policies, "--from-log", log.toString(), "--actions", "x.jsonl");
        assertEquals(ExitCode.USAGE, r.exit());
        assertEquals("error: give either `--actions FILE` or `--from-log LOG`\n", r.err());
    }
}
