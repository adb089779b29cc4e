package dev.custody.cli.command;

import dev.custody.analysis.PolicyAnalyzer;
import dev.custody.analysis.PolicySet;
import dev.custody.analysis.SemanticDiff;
import dev.custody.cli.CliEnvironment;
import dev.custody.cli.CliException;
import dev.custody.cli.CliRoot;
import dev.custody.cli.Compilers;
import dev.custody.cli.DebugOption;
import dev.custody.cli.ExitCode;
import dev.custody.cli.VersionProvider;
import dev.custody.engine.Decision;
import dev.custody.engine.files.PolicyFiles;
import dev.custody.engine.payload.Action;
import dev.custody.engine.replay.ActionStream;
import dev.custody.engine.replay.Replayer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code custody review}: one report of a policy change for a pull request (docs/design.md §5.7), composed of
 * what {@code diff --semantic}, {@code diff --actions} / {@code replay --from-log} and {@code analyze} compute, by
 * the same code ({@link PolicyReview}): a one-line summary, each changed rule with its condition before and after
 * (a word diff), the semantic verdict with replayed witnesses, the analysis findings the change introduces or
 * resolves (only the rules the change touches are analysed), and the transitions on the traffic given with the
 * newest example actions. Exit codes are those of {@code diff --fail-on-change}: 0 when no behaviour changes
 * (proved, and no recorded action decided differently), 1 when behaviour changes or is not proved not to, or an
 * input has problems; 2 for usage errors; 3 for I/O errors.
 */
@Command(name = "review",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {"One report of a policy change, for a pull request: what changed, proved and replayed.",
            "Composes diff --semantic, diff over traffic (--actions or --from-log) and analyze of the rules",
            "the change touches. Exit 1 when behaviour changes, as diff --fail-on-change."},
        footerHeading = "%nExamples:%n",
        footer = {
            "  custody review --base main/policies --head policies",
            "  custody review --base main/policies --head policies --actions month.jsonl",
            "  custody review --base main/policies --head policies --from-log decisions.jsonl \\",
            "      --format json",
            "",
            "The summary line's verdict: `no behaviour change (proved)`; `changes N decisions of",
            "M recorded`; `changes behaviour (proved)`, with `, not seen in the traffic given`",
            "when traffic was given. Rules are matched by workspace, policy id and rule id; a",
            "change of whitespace alone in a condition is no change. Example actions are the",
            "newest in the order of the input (the last lines), newest first.",
        })
public final class ReviewCommand implements Callable<Integer> {

    /** Output formats. */
    enum Format { markdown, json }

    @ParentCommand
    CliRoot root;

    @Mixin
    DebugOption debug;

    @Mixin
    StreamOptions streamOptions;

    @Mixin
    EvaluationOptions evaluation;

    @Spec
    CommandSpec spec;

    @Mixin
    ChangeSides sides;

    @Option(names = "--actions", paramLabel = "FILE",
            description = "Traffic: an action stream, replayed on each side as `diff --actions` does; `-` reads "
                    + "standard input.")
    String actions;

    @Option(names = "--from-log", paramLabel = "LOG",
            description = "Traffic: a decision log, each logged action decided on each side as logged, as "
                    + "`replay --from-log` reads it; `-` reads standard input.")
    String fromLog;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "markdown",
            description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    Format format;

