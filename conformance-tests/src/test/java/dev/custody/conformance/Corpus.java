package dev.custody.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.NodeId;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.representer.Representer;
import org.yaml.snakeyaml.resolver.Resolver;
import org.yaml.snakeyaml.DumperOptions;

/**
 * Loads the case files under {@code cases/} on the test class path (see {@code conformance-tests/README.md}
 * for the format) into typed {@link ConformanceCase}s.
 *
 * <p>Loading is strict, because a typo in a case must not turn it into a case that asserts nothing: an
 * unknown key anywhere in a case or its expectation, a missing {@code spec}, a duplicate case name, a
 * decision expectation without the attribution it implies, or an unknown generator fails the load.
 *
 * <p>YAML is read with two deviations from YAML 1.1 that case authors would otherwise trip on: timestamps
 * stay strings ({@code at: 2026-11-03T14:05:00Z} is the text the action carries), and only
 * {@code true}/{@code false} are booleans ({@code no} stays a string).
 */
final class Corpus {
    private static final Pattern CASE_NAME = Pattern.compile("[a-z0-9][a-z0-9-]*");
    private static final Set<String> FILE_KEYS = Set.of("fixtures", "cases");
    private static final Set<String> COMMON_KEYS = Set.of("name", "spec", "note");
    private static final Set<String> DECISION_KEYS = Set.of("policies", "action", "now", "budget_ms", "cost_limit",
            "expect");
    private static final Set<String> DECISION_EXPECT_KEYS =
            Set.of("decision", "fail_closed", "failure", "rule_id", "policy_id", "reason", "error", "error_contains");
    private static final Set<String> FAILURES =
            Set.of("load", "compile", "malformed_action", "rule_error", "cost_budget", "time_budget", "ledger",
                    "internal");
    private static final Set<String> VALIDATE_KEYS = Set.of("trigger_action", "condition", "effect");
    private static final Set<String> UPDATE_KEYS = Set.of("existing", "update");
    private static final Set<String> DIAGNOSTICS_EXPECT_KEYS = Set.of("valid", "diagnostics");
    private static final Set<String> DIAGNOSTIC_KEYS = Set.of("code", "severity", "pointer", "line", "column", "message",
            "message_contains", "hint_contains");
    private static final Set<String> DECISIONS = Set.of("ALLOW", "DENY", "NO_MATCH");

    /**
     * The wall-clock backstop of a case that does not set one. Cases pin semantics, not latency: a loaded
     * machine (or a CLI's fresh JVM) must not time out a case that pins something else. The backstop itself is
     * pinned by the cases that set {@code budget_ms} (a number, or {@code default} for the subject's default);
     * the cost limit, which decides the same on every machine, by those that set {@code cost_limit} (a number,
     * or {@code unlimited}; absent: the subject's default).
     */
    static final Duration PATIENT_BUDGET = Duration.ofSeconds(10);

    private Corpus() {}

