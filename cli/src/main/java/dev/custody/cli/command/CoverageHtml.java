package dev.custody.cli.command;

import dev.custody.engine.coverage.CoverageReport;
import dev.custody.engine.coverage.CoverageReport.BranchCoverage;
import dev.custody.engine.coverage.CoverageReport.RuleCoverage;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.diagnostic.DiagnosticCode;
import dev.custody.engine.files.Finding;
import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.files.SourcedPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code --coverage-html DIR}: one self-contained page per policy file (inline style, no script, nothing fetched)
 * and an {@code index.html} linking them. Each rule shows its counts, its condition with every branch marked (seen
 * true and false, true only, false only, never), and a table of its branches at file:line:column. Everything taken
 * from the files (ids, conditions, paths, descriptions) is escaped.
 */
final class CoverageHtml {
    private static final String STYLE = """
            body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#1b1b1b;max-width:70em}
            h1{font-size:1.3em;word-break:break-all}h2{font-size:1.1em;margin-top:2em}h3{font-size:1em;margin:1.4em 0 .3em}
            code,pre{font:13px/1.5 ui-monospace,Menlo,Consolas,monospace}
            pre{background:#f6f6f6;padding:.6em .8em;white-space:pre-wrap;border:1px solid #ddd}
            .b{border-bottom:2px solid;padding:1px 0}
            .both{background:#d8f0d8;border-color:#2e7d32}
            .t{background:#fff2c2;border-color:#b8860b;border-bottom-style:dashed}
            .f{background:#ffe0b8;border-color:#c25e00;border-bottom-style:dotted}
            .never{background:#fcd4d4;border-color:#b71c1c;border-bottom-style:double;border-bottom-width:3px}
            table{border-collapse:collapse;margin:.4em 0}td,th{border:1px solid #ddd;padding:.15em .5em;text-align:left}
            td.n{text-align:right}.legend span{margin-right:1em;padding:0 .3em}.muted{color:#666}
            """;

    private CoverageHtml() {}

    /** Writes the pages into {@code dir} (created if absent); returns the page of each file, in file order. */
    static List<Path> write(Path dir, CoverageReport report, List<PolicyDocument> documents) throws IOException {
        Files.createDirectories(dir);
        Map<String, List<RuleCoverage>> rules = new HashMap<>();
        for (RuleCoverage r : report.rules()) {
            rules.computeIfAbsent(key(r.policyId(), r.ruleId()), k -> new ArrayList<>()).add(r);
        }
        Map<String, List<BranchCoverage>> branches = new HashMap<>();
        for (BranchCoverage b : report.branches()) {
            branches.computeIfAbsent(key(b.policyId(), b.ruleId()), k -> new ArrayList<>()).add(b);
        }
        Set<String> names = new HashSet<>();
        names.add("index.html");
        List<Path> pages = new ArrayList<>();
        StringBuilder index = new StringBuilder();
        index.append(head("coverage")).append("<h1>Branch coverage</h1>\n<p>")
                .append(escape(CoverageFiles.summary(report))).append("</p>\n<table><tr><th>policy file</th>"
                        + "<th>branch outcomes seen</th><th>rules evaluated</th></tr>\n");
        for (PolicyDocument doc : documents) {
            String name = pageName(doc.file(), names);
            Page page = page(doc, rules, branches);
            Files.writeString(dir.resolve(name), page.html, StandardCharsets.UTF_8);
            pages.add(dir.resolve(name));
            index.append("<tr><td><a href=\"").append(escape(name)).append("\">").append(escape(doc.file()))
                    .append("</a></td><td class=\"n\">").append(page.seen).append(" of ").append(page.outcomes)
                    .append(" (").append(CoverageFiles.percent(page.seen, page.outcomes)).append(" %)</td>")
                    .append("<td class=\"n\">").append(page.rulesEvaluated).append(" of ").append(page.rules)
                    .append("</td></tr>\n");
        }
        index.append("</table>\n").append(legend()).append("</body></html>\n");
        Files.writeString(dir.resolve("index.html"), index.toString(), StandardCharsets.UTF_8);
        return pages;
    }