    @Option(names = "--examples", paramLabel = "N", defaultValue = "5",
            description = "Example actions shown per transition, newest first (default: ${DEFAULT-VALUE}).")
    int examples;

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "30000",
            description = "Time-out of one solver query in milliseconds (default: ${DEFAULT-VALUE}: longer than "
                    + "diff's and analyze's 5000, as a review runs once per change and an undecided proof is a "
                    + "weak verdict).")
    long timeoutMs;

    @Option(names = "--jobs", paramLabel = "N",
            description = "Threads that analyse the touched rules (default: the cores, ${DEFAULT-VALUE}).")
    int jobs = Runtime.getRuntime().availableProcessors();

    @Option(names = "--velocity", paramLabel = "MODE", defaultValue = "derive",
            description = "With --actions, as in diff: where absent `wallet`/`workspace` sections come from: "
                    + "${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    ReplayCommand.Velocity velocity;

    @Option(names = "--timings",
            description = "Print on stderr where the time went: reading, semantic diff, analysis, traffic (on a "
                    + "thread of its own, beside the solver), output.")
    boolean timings;

    @Override
    public Integer call() throws Exception {
        long start = System.nanoTime();
        Map<String, Long> phases = new java.util.concurrent.ConcurrentSkipListMap<>();
        if (actions != null && fromLog != null) {
            throw CliException.usage("give `--actions FILE` or `--from-log LOG`, not both");
        }
        if (timeoutMs < 1) {
            throw CliException.usage("`--timeout-ms` must be at least 1, got `" + timeoutMs + "`");
        }
        if (jobs < 1) {
            throw CliException.usage("`--jobs` must be at least 1, got `" + jobs + "`");
        }
        if (examples < 0) {
            throw CliException.usage("`--examples` must be at least 0, got `" + examples + "`");
        }
        CliEnvironment env = root.environment();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        PolicyAnalyzer.prestart();
        // one side may have none: a change that adds the first policies, or removes the last
        if (PolicyFiles.discover(sides.base).isEmpty() && PolicyFiles.discover(sides.head).isEmpty()) {
            throw CliException.input("no policy files (.json, .yaml, .yml) under `" + sides.base + "` nor `"
                    + sides.head + "`");
        }
        PolicySet baseSet = PolicySet.of(PolicyFiles.read(sides.base), Compilers.shared());
        PolicySet headSet = PolicySet.of(PolicyFiles.read(sides.head), Compilers.shared());
        boolean problems = problems(baseSet, "base", err) | problems(headSet, "head", err);
        long read = System.nanoTime();
        phases.put("read", read - start);
        if (problems) {
            return ExitCode.INPUT;
        }
        // the traffic is decided on a thread of its own while the solver works (a core each on two cores); its
        // input is opened here, so that a missing file is reported before any solving
        java.util.concurrent.FutureTask<PolicyReview.Traffic> traffic = null;
        if (actions != null || fromLog != null) {
            java.io.Closeable input = actions != null ? streamOptions.open(actions, env.stdin())
                    : Inputs.lines(fromLog, env.stdin());
            traffic = new java.util.concurrent.FutureTask<>(() -> {
                long t = System.nanoTime();
                try (input) {
                    return traffic(input, env, err);
                } finally {
                    phases.put("traffic", System.nanoTime() - t);
                }
            });
            Thread t = new Thread(traffic, "custody-review-traffic");
            t.setDaemon(true);
            t.start();
        }
        PolicyReview.Report report = PolicyReview.build(baseSet, headSet, new SemanticDiff(timeoutMs),
                new PolicyAnalyzer(timeoutMs),
                new PolicyAnalyzer.Run(jobs, null, PolicyAnalyzer.Progress.NONE), phases);
        if (traffic != null) {
            report = report.withTraffic(PolicyReview.join(traffic));
        }
        long output = System.nanoTime();
        if (format == Format.json) {
            out.println(JsonOutput.write(ReviewOutput.json(report)));
        } else {
            out.print(ReviewOutput.markdown(report));
        }
        out.flush();
        if (timings) {
            phases.put("output", System.nanoTime() - output);
            List<String> parts = new ArrayList<>();
            for (String k : List.of("read", "semantic", "analysis", "traffic", "output")) {
                if (phases.containsKey(k)) {
                    parts.add(String.format(java.util.Locale.ROOT, "%s %.2f s", k, phases.get(k) / 1e9));
                }
            }
            err.println("timings: " + String.join(", ", parts) + String.format(java.util.Locale.ROOT,
                    "; total %.2f s", (System.nanoTime() - start) / 1e9));
        }
        err.flush();
        return report.changesBehaviour() ? ExitCode.INPUT : ExitCode.OK;
    }

    /** Prints each read or compile problem of a side as one error line; true when there are any. */
    private static boolean problems(PolicySet set, String side, PrintWriter err) {
        set.problems().forEach(p -> err.println("error: " + side + " policies: " + p));
        return !set.problems().isEmpty();
    }

    /** The traffic section: each side decides every recorded action, through {@link TrafficDiff}. */
    private PolicyReview.Traffic traffic(java.io.Closeable input, CliEnvironment env, PrintWriter err)
            throws IOException {
        Clock clock = evaluation.clock(env);
        LocalEngine baseEngine = LocalEngine.read(sides.base, clock, evaluation.timeBudget, evaluation.costLimit, err,
                "base policies");
        LocalEngine headEngine = LocalEngine.read(sides.head, clock, evaluation.timeBudget, evaluation.costLimit, err,
                "head policies");
        Map<TrafficDiff.Transition, ArrayDeque<PolicyReview.Example>> newest = new HashMap<>();
        TrafficDiff.Listener listener = new TrafficDiff.Listener() {
            @Override
            public void changed(Action a, long line, Decision before, Decision after) {
                if (examples == 0) {
                    return;
                }
                ArrayDeque<PolicyReview.Example> q = newest.computeIfAbsent(
                        new TrafficDiff.Transition(TrafficDiff.label(before), TrafficDiff.label(after)),
                        k -> new ArrayDeque<>());
                if (q.size() == examples) {
                    q.removeFirst();
                }
                q.addLast(new PolicyReview.Example(a.id(), line, a.workspaceId(), PolicyReview.valueUsd(a), before,
                        after));
            }

            @Override
            public void malformed(long line, String message) {
                err.println("error: line " + line + ": " + message);
            }
        };
        TrafficDiff.Totals totals;
        if (input instanceof ActionStream stream) {
            Replayer b = ReplayCommand.replayer(baseEngine.engine(), velocity, false, clock, false);
            Replayer h = ReplayCommand.replayer(headEngine.engine(), velocity, false, clock, false);
            totals = TrafficDiff.stream(stream, b, h, listener);
        } else {
            totals = TrafficDiff.log((BufferedReader) input, baseEngine.engine(), headEngine.engine(), listener);
        }
        List<PolicyReview.TransitionRow> rows = new ArrayList<>();
        for (Map.Entry<TrafficDiff.Transition, Long> e : totals.transitions()) {
            List<PolicyReview.Example> list = new ArrayList<>(newest.getOrDefault(e.getKey(), new ArrayDeque<>()));
            java.util.Collections.reverse(list);
            rows.add(new PolicyReview.TransitionRow(e.getKey(), e.getValue(), list));
        }
        return new PolicyReview.Traffic(actions != null ? "actions" : "decision_log",
                actions != null ? actions : fromLog, totals.actions(), totals.changed(), totals.malformed(), rows);
    }
}
