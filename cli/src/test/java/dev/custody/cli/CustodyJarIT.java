package dev.custody.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the packaged fat jar as users do, {@code java -jar cli/target/custody.jar …}, in a separate process:
 * the manifest, the shaded dependencies (service files included), stdin/stdout/stderr and the exit codes.
 * A failsafe test, so it runs after {@code package} built the jar.
 */
class CustodyJarIT {
    static final Path JAR = Path.of(System.getProperty("custody.jar", "target/custody.jar"));

    @TempDir
    Path dir;

    record Run(int exit, String out, String err) {}

    /** {@code java -jar custody.jar ARGS} on the JVM running the tests. */
    static List<String> command(String... args) {
        return commandWith(List.of(), args);
    }

    /**
     * {@code java OPTIONS -jar custody.jar ARGS} on the JVM running the tests. From Java 23 on, with
     * {@code --sun-misc-unsafe-memory-access=allow}, as the launcher starts it: protobuf (inside cel-java) reads
     * arrays through {@code sun.misc.Unsafe}, and Java 24 and later warn on stderr, which these tests read.
     */
    static List<String> commandWith(List<String> options, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(options);
        if (Runtime.version().feature() >= 23) {
            command.add("--sun-misc-unsafe-memory-access=allow");
        }
        command.add("-jar");
        command.add(JAR.toString());
        command.addAll(List.of(args));
        return command;
    }

