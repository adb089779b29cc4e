package dev.custody.cli.command;

import dev.custody.engine.compile.CostMeter;
import dev.custody.cli.CliException;
import dev.custody.cli.Converters;
import dev.custody.cli.Compilers;
import dev.custody.cli.CliRoot;
import dev.custody.cli.DebugOption;
import dev.custody.cli.ExitCode;
import dev.custody.cli.Style;
import dev.custody.cli.VersionProvider;
import dev.custody.engine.files.FilePolicySource;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.EngineObserver;
import dev.custody.engine.coverage.CoverageRecorder;
import dev.custody.engine.policy.BundleError;
import dev.custody.engine.payload.Action;
import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.files.SourcedPolicy;
import java.util.Collections;
import java.util.IdentityHashMap;
import dev.custody.engine.Decision;
import dev.custody.engine.TraceEntry;
import dev.custody.engine.validate.PolicyValidator;
import dev.custody.engine.files.DocumentSelection;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.validate.PolicyValidator;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.schema.PolicyStatus;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code custody test}: runs policy test files ({@link PolicyTestFile}). Each case's action is decided
 * against the file's policies exactly as {@code replay} would (one bundle per workspace, fail-closed) and
 * compared with its {@code expect}. Reports pass/fail per case, problems of the files themselves, and a
 * coverage line naming the rules the engine evaluates (engine-core's rule selection: enabled rules of active
 * policies, in workspaces whose policies compile) that never evaluated to true in any case. Exit 1
 * when a case fails or a file has problems (including policies that do not load or compile), or when branch
 * coverage ({@code --coverage…}, docs/design.md §5.3) is below {@code --coverage-threshold}.
 */
@Command(name = "test",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {"Run policy test files (*.test.yaml, *.test.yml, *.test.json).",
            "Each case's action is decided as replay would and compared with its `expect`."},
        footerHeading = "%nExamples:%n",
        footer = {
            "  custody test policies/tests/",
            "  custody test --format junit policies/tests/ > policy-tests.xml",
            "  custody test policies/tests/ --coverage coverage.json \\",
            "      --coverage-html coverage/ --coverage-threshold 80",
            "",
            "A test file:",
            "  policies: [../limits.yaml]  # relative to the test file, or inline policies",
            "  now: 2026-11-03T14:00:00Z   # optional: instant for actions without `at`",
            "  cases:",
            "    - name: a large withdrawal is denied",
            "      action: {action: withdrawal.create, wallet_id: ...,",
            "               withdrawal: {value_usd: 300000, ...}}",
            "      expect: {decision: DENY, rule_id: single-cap}  # also policy_id,",
            "                                                     # fail_closed",
        })
public final class TestCommand implements Callable<Integer> {

    /** Output formats. */
    enum Format { text, json, junit }

    @ParentCommand
    CliRoot root;

    @Mixin
    DebugOption debug;

    @Spec
    CommandSpec spec;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text",
            description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    Format format;

    @Option(names = "--cost-limit", paramLabel = "UNITS", defaultValue = "" + CostMeter.DEFAULT_LIMIT,
            converter = Converters.CostLimitConverter.class,
            description = "Cost limit of one evaluation, in units (default: ${DEFAULT-VALUE}); past it the decision is DENY, failure cost_budget.")
    long costLimit;

