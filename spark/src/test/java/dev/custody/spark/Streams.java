package dev.custody.spark;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.custody.engine.files.FilePolicySource;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.Decision;
import dev.custody.engine.replay.ActionStream;
import dev.custody.engine.replay.DecisionRecords;
import dev.custody.engine.replay.Replayer;
import dev.custody.engine.replay.StreamLedger;
import dev.custody.engine.velocity.VelocityLedger;
import dev.custody.examples.ActionStreamGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/** Test streams and the reference replay: engine-core's {@link Replayer}, as {@code custody replay} runs it. */
final class Streams {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Path POLICIES = ROOT.resolve("examples/policies");
    static final Path EXAMPLE_STREAM = ROOT.resolve("examples/actions/stream.jsonl");
    private static final ObjectMapper JSON = new ObjectMapper();

    private Streams() {}

    /**
     * A generated stream made hard for the ledger: most velocity sections removed (so they are derived), wallet
     * and workspace ids in mixed case, equal instants, neighbours swapped, lines moved up to hundreds of lines
     * later (late records, and queries later than the lateness tolerance), and odd lines (malformed, a settlement
     * the ledger refuses, an instant before 1970, a withdrawal without a network, one without {@code at}).
     */
    static Path perturbed(Path dir, int count, long seed) throws IOException {
        Path generated = dir.resolve("generated-" + seed + ".jsonl");
        ActionStreamGenerator.main(new String[] {"--count", Integer.toString(count), "--seed", Long.toString(seed),
                "--out", generated.toString()});
        SplittableRandom random = new SplittableRandom(seed);
        List<Map<String, Object>> out = new ArrayList<>();
        for (String line : Files.readAllLines(generated, StandardCharsets.UTF_8)) {
            @SuppressWarnings("unchecked")
            Map<String, Object> o = JSON.readValue(line, LinkedHashMap.class);
            if ("withdrawal.create".equals(o.get("action"))) {
                int r = random.nextInt(100);
                if (r < 85) {
                    o.remove("wallet");
                    o.remove("workspace");
                } else if (r < 90) {
                    o.remove("wallet");
                }
                if (random.nextInt(10) == 0) {
                    o.put("wallet_id", ((String) o.get("wallet_id")).toUpperCase(Locale.ROOT));
                }
            }
            if (o.containsKey("event") && random.nextInt(20) == 0) {
                o.put("workspace_id", ((String) o.get("workspace_id")).toUpperCase(Locale.ROOT));
            }
            out.add(o);
        }
        for (int i = 1; i < out.size(); i++) {
            if (random.nextInt(20) == 0) {
                out.get(i).put("at", out.get(i - 1).get("at"));
            }
        }
        for (int i = 0; i < out.size() - 1; i++) {
            if (random.nextInt(12) == 0) {
                Map<String, Object> a = out.get(i);
                out.set(i, out.get(i + 1));
                out.set(i + 1, a);
                i++;
            }
        }
        for (int n = 0; n < out.size() / 50; n++) {
            int i = random.nextInt(out.size() - 300);
            out.add(i + random.nextInt(5, 300), out.remove(i));
        }
        List<String> text = new ArrayList<>();
        for (Map<String, Object> o : out) {
            text.add(JSON.writeValueAsString(o));
        }
        String wallet = "92e0490b-f666-47c5-8c1a-dd0688c6fc87";
        String workspace = "00cd4ae6-310e-4566-99ae-1270f1ed5570";
        text.add(10, "{\"id\": \"bad-1\", \"action\": \"withdrawal.create\", \"wallet_id\": 3");
        text.add(20, "{\"event\": \"withdrawal.settled\", \"wallet_id\": \"" + wallet + "\", \"workspace_id\": \"" + workspace
                + "\", \"network_code\": \"ETHEREUM_MAINNET\", \"value_usd\": 1e20, \"status\": \"executed\", "
                + "\"at\": \"2026-11-02T01:00:00Z\"}");
        text.add(30, "{\"id\": \"old\", \"action\": \"withdrawal.create\", \"wallet_id\": \"" + wallet + "\", "
                + "\"workspace_id\": \"" + workspace + "\", \"at\": \"1960-01-01T00:00:00Z\", "
                + "\"withdrawal\": {\"value_usd\": 5, \"network_code\": \"ETHEREUM_MAINNET\"}}");
        text.add(50, "");
        text.add(60, "{\"id\": \"no-net\", \"action\": \"withdrawal.create\", \"wallet_id\": \"" + wallet + "\", "
                + "\"workspace_id\": \"" + workspace + "\", \"at\": \"2026-11-02T03:00:00Z\", \"withdrawal\": {\"value_usd\": 5}}");
        text.add("{\"id\": \"no-at\", \"action\": \"withdrawal.create\", \"wallet_id\": \"" + wallet + "\", "
                + "\"workspace_id\": \"" + workspace + "\", \"withdrawal\": {\"value_usd\": 5, \"network_code\": \"ETHEREUM_MAINNET\"}}");
        Path stream = dir.resolve("perturbed-" + seed + ".jsonl");
        Files.write(stream, text, StandardCharsets.UTF_8);
        return stream;
    }

