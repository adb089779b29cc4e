package dev.custody.cli.command;

import dev.custody.analysis.AnalysisFinding;
import dev.custody.analysis.AnalyzedRule;
import dev.custody.analysis.SemanticDiff;
import dev.custody.cli.command.PolicyReview.Example;
import dev.custody.cli.command.PolicyReview.Report;
import dev.custody.cli.command.PolicyReview.RuleChange;
import dev.custody.cli.command.PolicyReview.TransitionRow;
import dev.custody.engine.Decision;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The two forms of a {@link Report}: Markdown for a pull request (GitHub's flavour: tables, {@code <details>} for
 * witnesses and example actions, {@code <del>}/{@code <ins>} for the word diff, no source line much over 100
 * characters outside tables and code blocks) and JSON with the same content for tools. Stateless.
 */
final class ReviewOutput {
    private ReviewOutput() {}

    /** The Markdown report, ending with a newline. */
    static String markdown(Report r) {
        StringBuilder md = new StringBuilder();
        md.append("**custody review:** ").append(escape(r.summary())).append("\n\n");
        if (!r.changes().isEmpty()) {
            md.append("| rule | change | action | effect | where |\n|---|---|---|---|---|\n");
            for (RuleChange c : r.changes()) {
                AnalyzedRule x = c.either();
                md.append("| ").append(code(c.key().label())).append(" | ").append(c.kind().wireName())
                        .append(" | ").append(c.key().action().wireName()).append(" | ").append(effect(c))
                        .append(" | ").append(code(location(x))).append(" |\n");
            }
            md.append('\n');
        }
        for (RuleChange c : r.changes()) {
            rule(md, c);
        }
        if (!r.otherDifferences().isEmpty() || !r.otherIntroduced().isEmpty() || !r.otherResolved().isEmpty()) {
            md.append("### Other changes\n\n");
            differences(md, r.otherDifferences());
            findings(md, "introduced", r.otherIntroduced());
            findings(md, "resolved", r.otherResolved());
        }
        SemanticDiff.Result s = r.semantic();
        md.append("### Every valid action\n\n");
        if (s.equivalent()) {
            md.append("Proved by the solver: base and head decide every valid action alike (decision and rule).\n\n");
        } else if (!s.differences().isEmpty()) {
            md.append("Proved by the solver: base and head decide some valid actions differently (")
                    .append(kinds(s.differences())).append(").\n\n");
        } else {
            md.append("Not proved either way.\n\n");
        }
        undecided(md, s.undecided());
        md.append("Analysis: ").append(Inputs.plural(r.analysed()[0], "rule")).append(" the change touches on the base side, ")
                .append(r.analysed()[1]).append(" on the head side.\n\n");
        if (r.traffic() != null) {
            traffic(md, r.traffic());
        }
        return md.toString();
    }

    private static void rule(StringBuilder md, RuleChange c) {
        AnalyzedRule b = c.before();
        AnalyzedRule h = c.after();
        md.append("### ").append(code(c.key().label())).append(" (").append(c.kind().wireName()).append(")\n\n");
        md.append(c.key().action().wireName()).append(", ").append(effect(c));
        if (c.key().workspaceId() != null) {
            md.append(", workspace ").append(code(c.key().workspaceId()));
        }
        md.append(": ");
        if (b != null) {
            md.append("base ").append(code(location(b)));
        }
        if (b != null && h != null) {
            md.append(", ");
        }
        if (h != null) {
            md.append("head ").append(code(location(h)));
        }
        md.append("\n\n");
        String before = b == null ? null : b.condition().source();
        String after = h == null ? null : h.condition().source();
        md.append("| | condition |\n|---|---|\n");
        if (before != null && after != null && !before.equals(after)) {
            md.append("| before | ").append(cell(before)).append(" |\n");
            md.append("| after | ").append(cell(after)).append(" |\n");
            md.append("| words | <code>");
            List<String> parts = new ArrayList<>();
            for (WordDiff.Run run : WordDiff.diff(before, after)) {
                String t = html(run.text());
                parts.add(switch (run.op()) {
                    case SAME -> t;
                    case REMOVED -> "<del>" + t + "</del>";
                    case ADDED -> "<ins>" + t + "</ins>";
                });
            }
            md.append(String.join(" ", parts)).append("</code> |\n\n");
        } else {
            md.append("| ").append(b == null ? "after" : h == null ? "before" : "before and after").append(" | ")
                    .append(cell(after != null ? after : before)).append(" |\n\n");
        }
        SemanticDiff.Result s = c.semantic();
        if (s.equivalent()) {
            md.append("**Behaviour:** proved: no valid action is decided differently through this rule.\n\n");
        } else {
            differences(md, s.differences());
            undecided(md, s.undecided());
        }
        if (c.introduced().isEmpty() && c.resolved().isEmpty()) {
            md.append("**Analysis:** no finding introduced or resolved.\n\n");
        } else {
            findings(md, "introduced", c.introduced());
            findings(md, "resolved", c.resolved());
        }
    }

