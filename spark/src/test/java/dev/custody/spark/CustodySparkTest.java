package dev.custody.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Spark job against the reference replay (engine-core's {@code Replayer}, what {@code custody replay} runs), in
 * {@code local[2]}: the same records, field for field ({@code elapsed_us} aside, which is a timing).
 */
class CustodySparkTest {
    private static final Instant NOW = Instant.parse("2027-01-01T00:00:00Z");
    private static SparkSession spark;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() {
        spark = SparkSession.builder().master("local[2]").appName("custody-spark-test")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.default.parallelism", "2")
                .getOrCreate();
        spark.sparkContext().setLogLevel("ERROR");
    }

    @AfterAll
    static void stop() {
        spark.stop();
    }

    private static PolicySet policies(Path... paths) throws IOException {
        return PolicySet.read(List.of(paths), NOW, Duration.ofMillis(100));
    }

    private static List<String> records(Dataset<Row> decisions) {
        return decisions.orderBy("pos").select("record").collectAsList().stream()
                .map(r -> Streams.zeroElapsed(r.getString(0))).toList();
    }

    @Test
    void derivedVelocityGivesTheInMemoryLedgersDecisionsOnAHardStream() throws IOException {
        // two workspaces, failed settlements, late records, queries refused for lateness, equal instants, odd lines
        Path stream = Streams.perturbed(dir, 700, 7);
        List<String> expected = Streams.reference(stream, List.of(Streams.POLICIES), NOW, true);
        // the stream exercises what it is meant to
        assertTrue(expected.stream().filter(r -> r.contains("is unavailable: the ledger has already seen")).count() >= 3,
                "queries refused for lateness");
        assertTrue(expected.stream().anyMatch(r -> r.contains("\"decision\":\"ALLOW\"")));
        assertTrue(expected.stream().anyMatch(r -> r.contains("is too large")), "a settlement the ledger refuses");
        assertTrue(expected.stream().anyMatch(r -> r.contains("outside the supported range")), "an instant before 1970");

        // read as a directory of two files (and a marker file that is skipped): one stream, files in path order;
        // the odd lines are all before the cut, so the records are those of the whole file
        List<String> lines = Files.readAllLines(stream);
        Path split = Files.createDirectories(dir.resolve("split"));
        Files.write(split.resolve("part-a.jsonl"), lines.subList(0, 400));
        Files.write(split.resolve("part-b.jsonl"), lines.subList(400, lines.size() - 1));
        Files.write(split.resolve("part-c.jsonl"), lines.subList(lines.size() - 1, lines.size()));
        Files.writeString(split.resolve("_SUCCESS"), "not a stream");
        List<String> actual = records(CustodySpark.replay(spark, ActionInput.read(spark, split.toString()),
                policies(Streams.POLICIES), CustodySpark.Options.defaults()));
        assertEquals(expected.size(), actual.size());
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i), actual.get(i), "record " + i);
        }
    }

    @Test
    void theOnePassJobKeepsStreamOrderAndLineNumbersAcrossManySplits() throws IOException {
        // the hard stream with a byte-order mark, and malformed, blank and non-UTF-8 lines all through it, read in
        // splits of 16 KiB: most splits do not start their file, so their malformed lines' numbers are placed after
        // the job
        List<byte[]> lines = new ArrayList<>();
        for (String l : Files.readAllLines(Streams.perturbed(dir, 600, 5))) {
            lines.add(l.getBytes(StandardCharsets.UTF_8));
        }
        for (int i = lines.size() - 7; i > 0; i -= 97) {
            lines.add(i, ("{\"id\": \"cut-" + i + "\", \"action\": \"withdrawal.create\"").getBytes(StandardCharsets.UTF_8));
            lines.add(i + 3, "   ".getBytes(StandardCharsets.UTF_8));
            lines.add(i + 5, new byte[] {'{', '"', 'i', 'd', '"', ':', ' ', '"', (byte) 0xC3, '"', '}'});
        }
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        bytes.write(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
        for (byte[] l : lines) {
            bytes.write(l);
            bytes.write(lines.indexOf(l) % 3 == 0 ? new byte[] {'\r', '\n'} : new byte[] {'\n'});
        }
        Path stream = dir.resolve("cut.jsonl");
        Files.write(stream, bytes.toByteArray());

        org.apache.hadoop.conf.Configuration conf = spark.sparkContext().hadoopConfiguration();
        conf.set("mapreduce.input.fileinputformat.split.maxsize", "16384");
        try {
            int splits = new JsonlReplay(spark, List.of(new org.apache.hadoop.fs.Path(stream.toString()))).splits();
            assertTrue(splits > 20, splits + " splits");
            for (String velocity : List.of("given", "derive")) {
                List<String> expected = Streams.reference(stream, List.of(Streams.POLICIES), NOW, velocity.equals("derive"));
                assertTrue(expected.stream().filter(r -> r.contains("\"failure\":\"malformed_action\"")).count() >= 12,
                        "malformed lines");
                Path out = dir.resolve("cut-" + velocity);
                ByteArrayOutputStream err = new ByteArrayOutputStream();
                assertEquals(1, runJob(err, "--master", "local[2]", "--policies", Streams.POLICIES.toString(), "--actions",
                        stream.toString(), "--out", out.toString(), "--now", NOW.toString(), "--velocity", velocity));
                List<String> written = new ArrayList<>();
                try (Stream<Path> parts = Files.list(out)) {
                    List<Path> files = parts.filter(p -> p.getFileName().toString().startsWith("part-")).sorted().toList();
                    assertEquals(splits, files.size());
                    for (Path p : files) {
                        Files.readAllLines(p).forEach(l -> written.add(Streams.zeroElapsed(l)));
                    }
                }
                assertEquals(expected.size(), written.size(), velocity);
                for (int i = 0; i < expected.size(); i++) {
                    assertEquals(expected.get(i), written.get(i), velocity + " record " + i);
                }
                long malformed = expected.stream().filter(r -> r.contains("\"failure\":\"malformed_action\"")).count();
                assertTrue(err.toString(StandardCharsets.UTF_8).startsWith(expected.size() + " decisions: "), err.toString());
                assertTrue(err.toString(StandardCharsets.UTF_8).contains("; " + malformed + " malformed lines; "), err.toString());
            }
        } finally {
            conf.unset("mapreduce.input.fileinputformat.split.maxsize");
        }
    }

    @Test
    void assumeSettledGivesTheReplaysRecordsAcrossSplitsAndJoinedWorkspaces() throws IOException {
        // the hard stream (sections removed, late and refused queries, equal instants), then one of its wallets used
        // under a second workspace the key stage routes to the other task: the wallet's key joins the two workspaces,
        // which the first run reports and the second runs as one group
        List<String> lines = new ArrayList<>(Files.readAllLines(Streams.perturbed(dir, 900, 13)));
        String wallet = "cea35e29-55d0-434c-9037-3c44148d4eca"; // treasury hot: $1,000,000 in 24 hours
        String workspace = "00cd4ae6-310e-4566-99ae-1270f1ed5570";
        assertTrue(lines.stream().anyMatch(l -> l.contains(wallet) && l.contains(workspace)), "the wallet's workspace");
        int tasks = Integer.parseInt(spark.sparkContext().getConf().get("spark.sql.shuffle.partitions"));
        String other = null;
        for (int i = 0; other == null || KeyedLedger.task(other, tasks) == KeyedLedger.task(workspace, tasks); i++) {
            other = String.format("5e1f0000-0000-4000-8000-%012d", i);
        }
        // ten withdrawals of $200,000 USDC on a weekday afternoon, among the stream's lines: without the wallet's
        // earlier ones realized they pass; with them, the sixth and later go over the treasury's day
        int from = lines.size() / 3;
        while (!lines.get(from).matches(".*\"at\":\"2026-11-0[3-5]T1[0-4]:.*")) {
            from++;
        }
        for (int i = 0; i < 10; i++) {
            int at = from + 4 * i;
            String instant = lines.get(at).replaceAll(".*\"at\":\"([^\"]+)\".*", "$1");
            lines.add(at, "{\"id\": \"other-" + i + "\", \"action\": \"withdrawal.create\", \"wallet_id\": \""
                    + wallet.toUpperCase(java.util.Locale.ROOT) + "\", \"workspace_id\": \"" + other + "\", \"at\": \""
                    + instant + "\", \"principal\": {\"user_email\": \"bruno@example.com\", \"role\": \"admin\"}, "
                    + "\"withdrawal\": {\"amount\": 200000, \"value_usd\": 200000, \"asset_symbol\": \"USDC\", "
                    + "\"asset_is_native\": false, \"destination_address\": \"0x69302c5494219aa7642248d36cef1e9b4050eebe\", "
                    + "\"network_code\": \"ETHEREUM_MAINNET\", \"is_whitelisted\": true, \"address_age_sec\": 8640000}}");
        }
        Path stream = dir.resolve("settled.jsonl");
        Files.write(stream, lines, StandardCharsets.UTF_8);

        List<String> expected = Streams.reference(stream, List.of(Streams.POLICIES), NOW, true,
                dev.custody.engine.compile.CostMeter.DEFAULT_LIMIT, true);
        List<String> settledOnly = Streams.reference(stream, List.of(Streams.POLICIES), NOW, true);
        assertEquals(expected.size(), settledOnly.size());
        long changed = java.util.stream.IntStream.range(0, expected.size())
                .filter(i -> !expected.get(i).equals(settledOnly.get(i))).count();
        assertTrue(changed >= 5, changed + " records changed by --assume-settled");
        assertTrue(expected.stream().anyMatch(r -> r.contains("\"id\":\"other-") && r.contains("\"decision\":\"DENY\"")),
                "a withdrawal under the second workspace denied on the wallet's outflow");

        org.apache.hadoop.conf.Configuration conf = spark.sparkContext().hadoopConfiguration();
        conf.set("mapreduce.input.fileinputformat.split.maxsize", "32768");
        try {
            int splits = new JsonlReplay(spark, List.of(new org.apache.hadoop.fs.Path(stream.toString()))).splits();
            assertTrue(splits > 8, splits + " splits");
            Path out = dir.resolve("settled-out");
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            assertEquals(1, runJob(err, "--master", "local[2]", "--policies", Streams.POLICIES.toString(), "--actions",
                    stream.toString(), "--out", out.toString(), "--now", NOW.toString(), "--assume-settled"));
            List<String> written = new ArrayList<>();
            try (Stream<Path> parts = Files.list(out)) {
                for (Path p : parts.filter(p -> p.getFileName().toString().startsWith("part-")).sorted().toList()) {
                    Files.readAllLines(p).forEach(l -> written.add(Streams.zeroElapsed(l)));
                }
            }
            assertEquals(expected.size(), written.size());
            for (int i = 0; i < expected.size(); i++) {
                assertEquals(expected.get(i), written.get(i), "record " + i);
            }
            assertTrue(err.toString(StandardCharsets.UTF_8).startsWith(expected.size() + " decisions: "), err.toString());
        } finally {
            conf.unset("mapreduce.input.fileinputformat.split.maxsize");
        }
    }

    @Test
    void keyGroupsJoinTheWorkspacesOfAWallet() {
        // wallets w1 (a, b) and w2 (c, b) join a, b and c; d stays alone; groups named by their least workspace
        Map<String, String> groups = KeyedLedger.join(Map.of(), List.of(List.of("w1", "b", "a"), List.of("w2", "c", "b")));
        assertEquals(Map.of("a", "a", "b", "a", "c", "a"), groups);
        assertEquals(Map.of("a", "a", "b", "a", "c", "a", "d", "d", "e", "d"),
                KeyedLedger.join(groups, List.of(List.of("w3", "d", "e"))));
    }

    @Test
    void windowFunctionsGiveTheLedgersFiguresOnAHardStream() throws IOException {
        // the figures themselves, not only the decisions (the example policies rarely reach a velocity limit)
        Path stream = Streams.perturbed(dir, 1500, 23);
        Map<Long, String> expected = Streams.derivedSections(stream, NOW);
        Map<Long, String> actual = new TreeMap<>();
        for (Row r : CustodySpark.figures(spark, ActionInput.read(spark, stream.toString()), NOW, 1 << 22).collectAsList()) {
            long line = r.getLong(r.fieldIndex("pos")) + 1;
            actual.put(line, r.isNullAt(r.fieldIndex("refused_m")) ? Streams.normalize(VelocityWindows.velocity(r))
                    : "refused after " + Instant.EPOCH.plusNanos(r.getLong(r.fieldIndex("refused_m"))));
        }
        assertTrue(expected.values().stream().filter(v -> v.startsWith("refused")).count() >= 3, "refused queries");
        assertTrue(expected.values().stream().filter(v -> v.contains("withdrawal_count_1h=2")).count() >= 3,
                "attempt counts above one");
        assertTrue(expected.values().stream().filter(v -> !v.contains("outflow_24h=0,")).count() >= 100,
                "realized outflow");
        // an action that gave one section keeps it: compare those by their refusal only
        expected.forEach((line, v) -> {
            if (v.equals("partial") && actual.containsKey(line) && !actual.get(line).startsWith("refused")) {
                actual.put(line, "partial");
            }
        });
        assertTrue(expected.values().stream().filter(v -> v.equals("partial")).count() >= 10, "partly given sections");
        assertEquals(new TreeMap<>(expected), actual);
    }

    @Test
    void diffListsTheActionsARevisionChanges() throws IOException {
        Path head = Files.createDirectories(dir.resolve("head"));
        try (Stream<Path> files = Files.list(Streams.POLICIES)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                // the revision under review drops the night and weekend freeze
                if (!f.getFileName().toString().equals("night-weekend-freeze.yaml")) {
                    Files.copy(f, head.resolve(f.getFileName()));
                }
            }
        }
        Dataset<Row> changes = CustodySpark.diff(spark, ActionInput.read(spark, Streams.EXAMPLE_STREAM.toString()),
                policies(Streams.POLICIES), policies(head),
                new CustodySpark.Options(CustodySpark.VelocityMode.GIVEN, false, 1 << 22));
        List<Row> rows = changes.orderBy("pos").collectAsList();

        List<String> base = Streams.reference(Streams.EXAMPLE_STREAM, List.of(Streams.POLICIES), NOW, false);
        List<String> after = Streams.reference(Streams.EXAMPLE_STREAM, List.of(head), NOW, false);
        List<String> changedIds = new ArrayList<>();
        for (int i = 0; i < base.size(); i++) {
            if (!attribution(base.get(i)).equals(attribution(after.get(i)))) {
                changedIds.add(base.get(i).replaceAll("^\\{\"id\":\"([^\"]*)\".*$", "$1"));
            }
        }
        assertTrue(!changedIds.isEmpty(), "the revision changes something");
        assertEquals(changedIds, rows.stream().map(r -> r.getString(r.fieldIndex("id"))).toList());
        Row first = rows.get(0);
        assertTrue(first.getString(first.fieldIndex("record")).matches(
                "\\{\"id\":\"[^\"]+\",\"line\":\\d+,\"action\":\"withdrawal.create\",\"base\":\\{\"decision\":.*,\"head\":\\{.*\\}\\}"),
                first.getString(first.fieldIndex("record")));
    }

    private static String attribution(String record) {
        return record.replaceAll(".*(\"decision\":\"[A-Z_]+\",\"policy_id\":[^,]+,\"rule_id\":[^,]+).*(\"fail_closed\":[a-z]+).*", "$1 $2");
    }

    @Test
    void theJobWritesJsonlAndParquetAndReportsExitCodes() throws IOException {
        // the example stream without its velocity sections: the job derives them all
        Path stripped = Streams.withoutVelocity(dir, Streams.EXAMPLE_STREAM);
        Path out = dir.resolve("out-jsonl");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = ReplayJob.run(new String[] {"--master", "local[2]", "--policies", Streams.POLICIES.toString(),
                "--actions", stripped.toString(), "--out", out.toString(), "--now", NOW.toString()},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        List<String> written = new ArrayList<>();
        try (Stream<Path> parts = Files.list(out)) {
            for (Path p : parts.filter(p -> p.getFileName().toString().startsWith("part-")).sorted().toList()) {
                Files.readAllLines(p).forEach(l -> written.add(Streams.zeroElapsed(l)));
            }
        }
        List<String> expectedDerived = Streams.reference(stripped, List.of(Streams.POLICIES), NOW, true);
        assertEquals(expectedDerived, written);
        // deriving from the stream's own settlements gives the generator's figures: the same decisions as given
        assertEquals(Streams.reference(Streams.EXAMPLE_STREAM, List.of(Streams.POLICIES), NOW, false), expectedDerived);
        assertEquals("1200 decisions: 187 ALLOW, 386 DENY (0 fail-closed), 627 NO_MATCH; 0 malformed lines; written to "
                + out + "\n", err.toString(StandardCharsets.UTF_8));

        // the output exists now: a one-line error, exit 3
        assertEquals(3, runJob(err, "--master", "local[2]", "--policies", Streams.POLICIES.toString(), "--actions",
                Streams.EXAMPLE_STREAM.toString(), "--out", out.toString()));
        assertEquals("error: `" + out + "` already exists; give --out a new directory\n", err.toString(StandardCharsets.UTF_8));

        // Parquet in (the stream's rows as columns) and out
        Path parquetIn = dir.resolve("in-parquet");
        spark.read().json(Streams.EXAMPLE_STREAM.toString()).coalesce(1).write().parquet(parquetIn.toString());
        Path parquetOut = dir.resolve("out-parquet");
        assertEquals(0, runJob(err, "--master", "local[2]", "--policies", Streams.POLICIES.toString(), "--actions",
                parquetIn.toString(), "--out", parquetOut.toString(), "--out-format", "parquet", "--velocity", "given",
                "--now", NOW.toString()), err.toString(StandardCharsets.UTF_8));
        List<Row> rows = spark.read().parquet(parquetOut.toString()).orderBy("pos").collectAsList();
        List<String> expected = Streams.reference(Streams.EXAMPLE_STREAM, List.of(Streams.POLICIES), NOW, false);
        assertEquals(expected.size(), rows.size());
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            String decision = r.getString(r.fieldIndex("decision"));
            String rule = r.getString(r.fieldIndex("rule_id"));
            assertTrue(expected.get(i).contains("\"decision\":\"" + decision + "\",\"policy_id\":"
                    + (r.isNullAt(r.fieldIndex("policy_id")) ? "null" : "\"" + r.getString(r.fieldIndex("policy_id")) + "\"")
                    + ",\"rule_id\":" + (rule == null ? "null" : "\"" + rule + "\"")), i + ": " + expected.get(i));
        }
    }

    @Test
    void costLimitBoundsEveryDecisionAsTheReplaysDoes() throws IOException {
        // 150 units: about one action in six needs more (custody replay --cost-limit 150 denies 201 of the 1200)
        List<String> expected = Streams.reference(Streams.EXAMPLE_STREAM, List.of(Streams.POLICIES), NOW, false, 150);
        long overBudget = expected.stream().filter(r -> r.contains("\"failure\":\"cost_budget\"")).count();
        assertTrue(overBudget > 100 && overBudget < expected.size() / 2, overBudget + " over the budget");
        for (String velocity : List.of("given", "derive")) {
            Path out = dir.resolve("cost-" + velocity);
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            assertEquals(0, runJob(err, "--master", "local[2]", "--policies", Streams.POLICIES.toString(), "--actions",
                    Streams.EXAMPLE_STREAM.toString(), "--out", out.toString(), "--now", NOW.toString(), "--velocity",
                    velocity, "--cost-limit", "1_50"), err.toString(StandardCharsets.UTF_8));
            List<String> written = new ArrayList<>();
            try (Stream<Path> parts = Files.list(out)) {
                for (Path p : parts.filter(p -> p.getFileName().toString().startsWith("part-")).sorted().toList()) {
                    Files.readAllLines(p).forEach(l -> written.add(Streams.zeroElapsed(l)));
                }
            }
            assertEquals(expected, written, velocity);
        }
    }

    @Test
    void badOptionsAndMissingPathsAreOneLineErrors() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, runJob(err, "--policies", "p", "--actions", "a", "--out", "o", "--assume-settled", "--velocity",
                "given"));
        assertEquals("error: `--assume-settled` needs a velocity ledger; it cannot be used with `--velocity given`\n"
                + "(run with --help for the options)\n", err.toString(StandardCharsets.UTF_8));
        assertEquals(2, runJob(err, "--base", "p", "--head", "p", "--actions", "a", "--out", "o", "--assume-settled"));
        assertEquals("error: --assume-settled is not offered with --base and --head: give it to `custody diff`\n"
                + "(run with --help for the options)\n", err.toString(StandardCharsets.UTF_8));
        assertEquals(2, runJob(err, "--policies", "p", "--actions", "a", "--out", "o", "--cost-limit", "0"));
        assertEquals("error: cost limit `0` must be positive\n(run with --help for the options)\n",
                err.toString(StandardCharsets.UTF_8));
        assertEquals(2, runJob(err, "--policies", "p", "--actions", "a", "--out", "o", "--cost-limit", "lots"));
        assertEquals("error: `lots` is not a whole number of cost units such as `1000000`\n(run with --help for the "
                + "options)\n", err.toString(StandardCharsets.UTF_8));
        assertEquals(2, runJob(err, "--policies", "p", "--actions", "a", "--out", "o", "--velocity", "guess"));
        assertEquals("error: `guess` is not one of derive, given for --velocity\n(run with --help for the options)\n",
                err.toString(StandardCharsets.UTF_8));
        assertEquals(2, runJob(err, "--policies", "p", "--out", "o"));
        assertEquals("error: missing --actions PATH\n(run with --help for the options)\n", err.toString(StandardCharsets.UTF_8));
        assertEquals(2, runJob(err, "--policies", "p", "--base", "b", "--head", "h", "--actions", "a", "--out", "o"));
        assertEquals(2, runJob(err, "--policies", "p", "--actions", "a", "--out", "o", "--frobnicate"));
        assertEquals("error: unknown option `--frobnicate`\n(run with --help for the options)\n",
                err.toString(StandardCharsets.UTF_8));

        Path missing = dir.resolve("missing");
        assertEquals(3, runJob(err, "--policies", missing.toString(), "--actions", "a", "--out", "o"));
        assertEquals("error: `" + missing + "` does not exist\n", err.toString(StandardCharsets.UTF_8));
        assertEquals(3, runJob(err, "--policies", Streams.POLICIES.toString(), "--actions", missing + "/*.jsonl",
                "--out", "o"));
        assertEquals("error: `" + missing + "/*.jsonl` does not exist\n", err.toString(StandardCharsets.UTF_8));
    }

    private static int runJob(ByteArrayOutputStream err, String... args) {
        err.reset();
        return ReplayJob.run(args, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }
}
