package dev.custody.cli.command;

import dev.custody.analysis.AnalysisFinding;
import dev.custody.analysis.AnalysisReport;
import dev.custody.analysis.AnalyzedRule;
import dev.custody.analysis.FindingKind;
import dev.custody.analysis.PolicyAnalyzer;
import dev.custody.analysis.PolicySet;
import dev.custody.cli.CliException;
import dev.custody.cli.CliRoot;
import dev.custody.cli.Compilers;
import dev.custody.cli.DebugOption;
import dev.custody.cli.ExitCode;
import dev.custody.cli.VersionProvider;
import dev.custody.engine.policy.PolicyFiles;
import dev.custody.engine.schema.TriggerAction;
import java.io.PrintWriter;
import java.nio.file.Path;
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
 * valid action (module {@code custody-analysis}, DESIGN §7): unsatisfiable, always-true, duplicate, shadowed,
 * overridden and may-error rules, each at the file:line:column of the rule, with a replayed witness action
 * where one exists; rules outside the analysed fragment are {@code not_analyzed}, solver time-outs
 * {@code unknown}. Exit 1 with an error-severity finding (unsatisfiable, may_error) or when a policy does not
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
            "",
            "Severities: unsatisfiable and may_error are errors (exit 1); always_true,",
            "duplicate, shadowed and overridden are warnings; not_analyzed and unknown",
            "are notes (no claim).",
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

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "Policy files (.json, .yaml, .yml) or directories.")
    List<Path> paths;

    @Override
    public Integer call() throws Exception {
        Optional<TriggerAction> only = triggerAction(action);
        if (timeoutMs < 1) {
            throw CliException.usage("`--timeout-ms` must be at least 1, got `" + timeoutMs + "`");
        }
        List<Path> files = PolicyFiles.discover(paths);
        if (files.isEmpty()) {
            throw CliException.input("no policy files (.json, .yaml, .yml) under `" + paths + "`");
        }
        PolicySet set = PolicySet.of(PolicyFiles.read(paths), Compilers.shared());
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        reportProblems(set, "policies", err);
        AnalysisReport report = new PolicyAnalyzer(Compilers.shared(), timeoutMs).analyze(set, only);
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

    /** The DESIGN §7 JSON form. */
    static Map<String, Object> json(AnalysisReport report) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rules", report.rules());
        m.put("analyzed", report.analyzed());
        List<Object> findings = new ArrayList<>();
        for (AnalysisFinding f : report.findings()) {
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
            findings.add(x);
        }
        m.put("findings", findings);
        return m;
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
}