    private static void differences(StringBuilder md, List<SemanticDiff.Difference> diffs) {
        for (SemanticDiff.Difference d : diffs) {
            md.append("**Behaviour:** ").append(d.action().wireName()).append(" **").append(d.from()).append(" → ")
                    .append(d.to()).append("** (proved; base: ").append(decided(d.base())).append(", head: ")
                    .append(decided(d.head())).append(")\n\n");
            md.append("<details><summary>witness action <code>").append(html(String.valueOf(d.witness().get("id"))))
                    .append("</code> (replayed on both sides)</summary>\n\n```json\n")
                    .append(JsonOutput.pretty(d.witness())).append("\n```\n\n</details>\n\n");
        }
    }

    /** Undecided questions shown before the rest is folded into a {@code <details>} block. */
    static final int UNDECIDED_SHOWN = 5;

    /** The undecided questions as a list, the first {@link #UNDECIDED_SHOWN}, then the rest folded. */
    private static void undecided(StringBuilder md, List<String> undecided) {
        for (int i = 0; i < Math.min(UNDECIDED_SHOWN, undecided.size()); i++) {
            md.append("- undecided: ").append(escape(undecided.get(i))).append('\n');
        }
        if (undecided.size() > UNDECIDED_SHOWN) {
            md.append("\n<details><summary>").append(undecided.size() - UNDECIDED_SHOWN)
                    .append(" more undecided</summary>\n\n");
            for (String u : undecided.subList(UNDECIDED_SHOWN, undecided.size())) {
                md.append("- ").append(escape(u)).append('\n');
            }
            md.append("\n</details>\n");
        }
        if (!undecided.isEmpty()) {
            md.append('\n');
        }
    }

    /** {@code withdrawal.create ALLOW → DENY, …}, in the order found. */
    private static String kinds(List<SemanticDiff.Difference> diffs) {
        List<String> out = new ArrayList<>();
        for (SemanticDiff.Difference d : diffs) {
            out.add(d.action().wireName() + " " + d.from() + " → " + d.to());
        }
        return String.join(", ", out);
    }

    private static void findings(StringBuilder md, String what, List<AnalysisFinding> findings) {
        if (findings.isEmpty()) {
            return;
        }
        md.append("**Analysis, ").append(what).append(":**\n\n");
        for (AnalysisFinding f : findings) {
            md.append("- ").append(f.severity()).append(" **").append(f.kind().wireName()).append("** ")
                    .append(code(f.rule().label())).append(" at ").append(code(location(f.rule()) + ":"
                            + f.rule().column())).append(": ").append(escape(f.message())).append('\n');
        }
        md.append('\n');
    }