    private record Page(String html, long seen, long outcomes, long rules, long rulesEvaluated) {}

    private static Page page(PolicyDocument doc, Map<String, List<RuleCoverage>> rules,
            Map<String, List<BranchCoverage>> branches) {
        StringBuilder body = new StringBuilder();
        long seen = 0;
        long outcomes = 0;
        long counted = 0;
        long evaluated = 0;
        for (SourcedPolicy sp : doc.policies()) {
            body.append("<h2>policy <code>").append(escape(sp.policy().id())).append("</code>");
            if (sp.policy().name() != null) {
                body.append(" <span class=\"muted\">").append(escape(sp.policy().name())).append("</span>");
            }
            body.append("</h2>\n");
            List<Rule> list = sp.policy().rules();
            for (int i = 0; i < list.size(); i++) {
                Rule rule = list.get(i);
                RuleCoverage rc = find(rules.get(key(sp.policy().id(), rule.ruleId())), rule.condition());
                body.append("<h3><code>").append(escape(String.valueOf(rule.ruleId()))).append("</code> ")
                        .append(escape(String.valueOf(rule.effect()))).append(" <span class=\"muted\">")
                        .append(escape(String.valueOf(rule.triggerAction()))).append(" · ")
                        .append(escape(where(doc, sp, i, 1, 1))).append("</span></h3>\n");
                if (rc == null) {
                    body.append("<p class=\"muted\">not counted: a disabled rule, a policy that is not active, or a "
                            + "condition that does not compile</p>\n");
                    if (rule.condition() != null) {
                        body.append("<pre>").append(escape(rule.condition())).append("</pre>\n");
                    }
                    continue;
                }
                counted++;
                if (rc.evaluated() > 0) {
                    evaluated++;
                }
                List<BranchCoverage> bs = branches.getOrDefault(key(rc.policyId(), rc.ruleId()), List.of()).stream()
                        .filter(b -> b.action() == rc.action()).toList();
                for (BranchCoverage b : bs) {
                    seen += b.outcomesSeen();
                    outcomes += 2;
                }
                body.append("<p>evaluated ").append(rc.evaluated()).append(" · true ").append(rc.trueCount())
                        .append(" · false ").append(rc.falseCount()).append(" · error ").append(rc.errorCount())
                        .append("</p>\n<pre>").append(marked(rc.condition(), bs)).append("</pre>\n");
                if (!bs.isEmpty()) {
                    body.append("<table><tr><th>at</th><th>branch</th><th>true</th><th>false</th><th>seen</th></tr>\n");
                    for (BranchCoverage b : bs) {
                        body.append("<tr><td>").append(escape(where(doc, sp, i, b.line(), b.column())))
                                .append("</td><td><code>").append(escape(b.text())).append("</code></td><td class=\"n\">")
                                .append(b.trueCount()).append("</td><td class=\"n\">").append(b.falseCount())
                                .append("</td><td><span class=\"").append(kind(b)).append("\">").append(label(b))
                                .append("</span></td></tr>\n");
                    }
                    body.append("</table>\n");
                }
            }
        }
        String html = head("coverage: " + doc.file()) + "<h1>" + escape(doc.file()) + "</h1>\n<p>" + seen + " of "
                + outcomes + " branch outcomes seen (" + CoverageFiles.percent(seen, outcomes) + " %); " + evaluated
                + " of " + counted + " rules evaluated · <a href=\"index.html\">all files</a></p>\n" + legend()
                + body + "</body></html>\n";
        return new Page(html, seen, outcomes, counted, evaluated);
    }

