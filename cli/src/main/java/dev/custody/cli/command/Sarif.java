package dev.custody.cli.command;

import dev.custody.cli.VersionProvider;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.files.Finding;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Lint findings as a SARIF 2.1.0 log (what GitHub code scanning and most CI viewers read): one run whose
 * {@code tool.driver.rules} are the diagnostic codes that occur (id = the code, e.g. {@code unknown_field}),
 * and one result per finding with its {@code ruleId}, {@code ruleIndex}, {@code level}, message and physical
 * location (the file as a relative URI with forward slashes, and the 1-based line and column).
 */
final class Sarif {
    static final String SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";

    private Sarif() {}

    /** One SARIF result: a finding of rule {@code ruleId} at file:line:column (line 0 when unknown). */
    record Result(String ruleId, String level, String message, String file, int line, int column,
            Map<String, Object> properties) {}

    static Map<String, Object> report(List<LintCommand.LintedFile> files) {
        Map<String, String> descriptions = new TreeMap<>();
        List<Result> results = new ArrayList<>();
        for (LintCommand.LintedFile f : files) {
            for (Finding x : f.findings()) {
                Diagnostic d = x.diagnostic();
                descriptions.put(d.code().id(), Diagnostics.describe(d.code()));
                results.add(new Result(d.code().id(), d.isError() ? "error" : "warning",
                        d.message() + (d.hint() == null ? "" : " (hint: " + d.hint() + ")"), x.file(), x.line(),
                        x.column(), x.pointer().isEmpty() ? Map.of() : Map.of("pointer", x.pointer())));
            }
        }
        return log(descriptions, results);
    }

    /**
     * A SARIF log of one run of {@code custody}: {@code tool.driver.rules} are the rule ids of {@code descriptions}
     * (sorted), each result points at its rule by id and index.
     */
    static Map<String, Object> log(Map<String, String> descriptions, List<Result> found) {
        List<Object> rules = new ArrayList<>();
        Map<String, Integer> index = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : new TreeMap<>(descriptions).entrySet()) {
            index.put(e.getKey(), rules.size());
            Map<String, Object> rule = new LinkedHashMap<>();
            rule.put("id", e.getKey());
            rule.put("shortDescription", Map.of("text", e.getValue()));
            rules.add(rule);
        }
        List<Object> results = new ArrayList<>();
        for (Result x : found) {
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("ruleId", x.ruleId());
            result.put("ruleIndex", index.get(x.ruleId()));
            result.put("level", x.level());
            result.put("message", Map.of("text", x.message()));
            Map<String, Object> physical = new LinkedHashMap<>();
            physical.put("artifactLocation", Map.of("uri", uri(x.file())));
            if (x.line() > 0) {
                Map<String, Object> region = new LinkedHashMap<>();
                region.put("startLine", x.line());
                region.put("startColumn", Math.max(1, x.column()));
                physical.put("region", region);
            }
            result.put("locations", List.of(Map.of("physicalLocation", physical)));
            if (!x.properties().isEmpty()) {
                result.put("properties", x.properties());
            }
            results.add(result);
        }
        Map<String, Object> driver = new LinkedHashMap<>();
        driver.put("name", "custody");
        driver.put("version", VersionProvider.version());
        driver.put("rules", rules);
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("tool", Map.of("driver", driver));
        run.put("columnKind", "utf16CodeUnits");
        run.put("results", results);
        Map<String, Object> log = new LinkedHashMap<>();
        log.put("$schema", SCHEMA);
        log.put("version", "2.1.0");
        log.put("runs", List.of(run));
        return log;
    }

    /** A relative path as a relative URI reference (forward slashes, percent-encoded); an absolute one as a file URI. */
    static String uri(String file) {
        Path p = Path.of(file);
        if (p.isAbsolute()) {
            return p.toUri().toString();
        }
        StringBuilder s = new StringBuilder();
        for (String part : file.replace(File.separatorChar, '/').split("/", -1)) {
            if (s.length() > 0) {
                s.append('/');
            }
            s.append(java.net.URLEncoder.encode(part, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20"));
        }
        return s.toString();
    }
}