    static Run custody(String stdin, String... args) throws Exception {
        List<String> command = command(args);
        Process p = new ProcessBuilder(command).start();
        p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "custody did not finish");
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }

    @Test
    void theJarRunsWithItsVersion() throws Exception {
        Run r = custody("", "--version");
        assertEquals(ExitCode.OK, r.exit(), r.err());
        assertTrue(r.out().startsWith("custody " + VersionProvider.version() + "\n"), r.out());
    }

    @Test
    void validateReportsWithACaretAndItsExitCode() throws Exception {
        assertEquals(new Run(ExitCode.OK, "valid\n", ""), custody("", "validate", "--action", "withdrawal.create",
                "--effect", "DENY", "withdrawal.value_usd > 10000"));
        Run bad = custody("withdrawal.amout > 1\n", "validate", "--action", "withdrawal.create", "--effect", "DENY", "-");
        assertEquals(ExitCode.INPUT, bad.exit());
        assertEquals("error[unknown_field] 1:12: unknown field `withdrawal.amout`\n"
                + " | withdrawal.amout > 1\n"
                + " | ...........^\n"
                + " = hint: did you mean `withdrawal.amount`?\n"
                + "invalid: 1 error\n", bad.out());
    }

    @Test
    void replayStreamsDecisionsAndSummarises() throws Exception {
        Path policies = Files.writeString(dir.resolve("limits.yaml"), Fixtures.LIMITS_YAML);
        String stream = Fixtures.withdrawal("a-1", 20000, false) + "\n" + Fixtures.withdrawal("a-2", 50, true) + "\n";
        Run r = custody(stream, "replay", "--policies", policies.toString(), "--actions", "-", "--format", "jsonl");
        assertEquals(ExitCode.OK, r.exit(), r.err());
        assertEquals("{\"id\":\"a-1\",\"action\":\"withdrawal.create\",\"decision\":\"DENY\",\"policy_id\":\"limits\","
                + "\"rule_id\":\"big\",\"reason\":\"above $10,000\",\"fail_closed\":false,\"failure\":null,\"error\":null,"
                + "\"bundle_revision\":\"e44fe297c984784c\",\"elapsed_us\":0}\n"
                + "{\"id\":\"a-2\",\"action\":\"withdrawal.create\",\"decision\":\"ALLOW\",\"policy_id\":\"limits\","
                + "\"rule_id\":\"listed\",\"reason\":\"whitelisted destination\",\"fail_closed\":false,\"failure\":null,\"error\":null,"
                + "\"bundle_revision\":\"e44fe297c984784c\",\"elapsed_us\":0}\n", r.out().replaceAll("\"elapsed_us\":\\d+", "\"elapsed_us\":0"));
        assertTrue(r.err().startsWith("2 actions from standard input in "), r.err());
    }

    @Test
    void usageAndIoErrorsHaveTheirExitCodes() throws Exception {
        Run unknown = custody("", "lint", "--frmat", "json", "x");
        assertEquals(ExitCode.USAGE, unknown.exit());
        assertEquals("error: unknown option `--frmat` (did you mean `--format`?); see `custody lint --help`\n",
                unknown.err());
        Run missing = custody("", "lint", dir.resolve("nope").toString());
        assertEquals(ExitCode.IO, missing.exit());
        assertEquals("error: `" + dir.resolve("nope") + "` does not exist\n", missing.err());
    }

    @Test
    void theCompletionScriptIsBuiltBesideTheJar() throws IOException {
        String script = Files.readString(JAR.resolveSibling("custody_completion"));
        assertTrue(script.contains("complete -F _complete_custody"), "a bash completion for `custody`");
        assertTrue(script.contains("replay") && script.contains("--policies"), "it knows the verbs and their options");
    }

    /**
     * A line far longer than the heap is skipped without being held: one malformed record with its number, and
     * the lines around it are decided. (Read whole, as a String, it would need twice the heap.)
     */
    static final String HUGE_HEAD = "{\"id\": \"huge\", \"action\": \"withdrawal.create\", \"principal\": {\"user_email\": \"";

    @Test
    void aLineLargerThanTheHeapIsOneMalformedRecord() throws Exception {
        Path policies = dir.resolve("limits.yaml");
        Files.writeString(policies, Fixtures.LIMITS_YAML);
        Path actions = dir.resolve("huge.jsonl");
        try (var w = Files.newBufferedWriter(actions, StandardCharsets.UTF_8)) {
            w.write(Fixtures.withdrawal("before", 20000, false) + "\n");
            w.write(HUGE_HEAD);
            char[] chunk = new char[1 << 20];
            java.util.Arrays.fill(chunk, 'a');
            for (int i = 0; i < 96; i++) {
                w.write(chunk);
            }
            w.write("\"}}\n");
            w.write(Fixtures.withdrawal("after", 500, true) + "\n");
        }
        List<String> command = commandWith(List.of("-Xmx64m"), "replay", "--policies", policies.toString(), "--actions", actions.toString(),
                "--format", "jsonl", "--time-budget", "1m");
        Process p = new ProcessBuilder(command).redirectErrorStream(false).start();
        byte[] out = p.getInputStream().readAllBytes();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "custody did not finish");
        List<String> records = new String(out, StandardCharsets.UTF_8).lines().toList();
        assertEquals(ExitCode.INPUT, p.exitValue(), err);
        assertEquals(3, records.size(), err);
        assertTrue(records.get(0).startsWith("{\"id\":\"before\""), records.get(0));
        assertTrue(records.get(1).contains("\"error\":\"malformed action line: line is " + (HUGE_HEAD.length() + 96L * (1 << 20) + 3)
                + " characters long, more "
                + "than the 4194304 read (it was skipped)\""), records.get(1));
        assertTrue(records.get(1).contains("\"line\":2"), records.get(1));
        assertTrue(records.get(2).startsWith("{\"id\":\"after\""), records.get(2));
    }

    /**
     * The launcher the build writes beside the jar starts it with the class-data archive the build recorded:
     * with {@code -Xshare:on} the JVM refuses to start unless the archive maps, so this fails if the archive is
     * missing, stale or unusable.
     */
    @Test
    void theLauncherStartsWithTheClassDataArchive() throws Exception {
        Path launcher = JAR.resolveSibling("custody");
        assertTrue(Files.isExecutable(launcher), launcher + " is built and executable");
        assertTrue(Files.size(JAR.resolveSibling("custody.jsa")) > 1_000_000, "the archive holds the classes");
        ProcessBuilder pb = new ProcessBuilder(launcher.toString(), "validate", "--action", "withdrawal.create",
                "--effect", "DENY", "withdrawal.value_usd > 10000");
        pb.environment().put("CUSTODY_JAVA_OPTS", "-Xshare:on");
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "custody did not finish");
        assertEquals(new Run(ExitCode.OK, "valid\n", ""), new Run(p.exitValue(), out, err));
    }

    /**
     * On Java 25 and later the launcher starts from an ahead-of-time cache that its first run has a background
     * training run make beside the jar (keyed by the Java version and the jar), and says nothing on stderr: neither
     * protobuf's {@code sun.misc.Unsafe} warnings nor the JVM's AOT messages. With {@code -XX:AOTMode=on} the JVM
     * refuses to start unless the cache loads, so the second run fails if the cache is missing or unusable.
     */
    @Test
    void onJava25TheLauncherMakesAndUsesAnAheadOfTimeCache(@TempDir Path dir) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Runtime.version().feature() >= 25, "Java 25 or later");
        Path jar = Files.copy(JAR, dir.resolve("custody.jar"));
        Path launcher = Files.copy(JAR.resolveSibling("custody"), dir.resolve("custody"),
                java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
        List<String> validate = List.of(launcher.toString(), "validate", "--action", "withdrawal.create", "--effect",
                "DENY", "withdrawal.value_usd > 10000");
        assertEquals(new Run(ExitCode.OK, "valid\n", ""), launch(validate, ""));
        Path training = dir.resolve(".custody-aot-training");
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5); // bounds a hang, not a speed
        List<Path> caches;
        do {
            Thread.sleep(200);
            try (var files = Files.list(dir)) {
                caches = files.filter(f -> f.getFileName().toString().endsWith(".aot")).toList();
            }
        } while ((caches.isEmpty() || Files.exists(training)) && System.nanoTime() < deadline);
        assertEquals(1, caches.size(), "one cache made: " + caches);
        assertTrue(caches.get(0).getFileName().toString().startsWith("custody-java" + Runtime.version().feature()),
                caches.toString());
        assertEquals(new Run(ExitCode.OK, "valid\n", ""), launch(validate, "-XX:AOTMode=on"));
        assertTrue(Files.exists(jar));
    }

    /**
     * The launcher picks the serial collector, unless the JVM options name a collector: two would stop the JVM
     * ("Multiple garbage collectors selected").
     */
    @Test
    void theLauncherPicksTheSerialCollectorUnlessTheOptionsNameOne() throws Exception {
        Path launcher = JAR.resolveSibling("custody");
        for (String[] c : new String[][] {{"", "Using Serial"}, {"-XX:+UseG1GC", "Using G1"},
                {"-XX:+UseParallelGC", "Using Parallel"}}) {
            Path log = Files.createTempFile("custody-gc", ".log");
            Run run = launch(List.of(launcher.toString(), "validate", "--action", "withdrawal.create", "--effect",
                    "DENY", "withdrawal.value_usd > 10000"), c[0] + " -Xlog:gc:file=" + log);
            assertEquals(new Run(ExitCode.OK, "valid\n", ""), run, c[0]);
            String gc = Files.readString(log);
            Files.delete(log);
            assertTrue(gc.contains(c[1]), c[0] + ": " + gc);
        }
    }

    /**
     * The launcher runs {@code analyze}, {@code validate}, {@code lint} and {@code eval} on the client compiler
     * alone (analyze's time is in the solver's native code, the others are over before C2's code pays; on 2 cores
     * the optimizing compiler's threads took a core from them) unless the options say how to compile, and every
     * other verb (here {@code replay}) with both compilers. Read off the JVM's final flags, with the class-data archive required.
     */
    @Test
    void theLauncherRunsAnalyzeOnTheClientCompilerAlone() throws Exception {
        Path launcher = JAR.resolveSibling("custody");
        String policies = Path.of("../examples/policies").toAbsolutePath().normalize().toString();
        List<String> analyze = List.of(launcher.toString(), "analyze", "--format", "json", policies);
        List<String> validate = List.of(launcher.toString(), "validate", "--action", "withdrawal.create", "--effect",
                "DENY", "withdrawal.value_usd > 10000");
        List<String> replay = List.of(launcher.toString(), "replay", "--policies", policies, "--actions",
                Path.of("../examples/actions/stream.jsonl").toAbsolutePath().normalize().toString(), "--format", "jsonl");
        assertEquals("1", tieredStopAtLevel(analyze, ""));
        assertEquals("1", tieredStopAtLevel(validate, ""));
        assertEquals("4", tieredStopAtLevel(replay, ""));
        assertEquals("4", tieredStopAtLevel(analyze, "-XX:TieredStopAtLevel=4"));
    }

    /** The JVM's final {@code TieredStopAtLevel} for a launcher run, which must succeed. */
    private static String tieredStopAtLevel(List<String> command, String options) throws Exception {
        Run run = launch(command, options + " -Xshare:on -XX:+PrintFlagsFinal");
        assertEquals(ExitCode.OK, run.exit(), run.err());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("TieredStopAtLevel\\s+=\\s+(\\d+)").matcher(run.out());
        assertTrue(m.find(), run.out());
        return m.group(1);
    }

    /** Runs the launcher with {@code options} as CUSTODY_JAVA_OPTS and no other JVM options from the environment. */
    private static Run launch(List<String> command, String options) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("CUSTODY_JAVA_OPTS", options);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().remove("JDK_JAVA_OPTIONS");
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "custody did not finish");
        return new Run(p.exitValue(), out, err);
    }
}