    /** The example stream without its velocity sections, so that a replay derives them all. */
    static Path withoutVelocity(Path dir, Path stream) throws IOException {
        List<String> text = new ArrayList<>();
        for (String line : Files.readAllLines(stream, StandardCharsets.UTF_8)) {
            @SuppressWarnings("unchecked")
            Map<String, Object> o = JSON.readValue(line, LinkedHashMap.class);
            o.remove("wallet");
            o.remove("workspace");
            text.add(JSON.writeValueAsString(o));
        }
        Path out = dir.resolve("no-velocity.jsonl");
        Files.write(out, text, StandardCharsets.UTF_8);
        return out;
    }

    /** The records {@code custody replay --format jsonl} writes for a stream, {@code elapsed_us} zeroed. */
    static List<String> reference(Path stream, List<Path> policies, Instant now, boolean derive) throws IOException {
        return reference(stream, policies, now, derive, dev.custody.engine.compile.CostMeter.DEFAULT_LIMIT);
    }

    /** The same, with {@code --cost-limit}. */
    static List<String> reference(Path stream, List<Path> policies, Instant now, boolean derive, long costLimit)
            throws IOException {
        return reference(stream, policies, now, derive, costLimit, false);
    }

    /** The same, with {@code --cost-limit} and {@code --assume-settled}. */
    static List<String> reference(Path stream, List<Path> policies, Instant now, boolean derive, long costLimit,
            boolean assumeSettled) throws IOException {
        Clock clock = Clock.fixed(now, ZoneOffset.UTC);
        PolicyEngine engine = PolicyEngine.builder(FilePolicySource.read(policies)::policies).clock(clock)
                .timeBudget(Duration.ofMillis(100)).costLimit(costLimit).build();
        StreamLedger ledger = derive ? new StreamLedger(VelocityLedger.builder().lateness(CustodySpark.LATENESS).build(),
                assumeSettled, clock) : null;
        Replayer replayer = new Replayer(engine, ledger, assumeSettled, false);
        List<String> out = new ArrayList<>();
        JsonFactory f = new JsonFactory();
        // bytes, as custody replay reads them (a byte-order mark dropped, bytes that are not UTF-8 read as U+0000)
        try (ActionStream s = new ActionStream(Files.newInputStream(stream))) {
            ActionStream.Line line;
            while ((line = s.next()) != null) {
                Replayer.Step step = replayer.sequence(line);
                Decision d = replayer.decide(step);
                StringWriter w = new StringWriter();
                try (JsonGenerator g = f.createGenerator(w)) {
                    if (step.line() instanceof ActionStream.ActionLine) {
                        DecisionRecords.write(g, d, false);
                    } else if (step.line() instanceof ActionStream.MalformedLine m) {
                        DecisionRecords.malformed(g, m, false);
                    } else {
                        continue;
                    }
                }
                out.add(zeroElapsed(w.toString()));
            }
        }
        return out;
    }

