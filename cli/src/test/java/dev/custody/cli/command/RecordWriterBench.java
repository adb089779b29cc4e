package dev.custody.cli.command;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.custody.engine.files.FilePolicySource;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.Decision;
import dev.custody.engine.check.ActionReader;
import dev.custody.engine.replay.DecisionRecords;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writing a replay's records, {@link DecisionRecords#write} against {@link RecordWriter}, in one process, in
 * alternating passes (4 warm-up passes, then 10 measured each), over the decisions of the first 200,000 actions of a
 * stream. Not a test: run by hand (engine-core/BENCHMARKS.md, "The one-pass reader").
 *
 * <pre>
 * java -cp cli/target/test-classes:cli/target/custody.jar dev.custody.cli.command.RecordWriterBench STREAM POLICIES
 * </pre>
 */
public final class RecordWriterBench {
    private RecordWriterBench() {}

    public static void main(String[] args) throws IOException {
        PolicyEngine engine = PolicyEngine.builder(FilePolicySource.read(List.of(Path.of(args[1])))::policies)
                .timeBudget(Duration.ofSeconds(10)).build();
        List<Decision> decisions = new ArrayList<>();
        try (var in = Files.newBufferedReader(Path.of(args[0]))) {
            String line;
            while (decisions.size() < 200_000 && (line = in.readLine()) != null) {
                if (ActionReader.read(line) instanceof ActionReader.Read r) {
                    decisions.add(engine.evaluate(r.action(), false));
                }
            }
        }
        RecordWriter writer = new RecordWriter();
        double[] total = new double[2];
        long bytes = 0;
        for (int pass = 0; pass < 14; pass++) {
            for (int k = 0; k < 2; k++) {
                int way = (pass + k) % 2;
                ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 22);
                long t0 = System.nanoTime();
                try (JsonGenerator g = JsonOutput.generator(out)) {
                    for (Decision d : decisions) {
                        if (way == 0) {
                            DecisionRecords.write(g, d, false);
                        } else {
                            writer.write(g, d, false);
                        }
                        g.writeRaw('\n');
                        if (out.size() > (1 << 22) - 8192) {
                            g.flush();
                            bytes += out.size();
                            out.reset();
                        }
                    }
                }
                bytes += out.size();
                if (pass >= 4) {
                    total[way] += (System.nanoTime() - t0) / (double) decisions.size();
                }
            }
        }
        System.out.printf(Locale.ROOT, "%,d records (%,d bytes written): DecisionRecords.write %.0f ns, RecordWriter %.0f ns"
                + " per record%n", decisions.size(), bytes, total[0] / 10, total[1] / 10);
    }
}
