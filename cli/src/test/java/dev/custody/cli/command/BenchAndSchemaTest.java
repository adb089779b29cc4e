package dev.custody.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.custody.cli.Cli;
import dev.custody.cli.ExitCode;
import dev.custody.cli.Fixtures;
import dev.custody.engine.schema.FieldSchema;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchAndSchemaTest {
    @TempDir
    Path dir;

    @Test
    void benchJsonHasExactlyTheSixFigures() throws Exception {
        String policies = Cli.write(dir, "limits.yaml", Fixtures.LIMITS_YAML);
        String actions = Cli.write(dir, "a.jsonl", Fixtures.withdrawal("a", 20000, false) + "\n{bad\n"
                + Fixtures.withdrawal("b", 5, true) + "\n");
        Cli.Result r = Cli.run("bench", "--policies", policies, "--actions", actions, "--iterations", "500",
                "--warmup", "10ms", "--format", "json");
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        JsonNode j = new ObjectMapper().readTree(r.out());
        List<String> keys = new ArrayList<>();
        j.fieldNames().forEachRemaining(keys::add);
        assertEquals(List.of("decisions", "decisions_per_second", "mean_ns", "p50_ns", "p99_ns", "max_ns"), keys);
        assertEquals(500, j.get("decisions").asLong());
        assertTrue(j.get("p50_ns").asLong() <= j.get("p99_ns").asLong());
        assertTrue(j.get("p99_ns").asLong() <= j.get("max_ns").asLong());
        assertTrue(r.err().startsWith("parsed 2 actions in "), "parsing is reported apart: " + r.err());
        assertTrue(r.err().contains(", 1 malformed lines skipped"), r.err());
    }

    @Test
    void benchTextShowsTheFiguresAndTheDurationOptionsExcludeEachOther() {
        String policies = Cli.write(dir, "limits.yaml", Fixtures.LIMITS_YAML);
        String actions = Cli.write(dir, "a.jsonl", Fixtures.withdrawal("a", 20000, false) + "\n");
        Cli.Result r = Cli.run("bench", "--policies", policies, "--actions", actions, "--duration", "50ms",
                "--warmup", "10ms");
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        assertTrue(r.outLines().get(2).startsWith("  decisions "), r.out());
        assertTrue(r.outLines().get(4).matches("  mean +[\\d,]+ ns"), r.out());
        Cli.Result both = Cli.run("bench", "--policies", policies, "--actions", actions, "--duration", "1s",
                "--iterations", "5");
        assertEquals(ExitCode.USAGE, both.exit());
        assertEquals("error: --duration=DURATION, --iterations=N are mutually exclusive (specify only one); "
                + "see `custody bench --help`\n", both.err());
    }

    @Test
    void benchRefusesPoliciesThatDoNotCompile() {
        String policies = Cli.write(dir, "limits.yaml", Fixtures.LIMITS_YAML.replace("value_usd >", "value >"));
        String actions = Cli.write(dir, "a.jsonl", Fixtures.withdrawal("a", 20000, false) + "\n");
        Cli.Result r = Cli.run("bench", "--policies", policies, "--actions", actions, "--iterations", "5");
        assertEquals(ExitCode.INPUT, r.exit());
        assertTrue(r.err().startsWith("error: policies do not compile: " + policies + ":9:"), r.err());
    }

    @Test
    void schemaJsonIsExactlyTheDataOfTheSchemaEndpoint() {
        Cli.Result r = Cli.run("schema", "--format", "json");
        assertEquals(ExitCode.OK, r.exit());
        assertEquals(FieldSchema.toJson() + "\n", r.out());
        Cli.Result one = Cli.run("schema", "--format", "json", "--action", "web3.contract_call");
        assertTrue(one.out().startsWith("{\"web3.contract_call\":{\"principal\":[{\"name\":\"user_email\","
                + "\"type\":\"string\"},{\"name\":\"role\",\"type\":\"string\",\"enum\":[\"owner\""), one.out());
    }

    @Test
    void schemaTextIsATablePerAction() {
        Cli.Result r = Cli.run("schema", "--action", "withdrawal.create");
        List<String> lines = r.outLines();
        assertEquals("withdrawal.create", lines.get(0));
        assertEquals("  FIELD                                  TYPE     NOTES", lines.get(1));
        assertEquals("  principal.role                         string   one of owner, admin, signer, proposer, viewer, "
                + "guest; workspace role of the initiating user", lines.get(3));
        assertTrue(lines.contains("  withdrawal.value_usd                   number   requested value in USD"), r.out());
        assertEquals(2 + FieldSchema.fields(dev.custody.engine.schema.TriggerAction.WITHDRAWAL_CREATE).size(),
                lines.size());
    }

    @Test
    void histogramPercentilesAreWithinTheirBucket() {
        Histogram h = new Histogram();
        for (long v = 1; v <= 100_000; v++) {
            h.record(v);
        }
        assertEquals(100_000, h.count());
        assertEquals(100_000, h.max());
        assertEquals(50_000.5, h.mean(), 1e-9);
        long p50 = h.percentile(0.5);
        long p99 = h.percentile(0.99);
        assertTrue(Math.abs(p50 - 50_000) <= 50_000 / 64, "p50 " + p50);
        assertTrue(Math.abs(p99 - 99_000) <= 99_000 / 64, "p99 " + p99);
        for (long v : new long[] {0, 1, 63, 64, 65, 127, 128, 1_000_003, Long.MAX_VALUE / 3}) {
            int i = Histogram.index(v);
            assertTrue(Histogram.lowest(i) <= v && v <= Histogram.highest(i), "value " + v + " bucket " + i);
        }
    }
}