    /** Every case of every file under {@code cases/}, files in name order, cases in file order. */
    static List<ConformanceCase> load() {
        Path dir = casesDirectory();
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".yaml")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (files.isEmpty()) {
            throw new IllegalStateException("no case files under " + dir);
        }
        List<ConformanceCase> all = new ArrayList<>();
        for (Path f : files) {
            all.addAll(loadFile(f));
        }
        return all;
    }

    private static Path casesDirectory() {
        URL url = Corpus.class.getClassLoader().getResource("cases");
        if (url == null) {
            throw new IllegalStateException("`cases/` is not on the test class path");
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<ConformanceCase> loadFile(Path path) {
        String fileName = path.getFileName().toString();
        String file = fileName.substring(0, fileName.length() - ".yaml".length());
        String text;
        try {
            text = Files.readString(path, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Object root = yaml().load(text);
        Map<String, Object> top = map(root, fileName);
        keys(top, FILE_KEYS, Set.of("cases"), fileName);
        List<Object> cases = list(top.get("cases"), fileName + ": cases");
        List<ConformanceCase> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < cases.size(); i++) {
            String where = fileName + ": case " + (i + 1);
            Map<String, Object> c = map(Generators.expand(cases.get(i), where), where);
            String name = string(c.get("name"), where + ": name");
            where = fileName + ": case `" + name + "`";
            if (!CASE_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(where + ": a name is lowercase letters, digits and dashes");
            }
            if (!names.add(name)) {
                throw new IllegalArgumentException(where + ": duplicate case name");
            }
            String spec = string(c.get("spec"), where + ": spec");
            if (spec.isBlank()) {
                throw new IllegalArgumentException(where + ": spec is blank");
            }
            out.add(parseCase(file, name, spec, c, where));
        }
        return out;
    }

    private static ConformanceCase parseCase(String file, String name, String spec, Map<String, Object> c,
            String where) {
        if (c.containsKey("validate")) {
            keys(c, union(COMMON_KEYS, Set.of("validate", "expect")), Set.of("name", "spec", "validate", "expect"), where);
            Map<String, Object> v = map(c.get("validate"), where + ": validate");
            keys(v, VALIDATE_KEYS, Set.of("condition"), where + ": validate");
            return new ConformanceCase.Validate(file, name, spec, nullableString(v.get("trigger_action"), where),
                    nullableString(v.get("condition"), where), nullableString(v.get("effect"), where),
                    diagnosticsExpect(c.get("expect"), where));
        }
        if (c.containsKey("policy")) {
            keys(c, union(COMMON_KEYS, Set.of("policy", "expect")), Set.of("name", "spec", "policy", "expect"), where);
            return new ConformanceCase.PolicyCheck(file, name, spec, map(c.get("policy"), where + ": policy"),
                    diagnosticsExpect(c.get("expect"), where));
        }
        if (c.containsKey("rule_update")) {
            keys(c, union(COMMON_KEYS, Set.of("rule_update", "expect")), Set.of("name", "spec", "rule_update", "expect"),
                    where);
            Map<String, Object> u = map(c.get("rule_update"), where + ": rule_update");
            keys(u, UPDATE_KEYS, UPDATE_KEYS, where + ": rule_update");
            return new ConformanceCase.RuleUpdateCheck(file, name, spec,
                    map(u.get("existing"), where + ": existing"), map(u.get("update"), where + ": update"),
                    diagnosticsExpect(c.get("expect"), where));
        }
        keys(c, union(COMMON_KEYS, DECISION_KEYS), Set.of("name", "spec", "policies", "action", "expect"), where);
        List<Object> policies = list(c.get("policies"), where + ": policies");
        Object action = c.get("action");
        if (!(action instanceof Map) && !(action instanceof String)) {
            throw new IllegalArgumentException(where + ": action is an object (or a string of raw JSON text)");
        }
        Instant now = null;
        if (c.get("now") != null) {
            try {
                now = Instant.parse(string(c.get("now"), where + ": now"));
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException(where + ": now is not an ISO-8601 instant", e);
            }
        }
        Duration budget = PATIENT_BUDGET;
        Object b = c.get("budget_ms");
        if ("default".equals(b)) {
            budget = null;
        } else if (b != null) {
            if (!(b instanceof Number n) || n.doubleValue() <= 0) {
                throw new IllegalArgumentException(where + ": budget_ms is a positive number or `default`");
            }
            budget = Duration.ofNanos(Math.round(n.doubleValue() * 1_000_000));
        }
        Long costLimit = null;
        Object l = c.get("cost_limit");
        if ("unlimited".equals(l)) {
            costLimit = Long.MAX_VALUE;
        } else if (l != null) {
            if (!(l instanceof Number n) || n.longValue() < 1 || n.doubleValue() != n.longValue()) {
                throw new IllegalArgumentException(where + ": cost_limit is a positive whole number or `unlimited`");
            }
            costLimit = n.longValue();
        }
        return new ConformanceCase.DecisionCase(file, name, spec, policies, action, now, budget, costLimit,
                decisionExpect(c.get("expect"), where));
    }

    private static ConformanceCase.DecisionExpect decisionExpect(Object raw, String where) {
        Map<String, Object> e = map(raw, where + ": expect");
        keys(e, DECISION_EXPECT_KEYS, Set.of("decision", "fail_closed"), where + ": expect");
        String decision = string(e.get("decision"), where + ": expect.decision");
        if (!DECISIONS.contains(decision)) {
            throw new IllegalArgumentException(where + ": expect.decision is one of " + DECISIONS);
        }
        if (!(e.get("fail_closed") instanceof Boolean failClosed)) {
            throw new IllegalArgumentException(where + ": expect.fail_closed is true or false");
        }
        if (failClosed) {
            if (!decision.equals("DENY")) {
                throw new IllegalArgumentException(where + ": only a DENY can be fail_closed");
            }
            if (!e.containsKey("error") && !e.containsKey("error_contains")) {
                throw new IllegalArgumentException(where + ": a fail_closed case pins its error (error or error_contains)");
            }
            if (!(e.get("failure") instanceof String kind && FAILURES.contains(kind))) {
                throw new IllegalArgumentException(where + ": a fail_closed case pins its failure kind, one of " + FAILURES);
            }
        } else {
            if (e.containsKey("error") || e.containsKey("error_contains") || e.containsKey("failure")) {
                throw new IllegalArgumentException(where + ": only a fail_closed decision has an error and a failure");
            }
            if (!decision.equals("NO_MATCH") && !(e.containsKey("rule_id") && e.containsKey("policy_id"))) {
                throw new IllegalArgumentException(where + ": an ALLOW or DENY by a rule pins rule_id and policy_id");
            }
            if (decision.equals("NO_MATCH") && (e.containsKey("rule_id") || e.containsKey("policy_id")
                    || e.containsKey("reason"))) {
                throw new IllegalArgumentException(where + ": a NO_MATCH has no attribution to expect");
            }
        }
        List<String> contains = new ArrayList<>();
        Object ec = e.get("error_contains");
        if (ec instanceof String s) {
            contains.add(s);
        } else if (ec instanceof List<?> l) {
            for (Object o : l) {
                contains.add(string(o, where + ": expect.error_contains"));
            }
        } else if (ec != null) {
            throw new IllegalArgumentException(where + ": expect.error_contains is a string or a list of strings");
        }
        return new ConformanceCase.DecisionExpect(decision, failClosed, (String) e.get("failure"), optional(e, "rule_id", where),
                optional(e, "policy_id", where), optional(e, "reason", where), optional(e, "error", where),
                List.copyOf(contains));
    }

    private static ConformanceCase.Expected optional(Map<String, Object> e, String key, String where) {
        if (!e.containsKey(key)) {
            return ConformanceCase.Expected.UNCHECKED;
        }
        return new ConformanceCase.Expected(true, nullableString(e.get(key), where + ": expect." + key));
    }

    private static ConformanceCase.DiagnosticsExpect diagnosticsExpect(Object raw, String where) {
        Map<String, Object> e = map(raw, where + ": expect");
        keys(e, DIAGNOSTICS_EXPECT_KEYS, DIAGNOSTICS_EXPECT_KEYS, where + ": expect");
        if (!(e.get("valid") instanceof Boolean valid)) {
            throw new IllegalArgumentException(where + ": expect.valid is true or false");
        }
        List<ConformanceCase.DiagnosticExpect> diagnostics = new ArrayList<>();
        for (Object o : list(e.get("diagnostics"), where + ": expect.diagnostics")) {
            Map<String, Object> d = map(o, where + ": a diagnostic");
            keys(d, DIAGNOSTIC_KEYS, Set.of("code", "severity"), where + ": a diagnostic");
            String severity = string(d.get("severity"), where + ": severity");
            if (!severity.equals("error") && !severity.equals("warning")) {
                throw new IllegalArgumentException(where + ": severity is error or warning");
            }
            diagnostics.add(new ConformanceCase.DiagnosticExpect(string(d.get("code"), where + ": code"), severity,
                    d.containsKey("pointer") ? string(d.get("pointer"), where + ": pointer") : null,
                    integer(d.get("line"), where), integer(d.get("column"), where),
                    d.containsKey("message") ? string(d.get("message"), where + ": message") : null,
                    d.containsKey("message_contains") ? string(d.get("message_contains"), where) : null,
                    d.containsKey("hint_contains") ? string(d.get("hint_contains"), where) : null));
        }
        if (!valid && diagnostics.stream().noneMatch(d -> d.severity().equals("error"))) {
            throw new IllegalArgumentException(where + ": an invalid result expects at least one error");
        }
        return new ConformanceCase.DiagnosticsExpect(valid, List.copyOf(diagnostics));
    }

    private static Yaml yaml() {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setCodePointLimit(8 * 1024 * 1024);
        options.setMaxAliasesForCollections(1000); // fixtures are reused by alias in every case
        DumperOptions dump = new DumperOptions();
        return new Yaml(new SafeConstructor(options), new Representer(dump), dump, options, new CaseResolver());
    }

    /** YAML 1.1 resolution minus timestamps and the yes/no/on/off booleans. */
    private static final class CaseResolver extends Resolver {
        @Override
        public Tag resolve(NodeId kind, String value, boolean implicit) {
            Tag tag = super.resolve(kind, value, implicit);
            if (tag.equals(Tag.TIMESTAMP)) {
                return Tag.STR;
            }
            if (tag.equals(Tag.BOOL) && !value.toLowerCase(Locale.ROOT).matches("true|false")) {
                return Tag.STR;
            }
            return tag;
        }
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> s = new HashSet<>(a);
        s.addAll(b);
        return s;
    }

    private static void keys(Map<String, Object> m, Set<String> allowed, Set<String> required, String where) {
        for (String k : m.keySet()) {
            if (!allowed.contains(k)) {
                throw new IllegalArgumentException(where + ": unknown key `" + k + "` (allowed: " + allowed + ")");
            }
        }
        for (String k : required) {
            if (!m.containsKey(k)) {
                throw new IllegalArgumentException(where + ": missing key `" + k + "`");
            }
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o, String where) {
        if (!(o instanceof Map<?, ?> m)) {
            throw new IllegalArgumentException(where + ": expected a mapping");
        }
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : m.entrySet()) {
            if (!(e.getKey() instanceof String k)) {
                throw new IllegalArgumentException(where + ": keys are strings, got " + e.getKey());
            }
            out.put(k, e.getValue());
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o, String where) {
        if (!(o instanceof List<?> l)) {
            throw new IllegalArgumentException(where + ": expected a list");
        }
        return (List<Object>) l;
    }

    static String string(Object o, String where) {
        if (!(o instanceof String s)) {
            throw new IllegalArgumentException(where + ": expected a string, got " + o);
        }
        return s;
    }

    private static String nullableString(Object o, String where) {
        return o == null ? null : string(o, where);
    }

    private static Integer integer(Object o, String where) {
        if (o == null) {
            return null;
        }
        if (!(o instanceof Integer i)) {
            throw new IllegalArgumentException(where + ": line and column are whole numbers");
        }
        return i;
    }
}
