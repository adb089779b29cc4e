package dev.custody.engine.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import dev.custody.engine.files.FilePolicySource;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.Decision;
import dev.custody.engine.check.ActionReader;
import dev.custody.engine.replay.DecisionRecords;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Where a replay's time goes, line by line, on one thread: the cost per line of each stage a replay adds on top of
 * the JSON-parsing floor, as a ladder of cumulative steps over the same lines held in memory (no file, no
 * threads, no ledger), in alternating passes so that load from other processes hits every step alike:
 * <ol>
 *   <li>{@code floor}: what {@link TokenizeFloor} does per line: decode it to a string, tokenize it;
 *   <li>{@code read}: {@link ActionReader#read(byte[], int, int)}, the replay's reader: the action with its
 *       sections, and its payload checked;
 *   <li>{@code decide}: and the engine's decision on it;
 *   <li>{@code render}: and its decision record, written as UTF-8 JSON.
 * </ol>
 * A two-core replay at 1.2 times the one-core floor leaves {@code 2 / 1.2 = 1.67} floors of work per line for all
 * of it, on both cores together.
 *
 * <pre>
 * java -cp $CP dev.custody.engine.bench.ReplayLadder STREAM POLICIES [LINES] [PASSES]
 * </pre>
 * (default: the first 200,000 lines, 12 passes of which 4 warm up.)
 */
public final class ReplayLadder {
    private ReplayLadder() {}

    private static final JsonFactory JSON = new JsonFactory();

    public static void main(String[] args) throws Exception {
        Path stream = Path.of(args[0]);
        Path policies = Path.of(args[1]);
        int max = args.length > 2 ? Integer.parseInt(args[2]) : 200_000;
        int passes = args.length > 3 ? Integer.parseInt(args[3]) : 12;
        int warmup = 4;
        List<byte[]> lines = new ArrayList<>();
        try (var in = Files.newBufferedReader(stream, StandardCharsets.UTF_8)) {
            String line;
            while (lines.size() < max && (line = in.readLine()) != null) {
                if (!line.isBlank()) {
                    lines.add(line.getBytes(StandardCharsets.UTF_8));
                }
            }
        }
        PolicyEngine engine = PolicyEngine.builder(FilePolicySource.read(List.of(policies))::policies)
                .timeBudget(Duration.ofSeconds(10)).build();
        String[] steps = {"floor", "read", "decide", "render"};
        double[] total = new double[steps.length];
        long sink = 0;
        for (int pass = 0; pass < warmup + passes; pass++) {
            for (int k = 0; k < steps.length; k++) {
                int step = (pass + k) % steps.length;
                long t0 = System.nanoTime();
                sink += run(step, lines, engine);
                long t = System.nanoTime() - t0;
                if (pass >= warmup) {
                    total[step] += t;
                }
            }
        }
        System.out.printf(Locale.ROOT, "%,d lines of %s, %d measured passes per step (sink %d)%n", lines.size(),
                stream.getFileName(), passes, sink % 10);
        System.out.printf(Locale.ROOT, "%-8s %12s %14s %16s%n", "step", "ns per line", "x the floor", "added ns per line");
        double floor = total[0] / passes / lines.size();
        double before = 0;
        for (int s = 0; s < steps.length; s++) {
            double ns = total[s] / passes / lines.size();
            System.out.printf(Locale.ROOT, "%-8s %12.0f %14.2f %16.0f%n", steps[s], ns, ns / floor, s == 0 ? ns : ns - before);
            before = ns;
        }
    }

    private static long run(int step, List<byte[]> lines, PolicyEngine engine) throws IOException {
        long sink = 0;
        ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 20);
        JsonGenerator g = step == 3 ? JSON.createGenerator(out) : null;
        for (byte[] line : lines) {
            if (step == 0) {
                try (JsonParser p = JSON.createParser(new String(line, StandardCharsets.UTF_8))) {
                    while (p.nextToken() != null) {
                        sink++;
                    }
                }
                continue;
            }
            ActionReader.Result r = ActionReader.read(line, 0, line.length);
            if (step == 1 || !(r instanceof ActionReader.Read read)) {
                // not r.hashCode(): an action's hash walks every section, a cost no replay pays
                sink += r instanceof ActionReader.Read ? 1 : 0;
                continue;
            }
            Decision d = engine.evaluate(read.action(), false);
            sink += d.outcome().ordinal();
            if (g != null) {
                DecisionRecords.write(g, d, false);
                if (out.size() > (1 << 20) - 4096) {
                    g.flush();
                    out.reset();
                }
            }
        }
        if (g != null) {
            g.close();
        }
        return sink;
    }
}