    @Option(names = "--time-budget", paramLabel = "DURATION", defaultValue = "1s",
            converter = Converters.DurationConverter.class,
            description = "Wall-clock backstop of one evaluation (default: ${DEFAULT-VALUE}).")
    Duration timeBudget;

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "Test files, or directories searched for them.")
    List<Path> paths;

    @Mixin
    CoverageOptions coverage;

    /** Counts coverage over every file's cases when {@code --coverage…} is given, else null. */
    private CoverageRecorder recorder;
    /** The policy files the cases ran against, each once, in the order first met (for the HTML pages). */
    private final Map<String, PolicyDocument> documents = new LinkedHashMap<>();

    /** The outcome of one case. */
    record CaseResult(PolicyTestFile.Case testCase, Decision actual, String failure, long nanos) {
        boolean passed() {
            return failure == null;
        }
    }

    /** The outcome of one file: its problems (which fail it) and its cases. */
    record FileResult(String file, List<PolicyTestFile.Problem> problems, List<CaseResult> cases, long nanos) {}

    /** A rule of the tested policies, for coverage. */
    record RuleRef(String policyId, String ruleId) {}

    @Override
    public Integer call() throws Exception {
        List<Path> files = PolicyTestFile.discover(paths);
        if (files.isEmpty()) {
            throw CliException.input("no policy test files (*.test.yaml, *.test.yml, *.test.json) under the given paths");
        }
        coverage.checkWritable();
        recorder = coverage.recorder();
        PolicyValidator validator = new PolicyValidator(Compilers.shared());
        List<FileResult> results = new ArrayList<>();
        Set<RuleRef> rules = new LinkedHashSet<>();
        Set<RuleRef> matched = new LinkedHashSet<>();
        for (Path f : files) {
            results.add(run(PolicyTestFile.read(f), validator, rules, matched));
        }
        List<RuleRef> never = rules.stream().filter(r -> !matched.contains(r)).toList();
        int cases = 0;
        int failed = 0;
        int problems = 0;
        for (FileResult r : results) {
            cases += r.cases().size();
            failed += (int) r.cases().stream().filter(c -> !c.passed()).count();
            problems += r.problems().size();
        }
        PrintWriter out = spec.commandLine().getOut();
        switch (format) {
            case text -> text(out, results, cases, failed, problems, rules.size(), never, root.style());
            case json -> out.println(JsonOutput.write(json(results, cases, failed, problems, rules.size(), never)));
            case junit -> out.print(JUnitXml.write(results));
            default -> throw new IllegalStateException(format.name());
        }
        out.flush();
        PrintWriter err = spec.commandLine().getErr();
        boolean below = recorder != null
                && CoverageFiles.finish(coverage, recorder, List.copyOf(documents.values()), err);
        err.flush();
        return failed > 0 || problems > 0 || below ? ExitCode.INPUT : ExitCode.OK;
    }

    private FileResult run(PolicyTestFile file, PolicyValidator validator, Set<RuleRef> rules, Set<RuleRef> matched) {
        long start = System.nanoTime();
        List<PolicyTestFile.Problem> problems = new ArrayList<>(file.problems());
        FilePolicySource source = FilePolicySource.of(file.policies());
        boolean unreadable = !source.readErrors().isEmpty();
        if (unreadable) {
            source.readErrors().forEach(f -> problems.add(new PolicyTestFile.Problem(f.file(), f.line(), f.column(),
                    "policy file: " + f.diagnostic().message())));
        } else {
            if (recorder != null) {
                source.documents().forEach(d -> documents.putIfAbsent(d.file(), d));
                CoverageFiles.seed(recorder, source.documents(), validator);
            }
            // the rules the engine evaluates, with its ids (`<policy>#<i>` for a rule without one)
            for (DocumentSelection.Located l : DocumentSelection.of(source.documents(), validator).rules()) {
                rules.add(new RuleRef(l.rule().policyId(), l.rule().ruleId()));
            }
        }
        // the cases decide through the engine a service embeds; compile errors are collected once per bundle
        Set<List<BundleError>> invalid = Collections.newSetFromMap(new IdentityHashMap<>());
        PolicyEngine.Builder builder = PolicyEngine.builder(source::policies);
        if (recorder != null) {
            builder.observer(new RuleObserver(recorder));
        }
        PolicyEngine engine = builder
                .timeBudget(timeBudget)
                .costLimit(costLimit)
                .observer(new EngineObserver() {
                    @Override
                    public void bundleLoaded(String workspaceId, List<BundleError> errors) {
                        if (!errors.isEmpty()) {
                            invalid.add(errors);
                        }
                    }
                    // a load failure is reported above, as the files' read errors
                })
                .build();
        List<CaseResult> results = new ArrayList<>();
        for (PolicyTestFile.Case c : file.cases()) {
            long t0 = System.nanoTime();
            if (c.action() == null) {
                results.add(new CaseResult(c, null, "action cannot be read: " + c.actionError(), System.nanoTime() - t0));
                continue;
            }
            Instant now = c.now() != null ? c.now() : file.now() != null ? file.now() : root.environment().clock().instant();
            Action action = c.action().at() == null ? c.action().withAt(now) : c.action();
            Decision d = engine.evaluate(action, true);
            for (TraceEntry t : d.trace()) {
                if (t.result() == TraceEntry.Result.TRUE) {
                    matched.add(new RuleRef(t.policyId(), t.ruleId()));
                }
            }
            results.add(new CaseResult(c, d, compare(c.expect(), d), System.nanoTime() - t0));
        }
        for (List<BundleError> errors : invalid) {
            for (BundleError e : errors) {
                problems.add(new PolicyTestFile.Problem(file.file(), 0, 0, "policies do not compile: " + source.locate(e)));
            }
        }
        return new FileResult(file.file(), problems, results, System.nanoTime() - start);
    }

    /** Null when the decision meets the expectation, else why not. */
    static String compare(PolicyTestFile.Expectation e, Decision d) {
        boolean ok = e.decision() == d.outcome()
                && (e.ruleId() == null || e.ruleId().equals(d.ruleId()))
                && (e.policyId() == null || e.policyId().equals(d.policyId()))
                && (e.failClosed() == null || e.failClosed() == d.failClosed());
        if (ok) {
            return null;
        }
        return "expected " + e.describe() + ", got " + describe(d);
    }

    static String describe(Decision d) {
        StringBuilder s = new StringBuilder(d.outcome().name());
        if (d.ruleId() != null) {
            s.append(" by rule `").append(d.ruleId()).append('`');
        }
        if (d.failClosed()) {
            s.append(" (fail-closed: ").append(d.error()).append(')');
        }
        return s.toString();
    }

    private static void text(PrintWriter out, List<FileResult> results, int cases, int failed, int problems, int rules,
            List<RuleRef> never, Style style) {
        for (FileResult r : results) {
            out.println(style.bold(r.file()));
            for (PolicyTestFile.Problem p : r.problems()) {
                out.println("  " + style.red("ERROR") + " " + p.oneLine());
            }
            for (CaseResult c : r.cases()) {
                if (c.passed()) {
                    out.println("  " + style.green("PASS") + "  " + c.testCase().name());
                } else {
                    out.println("  " + style.red("FAIL") + "  " + c.testCase().name() + "  (" + r.file() + ":"
                            + c.testCase().line() + ")");
                    out.println("        " + c.failure());
                }
            }
        }
        String line = Inputs.plural(results.size(), "file") + ", " + Inputs.plural(cases, "case") + ": "
                + (cases - failed) + " passed, " + failed + " failed";
        if (problems > 0) {
            line += ", " + Inputs.plural(problems, "file problem");
        }
        out.println(failed > 0 || problems > 0 ? style.red(line) : style.green(line));
        out.println(coverage(rules, never));
    }

    static String coverage(int rules, List<RuleRef> never) {
        String s = "coverage: " + (rules - never.size()) + " of " + Inputs.plural(rules, "rule") + " matched";
        if (never.isEmpty()) {
            return s;
        }
        List<String> ids = new ArrayList<>();
        never.forEach(r -> ids.add(r.ruleId()));
        return s + "; never matched: " + String.join(", ", ids);
    }

    private static Map<String, Object> json(List<FileResult> results, int cases, int failed, int problems, int rules,
            List<RuleRef> never) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("files", results.size());
        m.put("cases", cases);
        m.put("passed", cases - failed);
        m.put("failed", failed);
        List<Object> ps = new ArrayList<>();
        List<Object> cs = new ArrayList<>();
        for (FileResult r : results) {
            for (PolicyTestFile.Problem p : r.problems()) {
                Map<String, Object> j = new LinkedHashMap<>();
                j.put("file", p.file());
                j.put("line", p.line());
                j.put("column", p.column());
                j.put("message", p.message());
                ps.add(j);
            }
            for (CaseResult c : r.cases()) {
                Map<String, Object> j = new LinkedHashMap<>();
                j.put("file", r.file());
                j.put("name", c.testCase().name());
                j.put("line", c.testCase().line());
                j.put("passed", c.passed());
                PolicyTestFile.Expectation e = c.testCase().expect();
                Map<String, Object> exp = new LinkedHashMap<>();
                exp.put("decision", e.decision().name());
                exp.put("rule_id", e.ruleId());
                exp.put("policy_id", e.policyId());
                exp.put("fail_closed", e.failClosed());
                j.put("expected", exp);
                if (c.actual() != null) {
                    Map<String, Object> act = new LinkedHashMap<>();
                    act.put("decision", c.actual().outcome().name());
                    act.put("rule_id", c.actual().ruleId());
                    act.put("policy_id", c.actual().policyId());
                    act.put("fail_closed", c.actual().failClosed());
                    act.put("error", c.actual().error());
                    j.put("actual", act);
                } else {
                    j.put("actual", null);
                }
                j.put("message", c.failure());
                cs.add(j);
            }
        }
        m.put("problems", ps);
        m.put("results", cs);
        Map<String, Object> cov = new LinkedHashMap<>();
        cov.put("rules", rules);
        cov.put("matched", rules - never.size());
        cov.put("never_matched", never.stream().map(RuleRef::ruleId).toList());
        m.put("coverage", cov);
        return m;
    }
}