    private static void traffic(StringBuilder md, PolicyReview.Traffic t) {
        md.append("### Traffic\n\n").append(code(t.file())).append(" (")
                .append(t.source().equals("actions") ? "action stream" : "decision log").append("): ")
                .append(PolicyReview.grouped(t.actions())).append(" actions, ")
                .append(PolicyReview.grouped(t.changed())).append(" decided differently");
        if (t.malformed() > 0) {
            md.append(", ").append(PolicyReview.grouped(t.malformed())).append(" not readable (denied on both sides)");
        }
        md.append(".\n\n");
        if (t.rows().isEmpty()) {
            return;
        }
        md.append("| transition | actions |\n|---|---:|\n");
        for (TransitionRow row : t.rows()) {
            md.append("| ").append(row.transition().label()).append(" | ").append(PolicyReview.grouped(row.count()))
                    .append(" |\n");
        }
        md.append('\n');
        for (TransitionRow row : t.rows()) {
            md.append("<details><summary>").append(html(row.transition().label())).append(": ")
                    .append(row.newest().size() == row.count() ? "all " + row.count()
                            : "the " + row.newest().size() + " newest of " + PolicyReview.grouped(row.count()))
                    .append("</summary>\n\n| id | workspace | value (USD) | rule before | rule after |\n")
                    .append("|---|---|---:|---|---|\n");
            for (Example e : row.newest()) {
                md.append("| ").append(e.id() == null ? "line " + e.line() : code(e.id())).append(" | ")
                        .append(e.workspaceId() == null ? "-" : code(shortId(e.workspaceId()))).append(" | ")
                        .append(value(e.valueUsd())).append(" | ").append(rule(e.before())).append(" | ")
                        .append(rule(e.after())).append(" |\n");
            }
            md.append("\n</details>\n\n");
        }
    }

