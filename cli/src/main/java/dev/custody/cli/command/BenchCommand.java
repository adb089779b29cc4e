package dev.custody.cli.command;

import dev.custody.cli.CliException;
import dev.custody.cli.Converters;
import dev.custody.cli.CliRoot;
import dev.custody.cli.DebugOption;
import dev.custody.cli.ExitCode;
import dev.custody.cli.VersionProvider;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.replay.ActionStream;
import java.io.StringWriter;
import dev.custody.engine.Decision;
import dev.custody.engine.payload.Action;
import dev.custody.engine.compile.CostMeter;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code custody bench}: throughput and latency of the compiled bundles on an action stream. The stream is
 * read and parsed first (timed and reported apart), the bundles compiled, then the actions are decided in a
 * loop: a warm-up (JIT) that is not measured, then the measured run, in which only
 * {@link PolicyEngine#evaluate(Action, boolean)} is timed, per call, into a {@link Histogram}: the engine a
 * service embeds, with its cache lookup. Single-threaded, like one request.
 */
@Command(name = "bench",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {"Decisions per second and latency percentiles, after warm-up.",
            "Parsing is timed apart; only the evaluation of each action is measured."},
        footerHeading = "%nExamples:%n",
        footer = {
            "  custody bench --policies policies/ --actions actions.jsonl",
            "  custody bench --policies policies/ --actions actions.jsonl \\",
            "      --duration 10s --warmup 3s",
            "  custody bench --policies policies/ --actions actions.jsonl \\",
            "      --iterations 1000000 --format json",
        })
public final class BenchCommand implements Callable<Integer> {

    /** Output formats. */
    enum Format { text, json }

    @ParentCommand
    CliRoot root;

    @Mixin
    DebugOption debug;

    @Mixin
    StreamOptions streamOptions;

    @Spec
    CommandSpec spec;

    @Option(names = "--policies", required = true, arity = "1..*", paramLabel = "PATH",
            description = "Policy files or directories (recursive).")
    List<Path> policies;

    @Option(names = "--actions", required = true, paramLabel = "FILE",
            description = "Action stream, one JSON action per line, decided in a loop; `-` reads standard input.")
    String actions;

    /** How long to measure: a duration or a number of decisions. */
    static final class Length {
        @Option(names = "--duration", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
                description = "Measure for this long (default: 3s).")
        Duration duration;

        @Option(names = "--iterations", paramLabel = "N", description = "Measure this many decisions.")
        Long iterations;
    }

    @ArgGroup(exclusive = true)
    Length length;

    @Option(names = "--warmup", paramLabel = "DURATION", defaultValue = "1s",
            converter = Converters.DurationConverter.class,
            description = "Unmeasured warm-up before the run (default: ${DEFAULT-VALUE}).")
    Duration warmup;

    @Option(names = "--now", paramLabel = "INSTANT", converter = Converters.InstantConverter.class,
            description = "Instant for actions without `at` (default: now).")
    Instant now;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text",
            description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    Format format;

    /** The measured run. */
    record Result(long decisions, long nanos, Histogram latencies) {
        long perSecond() {
            return Math.round(decisions / (nanos / 1e9));
        }
    }

    @Override
    public Integer call() throws Exception {
        if (length != null && length.iterations != null && length.iterations < 1) {
            throw CliException.usage("`--iterations` must be at least 1, got " + length.iterations);
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<Action> parsed = new ArrayList<>();
        long malformed = 0;
        long parseStart = System.nanoTime();
        try (ActionStream stream = streamOptions.open(actions, root.environment().stdin())) {
            ActionStream.Line line;
            while ((line = stream.next()) != null) {
                if (line instanceof ActionStream.ActionLine a) {
                    parsed.add(a.action());
                } else if (line instanceof ActionStream.MalformedLine) {
                    malformed++;
                }
            }
        }
        long parseNanos = System.nanoTime() - parseStart;
        if (parsed.isEmpty()) {
            throw CliException.input("no actions to decide in `" + actions + "`");
        }
        StringWriter problems = new StringWriter();
        LocalEngine local = LocalEngine.read(policies, EvaluationOptions.clock(root.environment(), now),
                PolicyEngine.DEFAULT_TIME_BUDGET, CostMeter.DEFAULT_LIMIT,
                new PrintWriter(problems), "policies");
        Action[] batch = parsed.toArray(new Action[0]);
        for (Action a : batch) {
            local.engine().preload(a);
        }
        if (local.failed()) {
            // a benchmark of denials by failure measures nothing: say why, at file:line:column
            List<String> lines = problems.toString().lines().toList();
            String first = lines.size() > 1 ? lines.get(1).strip() : "the policies could not be loaded";
            throw CliException.input((lines.get(0).contains("could not be loaded") ? "policies could not be loaded: "
                    : "policies do not compile: ") + first);
        }
        PolicyEngine engine = local.engine();
        run(engine, batch, Long.MAX_VALUE, warmup.toNanos());
        Result r = length != null && length.iterations != null
                ? run(engine, batch, length.iterations, Long.MAX_VALUE)
                : run(engine, batch, Long.MAX_VALUE,
                        (length != null && length.duration != null ? length.duration : Duration.ofSeconds(3)).toNanos());
        Histogram h = r.latencies();
        String parsing = "parsed " + Inputs.plural(batch.length, "action") + " in "
                + String.format(Locale.ROOT, "%.1f ms (%.2f µs/action)", parseNanos / 1e6, parseNanos / 1e3 / batch.length)
                + (malformed > 0 ? ", " + malformed + " malformed lines skipped" : "");
        if (format == Format.json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("decisions", r.decisions());
            m.put("decisions_per_second", r.perSecond());
            m.put("mean_ns", Math.round(h.mean()));
            m.put("p50_ns", h.percentile(0.50));
            m.put("p99_ns", h.percentile(0.99));
            m.put("max_ns", h.max());
            out.println(JsonOutput.write(m));
            err.println(parsing);
        } else {
            out.println(parsing);
            out.println("policies: " + Inputs.plural(policyCount(local), "policy", "policies") + "; warm-up "
                    + seconds(warmup.toNanos()) + ", measured " + seconds(r.nanos()) + ", single thread");
            out.println(String.format(Locale.ROOT, "  %-13s %,14d", "decisions", r.decisions()));
            out.println(String.format(Locale.ROOT, "  %-13s %,14d", "decisions/s", r.perSecond()));
            out.println(String.format(Locale.ROOT, "  %-13s %,14d ns", "mean", Math.round(h.mean())));
            out.println(String.format(Locale.ROOT, "  %-13s %,14d ns", "p50", h.percentile(0.50)));
            out.println(String.format(Locale.ROOT, "  %-13s %,14d ns", "p99", h.percentile(0.99)));
            out.println(String.format(Locale.ROOT, "  %-13s %,14d ns", "max", h.max()));
        }
        out.flush();
        return ExitCode.OK;
    }

    /** Decides the actions round-robin until {@code maxDecisions} or {@code maxNanos}, whichever comes first. */
    static Result run(PolicyEngine engine, Action[] batch, long maxDecisions, long maxNanos) {
        Histogram h = new Histogram();
        long start = System.nanoTime();
        long deadline = maxNanos == Long.MAX_VALUE ? Long.MAX_VALUE : start + maxNanos;
        long n = 0;
        int i = 0;
        int sink = 0;
        long t = start;
        while (n < maxDecisions && (deadline == Long.MAX_VALUE || t - deadline < 0)) {
            long t0 = System.nanoTime();
            Decision d = engine.evaluate(batch[i], false);
            t = System.nanoTime();
            h.record(t - t0);
            sink += d.outcome().ordinal();
            n++;
            if (++i == batch.length) {
                i = 0;
            }
        }
        if (sink == Integer.MIN_VALUE) {
            // never true; keeps the decisions observable so the loop cannot be optimised away
            System.err.print("");
        }
        return new Result(n, System.nanoTime() - start, h);
    }

    private static int policyCount(LocalEngine local) {
        return local.documents().stream().mapToInt(d -> d.policies().size()).sum();
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
    }
}
