package dev.custody.cli.command;

import dev.custody.cli.CliException;
import dev.custody.engine.coverage.CoverageRecorder;
import dev.custody.engine.coverage.CoverageReport;
import dev.custody.engine.coverage.ObservedRule;
import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.validate.PolicyValidator;
import dev.custody.engine.files.DocumentSelection;
import dev.custody.engine.selection.SelectedRule;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.files.SourcedPolicy;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.PolicyStatus;
import dev.custody.engine.schema.TriggerAction;
import java.io.IOException;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code test} and {@code replay} do with coverage (docs/design.md §5.3): list the rules up front, then
 * write the JSON file and the HTML pages, print a summary line on stderr, and check the threshold.
 */
final class CoverageFiles {
    private CoverageFiles() {}

    /**
     * Tells the recorder of every rule the engine evaluates in some workspace of the files (engine-core's
     * {@link DocumentSelection}: enabled rules of active policies, with the engine's rule ids), in declaration
     * order, so that a rule no decision loaded (its workspace never came up) is listed with zero counts. The rules
     * of a workspace whose policies do not compile are left out: its bundle denies every action and evaluates
     * nothing.
     */
    static void seed(CoverageRecorder recorder, List<PolicyDocument> documents, PolicyValidator validator) {
        List<ObservedRule> rules = new ArrayList<>();
        for (DocumentSelection.Located l : DocumentSelection.of(documents, validator).rules()) {
            SelectedRule r = l.rule();
            rules.add(new ObservedRule(r.policyId(), r.ruleId(), r.effect(), r.condition()));
        }
        recorder.rulesLoaded(rules);
    }

    /** The JSON document of docs/design.md §5.3: {@code {"rules": [...], "branches": [...]}}. */
    static Map<String, Object> json(CoverageReport report) {
        List<Object> rules = new ArrayList<>();
        for (CoverageReport.RuleCoverage r : report.rules()) {
            Map<String, Object> j = new LinkedHashMap<>();
            j.put("policy_id", r.policyId());
            j.put("rule_id", r.ruleId());
            j.put("action", r.action().wireName());
            j.put("evaluated", r.evaluated());
            j.put("true", r.trueCount());
            j.put("false", r.falseCount());
            j.put("error", r.errorCount());
            rules.add(j);
        }
        List<Object> branches = new ArrayList<>();
        for (CoverageReport.BranchCoverage b : report.branches()) {
            Map<String, Object> j = new LinkedHashMap<>();
            j.put("policy_id", b.policyId());
            j.put("rule_id", b.ruleId());
            j.put("line", b.line());
            j.put("column", b.column());
            j.put("text", b.text());
            j.put("true", b.trueCount());
            j.put("false", b.falseCount());
            branches.add(j);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rules", rules);
        m.put("branches", branches);
        return m;
    }

    /** A percentage with one decimal, rounded down, so that it never shows more than was seen. */
    static String percent(long seen, long all) {
        if (all == 0) {
            return "100.0";
        }
        return BigDecimal.valueOf(seen * 100).divide(BigDecimal.valueOf(all), 1, RoundingMode.DOWN).toPlainString();
    }

    /** {@code branch coverage: 10 of 16 outcomes seen (62.5 %); 3 of 3 rules evaluated}. */
    static String summary(CoverageReport report) {
        long evaluated = report.rules().stream().filter(r -> r.evaluated() > 0).count();
        return "branch coverage: " + report.outcomesSeen() + " of " + Inputs.plural(report.outcomes(), "outcome")
                + " seen (" + percent(report.outcomesSeen(), report.outcomes()) + " %); " + evaluated + " of "
                + Inputs.plural(report.rules().size(), "rule") + " evaluated";
    }

    /**
     * Writes what was asked for, prints the summary (and, below the threshold, why it fails) on {@code err}.
     *
     * @return whether the coverage is below {@code --coverage-threshold}
     */
    static boolean finish(CoverageOptions options, CoverageRecorder recorder, List<PolicyDocument> documents,
            PrintWriter err) {
        CoverageReport report = recorder.report();
        if (options.json != null) {
            try {
                Files.writeString(options.json, JsonOutput.write(json(report)) + "\n", StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw CliException.io("cannot write coverage to `" + options.json + "`: " + Inputs.reason(e));
            }
        }
        if (options.html != null) {
            try {
                CoverageHtml.write(options.html, report, documents);
            } catch (IOException e) {
                throw CliException.io("cannot write coverage pages to `" + options.html + "`: " + Inputs.reason(e));
            }
        }
        err.println(summary(report));
        if (options.threshold != null && report.below(options.threshold)) {
            err.println("error: branch coverage " + percent(report.outcomesSeen(), report.outcomes())
                    + " % is below the threshold of " + options.threshold.toPlainString() + " %");
            return true;
        }
        return false;
    }
}
