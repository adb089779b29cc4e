package dev.custody.cli.command;

import dev.custody.engine.files.DocumentException;
import dev.custody.engine.files.DocumentParser;
import dev.custody.engine.files.SourceNode;
import dev.custody.engine.Outcome;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.ActionReader;
import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.files.PolicyFiles;
import dev.custody.engine.files.PolicyReader;
import dev.custody.engine.text.Suggestions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A policy test file ({@code *.test.yaml|yml|json}), read: its policies, its {@code now}, and its cases.
 *
 * <pre>
 * policies:                     # paths relative to this file (files or directories), or inline policy objects
 *   - ../treasury-limits.yaml
 * now: 2026-11-03T14:00:00Z      # optional: the instant for actions without `at`
 * cases:
 *   - name: a large withdrawal is denied
 *     now: 2026-11-07T23:00:00Z  # optional, overrides the file's
 *     action: {action: withdrawal.create, wallet_id: …, withdrawal: {value_usd: 300000, …}}
 *     expect: {decision: DENY, rule_id: treasury-limits#0}   # policy_id and fail_closed are optional too
 * </pre>
 *
 * Every problem of the file itself (malformed YAML, an unknown key, a missing field, a policy path that does
 * not exist) is a {@link Problem} at its line and column; a case whose action cannot be read keeps the reason
 * and fails when run. Immutable. Public for the language server ({@code custody lsp}), which reports a test
 * file's {@link #problems problems} as diagnostics while it is edited.
 */
public final class PolicyTestFile {
    private static final Set<String> FILE_KEYS = Set.of("policies", "now", "cases");
    private static final Set<String> CASE_KEYS = Set.of("name", "now", "action", "expect");
    private static final Set<String> EXPECT_KEYS = Set.of("decision", "rule_id", "policy_id", "fail_closed");

    /**
     * A problem of the file at a 1-based line and column (0 when unknown). Immutable.
     *
     * @param file the file name as given
     * @param line 1-based line, or 0
     * @param column 1-based column, or 0
     * @param message one-line message
     */
    public record Problem(String file, int line, int column, String message) {
        String oneLine() {
            return file + (line > 0 ? ":" + line + ":" + column : "") + ": error: " + message;
        }
    }

    /** What a case expects; null fields are not checked. */
    record Expectation(Outcome decision, String ruleId, String policyId, Boolean failClosed) {
        String describe() {
            StringBuilder s = new StringBuilder(decision.name());
            if (ruleId != null) {
                s.append(" by rule `").append(ruleId).append('`');
            }
            if (policyId != null) {
                s.append(ruleId != null ? " of" : " by").append(" policy `").append(policyId).append('`');
            }
            if (failClosed != null) {
                s.append(failClosed ? " (fail-closed)" : " (not fail-closed)");
            }
            return s.toString();
        }
    }

    /**
     * One case.
     *
     * @param action the action, or null when it could not be read ({@code actionError} says why)
     */
    record Case(String name, int line, Instant now, Action action, String actionError, Expectation expect) {}

    private final String file;
    private final List<Problem> problems;
    private final List<PolicyDocument> policies;
    private final Instant now;
    private final List<Case> cases;

    private PolicyTestFile(String file, List<Problem> problems, List<PolicyDocument> policies, Instant now,
            List<Case> cases) {
        this.file = file;
        this.problems = List.copyOf(problems);
        this.policies = List.copyOf(policies);
        this.now = now;
        this.cases = List.copyOf(cases);
    }

    String file() {
        return file;
    }

    List<Problem> problems() {
        return problems;
    }

    List<PolicyDocument> policies() {
        return policies;
    }

    Instant now() {
        return now;
    }

    List<Case> cases() {
        return cases;
    }

    /** The test files under the given paths: directories searched recursively, files taken as named. */
    static List<Path> discover(List<Path> paths) throws IOException {
        List<Path> out = new ArrayList<>();
        for (Path p : paths) {
            if (!Files.exists(p)) {
                throw new NoSuchFileException(p.toString());
            }
            if (Files.isDirectory(p)) {
                try (var walk = Files.walk(p)) {
                    walk.filter(Files::isRegularFile)
                            .filter(f -> PolicyFiles.isTestFile(f.getFileName().toString()))
                            .forEach(out::add);
                }
            } else {
                out.add(p);
            }
        }
        return out.stream().map(Path::normalize).distinct().sorted().toList();
    }

    /** Reads a test file; problems are collected, only an unreadable file throws. */
    static PolicyTestFile read(Path path) throws IOException {
        String name = path.toString();
        String text = Inputs.decode(Files.readAllBytes(path), "`" + name + "`");
        return parse(text, name, path.toAbsolutePath().getParent());
    }

    /**
     * The problems of a test file's text, as {@code custody test} reports them before running its cases: what
     * the language server shows for an unsaved buffer. Policy paths are resolved against {@code dir}.
     */
    public static List<Problem> problems(String text, String name, Path dir) {
        return parse(text, name, dir).problems();
    }

    private static PolicyTestFile parse(String text, String name, Path dir) {
        Reader r = new Reader(name, dir);
        SourceNode root;
        try {
            root = DocumentParser.parse(text, name);
        } catch (DocumentException e) {
            r.problem(e.line(), e.column(), e.getMessage());
            return r.result();
        }
        r.file(root);
        return r.result();
    }

    private static final class Reader {
        private final String file;
        private final Path dir;
        private final List<Problem> problems = new ArrayList<>();
        private final List<PolicyDocument> policies = new ArrayList<>();
        private final List<Case> cases = new ArrayList<>();
        private Instant now;

        Reader(String file, Path dir) {
            this.file = file;
            this.dir = dir;
        }

        PolicyTestFile result() {
            return new PolicyTestFile(file, problems, policies, now, cases);
        }

        void problem(int line, int column, String message) {
            problems.add(new Problem(file, line, column, message));
        }

        void problem(SourceNode at, String message) {
            problem(at.line(), at.column(), message);
        }

        void file(SourceNode root) {
            if (!(root instanceof SourceNode.ObjectNode o)) {
                problem(root, "a policy test file must be an object with `policies` and `cases`");
                return;
            }
            unknownKeys(o, FILE_KEYS, "");
            SourceNode ps = o.fields().get("policies");
            if (ps == null) {
                problem(o, "`policies` is missing");
            } else if (ps instanceof SourceNode.ArrayNode a) {
                for (int i = 0; i < a.items().size(); i++) {
                    policy(a.items().get(i), i);
                }
            } else {
                problem(ps, "`policies` must be a list of paths or policy objects, not " + ps.typeName());
            }
            now = instant(o.fields().get("now"), "now");
            SourceNode cs = o.fields().get("cases");
            if (cs == null) {
                problem(o, "`cases` is missing");
            } else if (cs instanceof SourceNode.ArrayNode a) {
                if (a.items().isEmpty()) {
                    problem(cs, "`cases` is empty");
                }
                for (int i = 0; i < a.items().size(); i++) {
                    testCase(a.items().get(i), i);
                }
            } else {
                problem(cs, "`cases` must be a list, not " + cs.typeName());
            }
        }

        private void policy(SourceNode item, int index) {
            if (item instanceof SourceNode.ScalarNode s && s.value() instanceof String path) {
                Path p = dir.resolve(path).normalize();
                if (!Files.exists(p)) {
                    problem(item, "policy path `" + path + "` does not exist (relative to the test file)");
                    return;
                }
                try {
                    List<Path> files = PolicyFiles.discover(List.of(p));
                    if (files.isEmpty()) {
                        problem(item, "no policy files under `" + path + "`");
                    }
                    for (Path f : files) {
                        policies.add(PolicyReader.read(relative(f)));
                    }
                } catch (IOException e) {
                    problem(item, "cannot read policy path `" + path + "`: " + e.getMessage());
                }
            } else if (item instanceof SourceNode.ObjectNode) {
                String json = JsonOutput.write(plain(item));
                policies.add(PolicyReader.parse(json, "inline-" + index + ".json"));
            } else {
                problem(item, "a policy must be a path or a policy object, not " + item.typeName());
            }
        }

        /** A path as the user would write it: relative to the working directory when it is under it. */
        private static Path relative(Path p) {
            Path cwd = Path.of("").toAbsolutePath();
            Path abs = p.toAbsolutePath().normalize();
            return abs.startsWith(cwd) ? cwd.relativize(abs) : abs;
        }

        private void testCase(SourceNode node, int index) {
            if (!(node instanceof SourceNode.ObjectNode o)) {
                problem(node, "case " + (index + 1) + " must be an object with `name`, `action` and `expect`");
                return;
            }
            unknownKeys(o, CASE_KEYS, "case ");
            String name = string(o, "name");
            if (name == null) {
                name = "case " + (index + 1);
                if (!o.fields().containsKey("name")) {
                    problem(o, "case " + (index + 1) + " has no `name`");
                }
            }
            Instant caseNow = instant(o.fields().get("now"), "now");
            Action action = null;
            String actionError = null;
            SourceNode a = o.fields().get("action");
            if (a == null) {
                problem(o, "case `" + name + "` has no `action`");
                return;
            }
            if (a instanceof SourceNode.ObjectNode) {
                @SuppressWarnings("unchecked")
                Map<String, Object> map = (Map<String, Object>) plain(a);
                ActionReader.Result read = ActionReader.fromMap(map);
                if (read instanceof ActionReader.Read ok) {
                    action = ok.action();
                } else {
                    actionError = ((ActionReader.Malformed) read).message();
                }
            } else {
                problem(a, "`action` of case `" + name + "` must be an object, not " + a.typeName());
                return;
            }
            Expectation expect = expectation(o.fields().get("expect"), o, name);
            if (expect != null) {
                cases.add(new Case(name, o.line(), caseNow, action, actionError, expect));
            }
        }

        private Expectation expectation(SourceNode node, SourceNode.ObjectNode owner, String name) {
            if (node == null) {
                problem(owner, "case `" + name + "` has no `expect`");
                return null;
            }
            if (!(node instanceof SourceNode.ObjectNode o)) {
                problem(node, "`expect` of case `" + name + "` must be an object such as `{decision: DENY}`");
                return null;
            }
            unknownKeys(o, EXPECT_KEYS, "expect ");
            String decision = string(o, "decision");
            Outcome outcome = null;
            for (Outcome x : Outcome.values()) {
                if (x.name().equals(decision)) {
                    outcome = x;
                }
            }
            if (outcome == null) {
                SourceNode at = o.fields().getOrDefault("decision", o);
                problem(at, decision == null ? "`expect` of case `" + name + "` has no `decision`"
                        : "unknown decision `" + decision + "`; decisions: ALLOW, DENY, NO_MATCH");
                return null;
            }
            Boolean failClosed = null;
            SourceNode fc = o.fields().get("fail_closed");
            if (fc instanceof SourceNode.ScalarNode s && s.value() instanceof Boolean b) {
                failClosed = b;
            } else if (fc != null) {
                problem(fc, "`fail_closed` must be true or false");
            }
            return new Expectation(outcome, string(o, "rule_id"), string(o, "policy_id"), failClosed);
        }

        private String string(SourceNode.ObjectNode o, String key) {
            SourceNode n = o.fields().get(key);
            if (n == null) {
                return null;
            }
            if (n instanceof SourceNode.ScalarNode s && s.value() instanceof String str) {
                return str;
            }
            problem(n, "`" + key + "` must be a string, not " + n.typeName());
            return null;
        }

        private Instant instant(SourceNode n, String key) {
            if (n == null) {
                return null;
            }
            if (n instanceof SourceNode.ScalarNode s && s.value() instanceof String str) {
                try {
                    return Instant.parse(str);
                } catch (DateTimeParseException e) {
                    problem(n, "`" + key + "` `" + str + "` is not an ISO-8601 instant such as `2026-11-02T14:05:00Z`");
                    return null;
                }
            }
            problem(n, "`" + key + "` must be an ISO-8601 instant string such as `2026-11-02T14:05:00Z`");
            return null;
        }

        private void unknownKeys(SourceNode.ObjectNode o, Set<String> known, String what) {
            for (Map.Entry<String, SourceNode.ScalarNode> k : o.keys().entrySet()) {
                if (!known.contains(k.getKey())) {
                    String hint = Suggestions.closest(k.getKey(), known).map(s -> " (did you mean `" + s + "`?)")
                            .orElse("");
                    problem(k.getValue(), "unknown " + what + "property `" + k.getKey() + "`" + hint);
                }
            }
        }
    }

    /** A source node as plain Java values: maps, lists, strings, numbers, booleans, null. */
    static Object plain(SourceNode node) {
        if (node instanceof SourceNode.ObjectNode o) {
            Map<String, Object> m = new LinkedHashMap<>();
            o.fields().forEach((k, v) -> m.put(k, plain(v)));
            return m;
        }
        if (node instanceof SourceNode.ArrayNode a) {
            List<Object> l = new ArrayList<>();
            a.items().forEach(i -> l.add(plain(i)));
            return l;
        }
        return ((SourceNode.ScalarNode) node).value();
    }
}