    /** The counts of the rule with this condition (two workspaces' files may reuse ids), or null. */
    private static RuleCoverage find(List<RuleCoverage> candidates, String condition) {
        if (candidates == null) {
            return null;
        }
        return candidates.stream().filter(r -> r.condition().equals(condition)).findFirst().orElse(null);
    }

    /**
     * The condition with each branch wrapped in a span, nested as the branches are; a branch that would cross
     * the end of the one around it is cut there, so the markup always nests.
     */
    static String marked(String condition, List<BranchCoverage> branches) {
        int[] cps = condition.codePoints().toArray();
        List<BranchCoverage> sorted = new ArrayList<>(branches);
        sorted.sort(Comparator.comparingInt(BranchCoverage::offset)
                .thenComparing(Comparator.comparingInt(BranchCoverage::length).reversed()));
        StringBuilder out = new StringBuilder();
        ArrayDeque<Integer> ends = new ArrayDeque<>();
        int next = 0;
        for (int i = 0; i <= cps.length; i++) {
            while (!ends.isEmpty() && ends.peek() <= i) {
                ends.pop();
                out.append("</span>");
            }
            while (next < sorted.size() && sorted.get(next).offset() <= i) {
                BranchCoverage b = sorted.get(next++);
                int end = Math.min(b.offset() + b.length(), ends.isEmpty() ? cps.length : ends.peek());
                if (b.offset() < i || end <= i) {
                    continue;
                }
                out.append("<span class=\"b ").append(kind(b)).append("\" title=\"").append(escape(
                        "line " + b.line() + ", column " + b.column() + ": " + label(b) + " (true " + b.trueCount()
                                + ", false " + b.falseCount() + ")")).append("\">");
                ends.push(end);
            }
            if (i < cps.length) {
                escape(out, new String(cps, i, 1));
            }
        }
        while (!ends.isEmpty()) {
            ends.pop();
            out.append("</span>");
        }
        return out.toString();
    }

    private static String kind(BranchCoverage b) {
        return b.trueCount() > 0 ? (b.falseCount() > 0 ? "both" : "t") : (b.falseCount() > 0 ? "f" : "never");
    }

    private static String label(BranchCoverage b) {
        return switch (kind(b)) {
            case "both" -> "seen true and false";
            case "t" -> "seen true only";
            case "f" -> "seen false only";
            default -> "never seen";
        };
    }

    private static String legend() {
        return "<p class=\"legend\"><span class=\"b both\">seen true and false</span><span class=\"b t\">seen true "
                + "only</span><span class=\"b f\">seen false only</span><span class=\"b never\">never seen</span></p>\n";
    }

    /** file:line:column of a position inside rule {@code index}'s condition, through escapes and block scalars. */
    private static String where(PolicyDocument doc, SourcedPolicy sp, int index, int line, int column) {
        Diagnostic at = Diagnostic.error(DiagnosticCode.SYNTAX_ERROR, "-", null, line, column)
                .withPointer("/rules/" + index + "/condition");
        Finding f = doc.locate(sp, at);
        return f.file() + ":" + f.line() + ":" + f.column();
    }

    private static String head(String title) {
        return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<meta name=\"viewport\" content=\"width=device-width\"><title>" + escape(title)
                + "</title><style>" + STYLE + "</style></head><body>\n";
    }

    /** A file name for a policy file's page: its path with every other character than [A-Za-z0-9._-] as `_`. */
    private static String pageName(String file, Set<String> taken) {
        String base = file.replaceAll("[^A-Za-z0-9._-]", "_");
        String name = base + ".html";
        for (int n = 2; !taken.add(name.toLowerCase(Locale.ROOT)); n++) {
            name = base + "-" + n + ".html";
        }
        return name;
    }

    private static String key(String policyId, String ruleId) {
        return policyId + "\u0000" + ruleId;
    }

    static String escape(String s) {
        StringBuilder out = new StringBuilder(s.length() + 16);
        escape(out, s);
        return out.toString();
    }

    private static void escape(StringBuilder out, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
    }
}