    /** The JSON report: the Markdown's content, every id and workspace in full. */
    static Map<String, Object> json(Report r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("summary", r.summary());
        m.put("verdict", r.verdictCode());
        m.put("changes_behaviour", r.changesBehaviour());
        m.put("policies", counts(r.policies(), false));
        m.put("rules", counts(r.rules(), true));
        List<Object> changes = new ArrayList<>();
        for (RuleChange c : r.changes()) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("policy_id", c.key().policyId());
            x.put("rule_id", c.key().ruleId());
            x.put("workspace_id", c.key().workspaceId());
            x.put("action", c.key().action().wireName());
            x.put("change", c.kind().wireName());
            x.put("before", side(c.before()));
            x.put("after", side(c.after()));
            List<Object> words = new ArrayList<>();
            for (WordDiff.Run run : WordDiff.diff(c.before() == null ? null : c.before().condition().source(),
                    c.after() == null ? null : c.after().condition().source())) {
                Map<String, Object> w = new LinkedHashMap<>();
                w.put("op", run.op().name().toLowerCase(Locale.ROOT));
                w.put("text", run.text());
                words.add(w);
            }
            x.put("condition_diff", words);
            x.put("semantic", semantic(c.semantic()));
            x.put("findings_introduced", findings(c.introduced()));
            x.put("findings_resolved", findings(c.resolved()));
            changes.add(x);
        }
        m.put("rule_changes", changes);
        m.put("semantic", semantic(r.semantic()));
        Map<String, Object> other = new LinkedHashMap<>();
        other.put("differences", differences(r.otherDifferences()));
        other.put("findings_introduced", findings(r.otherIntroduced()));
        other.put("findings_resolved", findings(r.otherResolved()));
        m.put("other", other);
        Map<String, Object> analysed = new LinkedHashMap<>();
        analysed.put("base", r.analysed()[0]);
        analysed.put("head", r.analysed()[1]);
        m.put("analysed_rules", analysed);
        if (r.traffic() == null) {
            m.put("traffic", null);
        } else {
            PolicyReview.Traffic t = r.traffic();
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("source", t.source());
            x.put("file", t.file());
            x.put("actions", t.actions());
            x.put("changed", t.changed());
            x.put("malformed", t.malformed());
            List<Object> rows = new ArrayList<>();
            for (TransitionRow row : t.rows()) {
                Map<String, Object> y = new LinkedHashMap<>();
                y.put("from", row.transition().from());
                y.put("to", row.transition().to());
                y.put("count", row.count());
                List<Object> examples = new ArrayList<>();
                for (Example e : row.newest()) {
                    Map<String, Object> z = new LinkedHashMap<>();
                    z.put("id", e.id());
                    z.put("line", e.line());
                    z.put("workspace_id", e.workspaceId());
                    z.put("value_usd", e.valueUsd());
                    z.put("before", decision(e.before()));
                    z.put("after", decision(e.after()));
                    examples.add(z);
                }
                y.put("newest", examples);
                rows.add(y);
            }
            x.put("transitions", rows);
            m.put("traffic", x);
        }
        return m;
    }

    private static Map<String, Object> semantic(SemanticDiff.Result s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("equivalent", s.equivalent());
        m.put("differences", differences(s.differences()));
        m.put("undecided", s.undecided());
        return m;
    }

    private static Map<String, Object> counts(PolicyReview.Counts c, boolean rules) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("added", c.added());
        m.put("removed", c.removed());
        m.put("changed", c.changed());
        if (rules) {
            m.put("disabled", c.disabled());
            m.put("enabled", c.enabled());
        }
        return m;
    }

    private static Map<String, Object> side(AnalyzedRule r) {
        if (r == null) {
            return null;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("effect", r.effect().name());
        m.put("condition", r.condition().source());
        m.put("file", r.file());
        m.put("line", r.line());
        m.put("column", r.column());
        return m;
    }

    private static List<Object> differences(List<SemanticDiff.Difference> diffs) {
        List<Object> out = new ArrayList<>();
        for (SemanticDiff.Difference d : diffs) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("action", d.action().wireName());
            x.put("from", d.from().name());
            x.put("to", d.to().name());
            x.put("base", decision(d.base()));
            x.put("head", decision(d.head()));
            x.put("witness", d.witness());
            out.add(x);
        }
        return out;
    }

    private static List<Object> findings(List<AnalysisFinding> findings) {
        List<Object> out = new ArrayList<>();
        findings.forEach(f -> out.add(AnalyzeCommand.json(f)));
        return out;
    }

    private static Map<String, Object> decision(Decision d) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("decision", d.outcome().name());
        m.put("fail_closed", d.failClosed());
        m.put("policy_id", d.policyId());
        m.put("rule_id", d.ruleId());
        return m;
    }

    private static String effect(RuleChange c) {
        if (c.before() != null && c.after() != null && c.before().effect() != c.after().effect()) {
            return c.before().effect() + " → " + c.after().effect();
        }
        return c.either().effect().name();
    }

    private static String location(AnalyzedRule r) {
        return r.file() + ":" + r.line();
    }

    private static String decided(Decision d) {
        String s = d.outcome().name() + (d.failClosed() ? " fail-closed" : "");
        return d.ruleId() == null ? s : s + " by " + code(d.policyId() + "/" + d.ruleId());
    }

    /** The rule a decision is attributed to, or {@code -}: the transition above the table says the decisions. */
    private static String rule(Decision d) {
        return d.ruleId() == null ? "-" : code(d.policyId() + "/" + d.ruleId());
    }

    /** The first 8 characters of a UUID, then an ellipsis; the JSON form has it whole. */
    private static String shortId(String id) {
        return id.length() > 9 ? id.substring(0, 8) + "…" : id;
    }

    private static String value(Object v) {
        if (v instanceof Number n) {
            return String.format(Locale.ROOT, "%,.2f", n.doubleValue());
        }
        return v == null ? "-" : escape(String.valueOf(v));
    }

    /** A code span; backticks inside are doubled around as CommonMark allows. */
    static String code(String s) {
        String t = s.replace("|", "\\|").replace("\n", " ");
        return t.contains("`") ? "`` " + t + " ``" : "`" + t + "`";
    }

    /** A condition in a table cell: on one line, as code. */
    private static String cell(String condition) {
        return "<code>" + html(String.join(" ", WordDiff.words(condition))) + "</code>";
    }

    /** Text for HTML inside Markdown: {@code & < > |} escaped (a bare {@code |} would split a table cell). */
    static String html(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "&#124;");
    }

    /**
     * Plain text in Markdown (a summary, a finding's message): {@code <} and {@code |} escaped, so that no text
     * opens an HTML tag or splits a table; backticks are kept, as messages quote names with them.
     */
    static String escape(String s) {
        return s.replace("<", "&lt;").replace("|", "\\|");
    }
}
