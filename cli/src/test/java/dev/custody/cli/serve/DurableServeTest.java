package dev.custody.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.custody.cli.Cli;
import dev.custody.cli.ExitCode;
import dev.custody.cli.Fixtures;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code custody serve --decision-log-mode durable} in-process: a {@code 200} means the decision is in the log file
 * (read right after the answer, the server still running), a log that cannot write answers {@code 503} where the
 * async log answers {@code 200}, retention by mode, and the options' errors. The same promise under {@code kill -9}
 * of a real process is {@link dev.custody.cli.DurableServeJarIT}.
 */
class DurableServeTest {
    @TempDir
    Path dir;

    private final InProcessServers servers = new InProcessServers();

    @AfterEach
    void stopAll() throws Exception {
        servers.stopAll();
    }

    private ServeCommand.Running serve(String... args) throws Exception {
        List<String> full = new ArrayList<>(List.of("--policies",
                Files.writeString(dir.resolve("limits.yaml"), Fixtures.LIMITS_YAML).toString()));
        full.addAll(List.of(args));
        return servers.start(full.toArray(String[]::new));
    }

    private static List<String> loggedIds(Path log) throws Exception {
        List<String> ids = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            ids.add(ServeCommandTest.JSON.readTree(line).get("action").get("id").asText());
        }
        return ids;
    }

    @Test
    void aDurableAnswerComesOnlyOnceTheDecisionIsInTheLog() throws Exception {
        Path log = dir.resolve("log/decisions.jsonl");
        ServeCommand.Running r = serve("--decision-log", log.toString(), "--decision-log-mode", "durable");
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String id = "d-" + i;
            HttpResponse<String> res = ServeCommandTest.post(r, "/v1/decisions", Fixtures.withdrawal(id, 20000, false));
            assertEquals(200, res.statusCode(), res.body());
            expected.add(id);
            assertEquals(expected, loggedIds(log), "the log when the answer to " + id + " arrived");
        }
        HttpResponse<String> batch = ServeCommandTest.post(r, "/v1/decisions/batch",
                "[" + Fixtures.withdrawal("b-1", 5, true) + "," + Fixtures.withdrawal("b-2", 5, false) + "]");
        assertEquals(200, batch.statusCode(), batch.body());
        expected.addAll(List.of("b-1", "b-2"));
        assertEquals(expected, loggedIds(log));
        Cli.Result audit = Cli.run("replay", "--from-log", log.toString(), "--policies", dir.resolve("limits.yaml").toString());
        assertEquals(ExitCode.OK, audit.exit(), audit.toString());
    }

    /**
     * {@code /dev/full} fails every write (ENOSPC): the durable server answers 503 and no record; the async one
     * answers 200, as it always has (its promise is never to delay a decision, and the failure is counted).
     */
    @Test
    void aLogThatCannotWriteIs503WhenDurableAnd200WhenAsync() throws Exception {
        Path full = Path.of("/dev/full");
        assumeTrue(Files.isWritable(full), "/dev/full (Linux)");
        ServeCommand.Running durable = serve("--decision-log", full.toString(), "--decision-log-mode", "durable");
        HttpResponse<String> one = ServeCommandTest.post(durable, "/v1/decisions", Fixtures.withdrawal("a-1", 20000, false));
        assertEquals(503, one.statusCode());
        assertEquals("application/json", one.headers().firstValue("content-type").orElse(""));
        assertEquals("{\"error\":\"the decision was not durably logged: the decision log could not write the decision: "
                + "No space left on device\"}", one.body());
        // the failed write is followed by a failed sync: the log fails every later decision, batches too
        HttpResponse<String> batch = ServeCommandTest.post(durable, "/v1/decisions/batch",
                "[" + Fixtures.withdrawal("a-2", 5, true) + "]");
        assertEquals(503, batch.statusCode());
        assertTrue(batch.body().startsWith("{\"error\":\"the decision was not durably logged: the decision log "), batch.body());
        // a body that is not decided waits for nothing
        assertEquals(400, ServeCommandTest.post(durable, "/v1/decisions", "[]").statusCode());

        ServeCommand.Running async = serve("--decision-log", full.toString());
        assertEquals(200, ServeCommandTest.post(async, "/v1/decisions", Fixtures.withdrawal("a-3", 20000, false)).statusCode());
        ServeCommandTest.awaitTrue(() -> async.registry().get("custody.decision.log.failed").functionCounter().count() == 1,
                "the async log to count its failure");
    }

    /** Durable keeps every rotated file by default; async keeps 5, as before; both can be told. */
    @Test
    void retentionDefaultsByModeAndCanBeTold() throws Exception {
        Path kept = dir.resolve("kept/d.jsonl");
        ServeCommand.Running r = serve("--decision-log", kept.toString(), "--decision-log-mode", "durable",
                "--decision-log-max-bytes", "1k");
        for (int i = 0; i < 10; i++) {
            assertEquals(200, ServeCommandTest.post(r, "/v1/decisions", Fixtures.withdrawal("k-" + i, 5, true)).statusCode());
        }
        List<String> ids = new ArrayList<>();
        try (var files = Files.list(kept.getParent())) {
            List<Path> rotated = files.filter(p -> !p.equals(kept)).sorted().toList();
            assertEquals(9, rotated.size(), rotated.toString()); // each record is past half a KiB: a file each
            assertEquals("d.jsonl.000001", rotated.get(0).getFileName().toString());
            for (Path p : rotated) {
                ids.addAll(loggedIds(p));
            }
        }
        ids.addAll(loggedIds(kept));
        assertEquals(java.util.stream.IntStream.range(0, 10).mapToObj(i -> "k-" + i).toList(), ids);

        Path two = dir.resolve("two/d.jsonl");
        ServeCommand.Running r2 = serve("--decision-log", two.toString(), "--decision-log-mode", "durable",
                "--decision-log-keep", "2", "--decision-log-max-bytes", "1k");
        for (int i = 0; i < 10; i++) {
            assertEquals(200, ServeCommandTest.post(r2, "/v1/decisions", Fixtures.withdrawal("t-" + i, 5, true)).statusCode());
        }
        try (var files = Files.list(two.getParent())) {
            assertEquals(List.of("d.jsonl", "d.jsonl.1", "d.jsonl.2"),
                    files.map(p -> p.getFileName().toString()).sorted().toList());
        }
        assertEquals(List.of("t-7"), loggedIds(two.resolveSibling("d.jsonl.2")));
    }

    @Test
    void theLogOptionsHaveTheirErrors() throws Exception {
        Path policies = Files.writeString(dir.resolve("limits.yaml"), Fixtures.LIMITS_YAML);
        String log = dir.resolve("d.jsonl").toString();
        List<List<String>> cases = List.of(
                List.of("--decision-log-mode", "durable"),
                List.of("--decision-log", log, "--decision-log-mode", "sync"),
                List.of("--decision-log", log, "--decision-log-keep", "some"),
                List.of("--decision-log", log, "--decision-log-keep", "-1"),
                List.of("--decision-log", log, "--decision-log-max-bytes", "0"),
                List.of("--decision-log", log, "--decision-log-max-bytes", "64X"));
        List<String> errors = new ArrayList<>();
        for (List<String> c : cases) {
            List<String> args = new ArrayList<>(List.of("serve", "--addr", "127.0.0.1:0", "--policies", policies.toString()));
            args.addAll(c);
            Cli.Result res = Cli.run(args.toArray(String[]::new));
            assertEquals(ExitCode.USAGE, res.exit(), res.toString());
            errors.add(res.err().lines().findFirst().orElse(""));
        }
        assertEquals(List.of(
                "error: `--decision-log-mode`, `--decision-log-keep` and `--decision-log-max-bytes` need `--decision-log FILE`",
                "error: `--decision-log-mode` is async or durable, got `sync`",
                "error: `--decision-log-keep` is a number of files (0 or more) or `all`, got `some`",
                "error: `--decision-log-keep` is a number of files (0 or more) or `all`, got `-1`",
                "error: `--decision-log-max-bytes` must be a positive size such as 64M, got `0`",
                "error: `--decision-log-max-bytes` must be a positive size such as 64M, got `64X`"), errors);
        assertEquals(List.of(1024L, 64L << 20, 3L << 30, 1000L), List.of(ServeCommand.bytes("1k"),
                ServeCommand.bytes("64M"), ServeCommand.bytes("3g"), ServeCommand.bytes("1000")));
    }
}
