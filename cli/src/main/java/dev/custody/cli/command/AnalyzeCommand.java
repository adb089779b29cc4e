package dev.custody.cli.command;

import dev.custody.analysis.AnalysisFinding;
import dev.custody.analysis.AnalysisReport;
import dev.custody.analysis.AnalyzedRule;
import dev.custody.analysis.FindingKind;
import dev.custody.analysis.PolicyAnalyzer;
import dev.custody.analysis.PolicySet;
import dev.custody.cli.CliException;
import dev.custody.cli.CliRoot;
import dev.custody.cli.Converters;
import dev.custody.cli.Compilers;
import dev.custody.cli.DebugOption;
import dev.custody.cli.ExitCode;
import dev.custody.cli.VersionProvider;
import dev.custody.engine.files.PolicyFiles;
import dev.custody.engine.schema.TriggerAction;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code custody analyze}: what an SMT solver proves about every enabled rule of the active policies, for every
 * valid action (module {@code custody-analysis}, docs/design.md §5.1): unsatisfiable, always-true, duplicate, shadowed,
 * overridden and may-error rules, each at the file:line:column of the rule, with a replayed witness action
 * where one exists; rules outside the analysed fragment are {@code not_analyzed}, solver time-outs
 * {@code unknown}, as are rules a {@code --deadline} leaves undone. {@code --jobs} threads solve in parallel; a
 * progress line (rules done / total, elapsed) is drawn on stderr when it is a terminal. Exit 1 with an error-severity finding (unsatisfiable, may_error) or when a policy does not
 * read or compile (the engine would deny its workspace's actions; nothing is claimed about them).
 */
@Command(name = "analyze",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {"Prove facts about policy rules for every valid action (Z3 SMT solver).",
            "Finds unsatisfiable, always-true, duplicate, shadowed, overridden and may-error rules."},
        footerHeading = "%nExamples:%n",
        footer = {
            "  custody analyze policies/",
            "  custody analyze --action withdrawal.create --format json policies/",
            "  custody analyze --format sarif policies/ > analysis.sarif   # code scanning",
            "  custody analyze --deadline 5m --jobs 2 policies/   # CI: always a report",
            "",
            "Severities: unsatisfiable and may_error are errors (exit 1); always_true,",
            "duplicate, shadowed and overridden are warnings; not_analyzed and unknown",
            "are notes (no claim). Rules a --deadline leaves undone are unknown.",
        })
public final class AnalyzeCommand implements Callable<Integer> {

    /** Output formats. */
    enum Format { text, json, sarif }

    @ParentCommand
    CliRoot root;

    @Mixin
    DebugOption debug;

    @Spec
    CommandSpec spec;

    @Option(names = "--action", paramLabel = "ACTION",
            description = "Only rules of this trigger action: withdrawal.create or web3.contract_call.")
    String action;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text",
            description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    Format format;

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "5000",
            description = "Time-out of one solver query in milliseconds; past it the finding is `unknown` "
                    + "(default: ${DEFAULT-VALUE}).")
    long timeoutMs;

    @Option(names = "--jobs", paramLabel = "N",
            description = "Threads that solve in parallel, each with its own solver (default: the cores, "
                    + "${DEFAULT-VALUE}).")
    int jobs = Runtime.getRuntime().availableProcessors();

    @Option(names = "--deadline", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            description = "Deadline of the whole run, e.g. `30s` or `2m`: rules not done by then are `unknown` "
                    + "findings, and the report is printed as usual (default: none).")
    Duration deadline;

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "Policy files (.json, .yaml, .yml) or directories.")
    List<Path> paths;

    @Override
    public Integer call() throws Exception {
        Optional<TriggerAction> only = triggerAction(action);
        if (timeoutMs < 1) {
            throw CliException.usage("`--timeout-ms` must be at least 1, got `" + timeoutMs + "`");
        }
        if (jobs < 1) {
            throw CliException.usage("`--jobs` must be at least 1, got `" + jobs + "`");
        }
        List<Path> files = PolicyFiles.discover(paths);
        if (files.isEmpty()) {
            throw CliException.input("no policy files (.json, .yaml, .yml) under `" + paths + "`");
        }
        PolicySet set = PolicySet.of(PolicyFiles.read(paths), Compilers.shared());
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        reportProblems(set, "policies", err);
        RuleProgress progress = new RuleProgress(err, root.environment().progress());
        AnalysisReport report;
        try {
            report = new PolicyAnalyzer(timeoutMs).analyze(set, only,
                    new PolicyAnalyzer.Run(jobs, deadline, progress));
        } finally {
            progress.done();
        }
        switch (format) {
            case text -> {
                printText(report, out);
            }
            case json -> out.println(JsonOutput.write(json(report)));
            case sarif -> out.println(JsonOutput.write(sarif(report)));
            default -> throw new IllegalStateException(format.name());
        }
        out.flush();
        return report.hasErrors() || !set.problems().isEmpty() ? ExitCode.INPUT : ExitCode.OK;
    }

    /** The trigger action of {@code --action}, or empty when not given; a usage error when it is not one. */
    static Optional<TriggerAction> triggerAction(String name) {
        if (name == null) {
            return Optional.empty();
        }
        return Optional.of(TriggerAction.fromWireName(name).orElseThrow(() -> CliException.usage(
                "unknown trigger action `" + name + "`; trigger actions: withdrawal.create, web3.contract_call")));
    }

    /** Prints read and compile errors on stderr: their rules are left out of the analysis. */
    static void reportProblems(PolicySet set, String label, PrintWriter err) {
        if (set.problems().isEmpty()) {
            return;
        }
        err.println("error: some " + label + " do not read or compile; the engine denies their workspace's actions, "
                + "and their rules are not analysed:");
        set.problems().forEach(p -> err.println("  " + p));
        err.flush();
    }

    /** The text form: one block per finding (file:line:column, severity, kind, rule, message, witness), then a summary. */
    public static void printText(AnalysisReport report, PrintWriter out) {
        for (AnalysisFinding f : report.findings()) {
            AnalyzedRule r = f.rule();
            out.println(r.file() + ":" + r.line() + ":" + r.column() + ": " + f.severity() + "[" + f.kind().wireName()
                    + "] " + r.label() + ": " + f.message());
            if (f.witness() != null) {
                out.println("  witness: " + JsonOutput.write(f.witness()));
            }
        }
        out.println(summary(report));
    }

    static String summary(AnalysisReport report) {
        int errors = 0;
        int warnings = 0;
        int notes = 0;
        for (AnalysisFinding f : report.findings()) {
            switch (f.severity()) {
                case "error" -> errors++;
                case "warning" -> warnings++;
                default -> notes++;
            }
        }
        return Inputs.plural(report.rules(), "rule") + ", " + report.analyzed() + " analysed: "
                + Inputs.plural(errors, "error") + ", " + Inputs.plural(warnings, "warning") + ", "
                + Inputs.plural(notes, "note");
    }

    /** The JSON form of docs/design.md §5.1. */
    static Map<String, Object> json(AnalysisReport report) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rules", report.rules());
        m.put("analyzed", report.analyzed());
        List<Object> findings = new ArrayList<>();
        for (AnalysisFinding f : report.findings()) {
            findings.add(json(f));
        }
        m.put("findings", findings);
        return m;
    }

    /** One finding's fields (docs/design.md §5.1), as the JSON report and {@code review} give them. */
    static Map<String, Object> json(AnalysisFinding f) {
        Map<String, Object> x = new LinkedHashMap<>();
        x.put("kind", f.kind().wireName());
        x.put("severity", f.severity());
        x.put("policy_id", f.rule().policyId());
        x.put("rule_id", f.rule().ruleId());
        x.put("action", f.action().wireName());
        List<Object> related = new ArrayList<>();
        for (AnalyzedRule r : f.related()) {
            Map<String, Object> rel = new LinkedHashMap<>();
            rel.put("policy_id", r.policyId());
            rel.put("rule_id", r.ruleId());
            related.add(rel);
        }
        x.put("related", related);
        x.put("message", f.message());
        x.put("file", f.rule().file());
        x.put("line", f.rule().line());
        x.put("column", f.rule().column());
        x.put("witness", f.witness());
        return x;
    }

    private static Map<String, Object> sarif(AnalysisReport report) {
        Map<String, String> descriptions = new LinkedHashMap<>();
        List<Sarif.Result> results = new ArrayList<>();
        for (AnalysisFinding f : report.findings()) {
            descriptions.put(f.kind().wireName(), describe(f.kind()));
            Map<String, Object> props = new LinkedHashMap<>();
            props.put("policy_id", f.rule().policyId());
            props.put("rule_id", f.rule().ruleId());
            if (f.witness() != null) {
                props.put("witness", f.witness());
            }
            results.add(new Sarif.Result(f.kind().wireName(), f.severity().equals("info") ? "note" : f.severity(),
                    f.rule().label() + ": " + f.message(), f.rule().file(), f.rule().line(), f.rule().column(), props));
        }
        return Sarif.log(descriptions, results);
    }

    static String describe(FindingKind kind) {
        return switch (kind) {
            case UNSATISFIABLE -> "No valid action makes the rule true";
            case ALWAYS_TRUE -> "Every valid action makes the rule true";
            case DUPLICATE -> "An earlier rule has the same effect and an equivalent condition";
            case SHADOWED -> "Earlier rules of the same effect are true whenever the rule is: it never gets attribution";
            case OVERRIDDEN -> "A DENY rule is true whenever this ALLOW rule is: it never allows";
            case MAY_ERROR -> "Some valid action makes the rule fail at run time: a fail-closed DENY";
            case NOT_ANALYZED -> "The condition is outside the analysed fragment";
            case UNKNOWN -> "The solver did not decide within its time-out";
        };
    }

    /**
     * The progress line of an analysis on stderr, only when stderr is a terminal: rules done / total and the
     * elapsed time, drawn after the first second, redrawn at most ten times a second, erased when done.
     * Thread-safe (the analysing threads call it).
     */
    static final class RuleProgress implements PolicyAnalyzer.Progress {
        private static final long FIRST_DRAW_NANOS = 1_000_000_000L;
        private static final long REDRAW_NANOS = 100_000_000L;

        private final PrintWriter err;
        private final boolean enabled;
        private final long start = System.nanoTime();
        private long nextDraw = start + FIRST_DRAW_NANOS;
        private boolean drawn;
        private int shown;

        RuleProgress(PrintWriter err, boolean enabled) {
            this.err = err;
            this.enabled = enabled;
        }

        @Override
        public synchronized void rules(int done, int total) {
            if (!enabled) {
                return;
            }
            long now = System.nanoTime();
            // threads report out of order: never draw a count below one drawn; always draw the last
            if (done <= shown || now - nextDraw < 0 && done < total) {
                return;
            }
            shown = done;
            nextDraw = now + REDRAW_NANOS;
            err.print(line(done, total, now - start));
            err.flush();
            drawn = true;
        }

        /** The line drawn for {@code done} of {@code total} rules after {@code elapsedNanos}. */
        static String line(int done, int total, long elapsedNanos) {
            return String.format(java.util.Locale.ROOT, "\ranalyze: %d/%d rules, %.1f s\u001b[K", done, total,
                    elapsedNanos / 1e9);
        }

        /** Erases the progress line, if one was drawn. */
        synchronized void done() {
            if (drawn) {
                err.print("\r\u001b[K");
                err.flush();
                drawn = false;
            }
        }
    }
}
