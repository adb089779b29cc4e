package dev.custody.cli.command;

import dev.custody.analysis.PolicySet;
import dev.custody.analysis.SemanticDiff;
import dev.custody.cli.CliException;
import dev.custody.cli.Compilers;
import dev.custody.cli.ExitCode;
import dev.custody.engine.Decision;
import dev.custody.engine.files.PolicyFiles;
import dev.custody.engine.schema.TriggerAction;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code custody diff --semantic}: {@link SemanticDiff} over the base and head sets (docs/design.md §5.2). Exit 0 when the
 * solver proved them equivalent, 1 when not (a difference with its witness, something undecided, or a set that
 * does not read or compile).
 */
final class SemanticDiffOutput {
    private SemanticDiffOutput() {}

    static int run(DiffCommand c, PrintWriter out, PrintWriter err) throws IOException {
        if (c.actions != null) {
            throw CliException.usage("`--actions` and `--semantic` cannot be used together");
        }
        if (c.format == DiffCommand.Format.jsonl) {
            throw CliException.usage("`--semantic` prints `text` or `json`, not `jsonl`");
        }
        if (c.timeoutMs < 1) {
            throw CliException.usage("`--timeout-ms` must be at least 1, got `" + c.timeoutMs + "`");
        }
        Optional<TriggerAction> only = AnalyzeCommand.triggerAction(c.action);
        PolicySet base = PolicySet.of(PolicyFiles.read(c.sides.base), Compilers.shared());
        PolicySet head = PolicySet.of(PolicyFiles.read(c.sides.head), Compilers.shared());
        AnalyzeCommand.reportProblems(base, "base policies", err);
        AnalyzeCommand.reportProblems(head, "head policies", err);
        if (!base.problems().isEmpty() || !head.problems().isEmpty()) {
            return ExitCode.INPUT;
        }
        SemanticDiff.Result r = new SemanticDiff(c.timeoutMs).compare(base, head, only);
        if (c.format == DiffCommand.Format.json) {
            out.println(JsonOutput.write(json(r)));
        } else {
            for (SemanticDiff.Difference d : r.differences()) {
                out.println(d.action().wireName() + ": " + d.from() + " → " + d.to() + "  (base " + describe(d.base())
                        + ", head " + describe(d.head()) + ")");
                out.println("  witness: " + JsonOutput.write(d.witness()));
            }
            r.undecided().forEach(u -> out.println("undecided: " + u));
            out.println(r.equivalent() ? "equivalent: base and head decide every valid action alike"
                    : r.differences().isEmpty() ? "not proved equivalent: " + Inputs.plural(r.undecided().size(),
                            "question") + " undecided"
                    : "not equivalent: " + Inputs.plural(r.differences().size(), "kind") + " of change");
        }
        out.flush();
        return r.equivalent() ? ExitCode.OK : ExitCode.INPUT;
    }

    private static String describe(Decision d) {
        if (d.ruleId() == null) {
            return d.outcome().name();
        }
        return "`" + d.policyId() + "/" + d.ruleId() + "`" + (d.failClosed() ? " failed" : "");
    }

    private static Map<String, Object> json(SemanticDiff.Result r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("equivalent", r.equivalent());
        List<Object> diffs = new ArrayList<>();
        for (SemanticDiff.Difference d : r.differences()) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("from", d.from().name());
            x.put("to", d.to().name());
            x.put("action", d.action().wireName());
            x.put("base_rule_id", d.base().ruleId());
            x.put("head_rule_id", d.head().ruleId());
            x.put("base_fail_closed", d.base().failClosed());
            x.put("head_fail_closed", d.head().failClosed());
            x.put("witness", d.witness());
            diffs.add(x);
        }
        m.put("differences", diffs);
        m.put("undecided", r.undecided());
        return m;
    }
}