    /**
     * The sections the replay's ledger derives, by line number: {@code wallet} and {@code workspace} (absent ones
     * only, as the ledger fills them in), or "refused after W" for a query later than the lateness tolerance.
     */
    static Map<Long, String> derivedSections(Path stream, Instant now) throws IOException {
        Clock clock = Clock.fixed(now, ZoneOffset.UTC);
        StreamLedger ledger = new StreamLedger(VelocityLedger.builder().lateness(CustodySpark.LATENESS).build(), false, clock);
        Map<Long, String> out = new LinkedHashMap<>();
        // bytes, as custody replay reads them (a byte-order mark dropped, bytes that are not UTF-8 read as U+0000)
        try (ActionStream s = new ActionStream(Files.newInputStream(stream))) {
            ActionStream.Line line;
            while ((line = s.next()) != null) {
                if (line instanceof ActionStream.SettlementLine st) {
                    ledger.apply(st.settlement());
                } else if (line instanceof ActionStream.ActionLine a) {
                    StreamLedger.Prepared p = ledger.prepare(a.action());
                    boolean derives = StreamLines.keys(p.action()) != null && StreamLines.needsVelocity(a.action())
                            && StreamLines.inRange(p.action().at());
                    if (p instanceof StreamLedger.Unavailable u && derives) {
                        out.put(a.number(), "refused after " + u.error().replaceAll(".*already seen `([^`]+)`.*", "$1"));
                    } else if (derives && (a.action().sections().get("wallet") != null
                            || a.action().sections().get("workspace") != null)) {
                        out.put(a.number(), "partial");
                    } else if (derives) {
                        out.put(a.number(), normalize(new dev.custody.engine.velocity.Velocity(
                                figures(p.action().sections().get("wallet")), figures(p.action().sections().get("workspace")),
                                network(p.action().sections().get("workspace")))));
                    }
                    ledger.recordAttempt(p.action());
                }
            }
        }
        return out;
    }

    private static dev.custody.engine.velocity.Velocity.Figures figures(Map<String, Object> section) {
        return new dev.custody.engine.velocity.Velocity.Figures((java.math.BigDecimal) section.get("outflow_1h"),
                (java.math.BigDecimal) section.get("outflow_6h"), (java.math.BigDecimal) section.get("outflow_24h"),
                (Long) section.get("withdrawal_count_1h"));
    }

    private static dev.custody.engine.velocity.Velocity.Figures network(Map<String, Object> section) {
        return new dev.custody.engine.velocity.Velocity.Figures((java.math.BigDecimal) section.get("network_outflow_1h"),
                (java.math.BigDecimal) section.get("network_outflow_6h"),
                (java.math.BigDecimal) section.get("network_outflow_24h"), (Long) section.get("network_withdrawal_count_1h"));
    }

    /** Both sections as one comparable line (decimals without trailing zeros). */
    static String normalize(dev.custody.engine.velocity.Velocity v) {
        StringBuilder s = new StringBuilder();
        for (Map<String, Object> section : List.of(v.walletSection(), v.workspaceSection())) {
            for (Map.Entry<String, Object> e : section.entrySet()) {
                Object value = e.getValue() instanceof java.math.BigDecimal d ? d.stripTrailingZeros().toPlainString() : e.getValue();
                s.append(e.getKey()).append('=').append(value).append(", ");
            }
            s.append("| ");
        }
        return s.toString();
    }

    static String zeroElapsed(String record) {
        return record.replaceAll("\"elapsed_us\":[0-9]+", "\"elapsed_us\":0");
    }
}
