package dev.custody.conformance;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.custody.conformance.ConformanceCase.DecisionCase;
import dev.custody.conformance.ConformanceCase.DiagnosticExpect;
import dev.custody.conformance.ConformanceCase.DiagnosticsExpect;
import dev.custody.conformance.ConformanceCase.Expected;
import dev.custody.conformance.ConformanceCase.PolicyCheck;
import dev.custody.conformance.ConformanceCase.RuleUpdateCheck;
import dev.custody.conformance.ConformanceCase.Validate;
import dev.custody.conformance.ConformanceSubject.DecisionRequest;
import dev.custody.conformance.ConformanceSubject.DecisionResult;
import dev.custody.conformance.ConformanceSubject.DiagnosticResult;
import dev.custody.conformance.ConformanceSubject.ValidationResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;

/**
 * Turns the corpus into dynamic tests against one {@link ConformanceSubject}: one test per case, named
 * {@code <file>/<case>}. A failing case reports every mismatch at once, the spec section it pins, and the
 * subject's whole answer.
 */
final class CorpusRunner {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private CorpusRunner() {}

    /** System property: run only the cases whose {@code <file>/<case>} name starts with its value. */
    static final String FILTER = "conformance.case";

    static Stream<DynamicTest> tests(ConformanceSubject subject) {
        String only = System.getProperty(FILTER, "");
        return Corpus.load().stream()
                .filter(c -> c.displayName().startsWith(only))
                // no test source URI: Surefire drops dynamic tests whose source is a file
                .map(c -> DynamicTest.dynamicTest(c.displayName(), () -> run(c, subject)));
    }

    static void run(ConformanceCase c, ConformanceSubject subject) {
        // Java 17: no pattern matching in switch yet; the interface is sealed, so this chain is complete
        if (c instanceof DecisionCase d) {
            decision(d, subject);
        } else if (c instanceof Validate v) {
            diagnostics(c, v.expect(), ask(subject, () -> subject.validate(v.triggerAction(), v.condition(), v.effect())));
        } else if (c instanceof PolicyCheck p) {
            diagnostics(c, p.expect(), ask(subject, () -> subject.validatePolicy(p.name() + ".json", json(p.policy()))));
        } else if (c instanceof RuleUpdateCheck u) {
            diagnostics(c, u.expect(), ask(subject, () -> subject.validateRuleUpdate(json(u.existing()), json(u.update()))));
        } else {
            throw new IllegalStateException("unknown case kind " + c.getClass());
        }
    }

    /**
     * The subject's answer; a case the subject cannot express ({@link UnsupportedOperationException}, e.g. a rule
     * update for the CLI, or an argument the CLI rejects as a usage error) is aborted: reported as skipped, never
     * as passed.
     */
    private static <T> T ask(ConformanceSubject subject, Supplier<T> call) {
        try {
            return call.get();
        } catch (UnsupportedOperationException e) {
            Assumptions.abort(subject.name() + " cannot express this case: " + e.getMessage());
            throw e; // not reached: abort throws
        }
    }

    private static void decision(DecisionCase c, ConformanceSubject subject) {
        String action = c.action() instanceof String raw ? raw : json(c.action());
        DecisionResult r = ask(subject, () -> subject.decide(
                new DecisionRequest(c.name() + ".json", json(c.policies()), action, c.now(), c.budget(), c.costLimit())));
        var e = c.expect();
        List<String> problems = new ArrayList<>();
        same(problems, "decision", e.decision(), r.decision());
        if (e.failClosed() != r.failClosed()) {
            problems.add("fail_closed: expected " + e.failClosed() + ", got " + r.failClosed());
        }
        same(problems, "failure", e.failure(), r.failure());
        if (e.decision().equals("NO_MATCH")) {
            // no rule matched: nothing to attribute
            same(problems, "rule_id", null, r.ruleId());
            same(problems, "policy_id", null, r.policyId());
            same(problems, "reason", null, r.reason());
        }
        if (!e.failClosed()) {
            same(problems, "error", null, r.error());
        }
        check(problems, "rule_id", e.ruleId(), r.ruleId());
        check(problems, "policy_id", e.policyId(), r.policyId());
        check(problems, "reason", e.reason(), r.reason());
        check(problems, "error", e.error(), r.error());
        for (String part : e.errorContains()) {
            if (r.error() == null || !r.error().contains(part)) {
                problems.add("error: expected to contain <" + part + ">, got <" + r.error() + ">");
            }
        }
        report(c, problems, r.toString());
    }

    private static void diagnostics(ConformanceCase c, DiagnosticsExpect e, ValidationResult r) {
        List<String> problems = new ArrayList<>();
        if (e.valid() != r.valid()) {
            problems.add("valid: expected " + e.valid() + ", got " + r.valid());
        }
        if (e.diagnostics().size() != r.diagnostics().size()) {
            problems.add("diagnostics: expected " + e.diagnostics().size() + ", got " + r.diagnostics().size());
        }
        for (int i = 0; i < Math.min(e.diagnostics().size(), r.diagnostics().size()); i++) {
            DiagnosticExpect x = e.diagnostics().get(i);
            DiagnosticResult a = r.diagnostics().get(i);
            String at = "diagnostics[" + i + "].";
            same(problems, at + "code", x.code(), a.code());
            same(problems, at + "severity", x.severity(), a.severity());
            if (x.pointer() != null) {
                same(problems, at + "pointer", x.pointer(), a.pointer());
            }
            if (x.line() != null && x.line() != a.line()) {
                problems.add(at + "line: expected " + x.line() + ", got " + a.line());
            }
            if (x.column() != null && x.column() != a.column()) {
                problems.add(at + "column: expected " + x.column() + ", got " + a.column());
            }
            if (x.message() != null) {
                same(problems, at + "message", x.message(), a.message());
            }
            if (x.messageContains() != null && !a.message().contains(x.messageContains())) {
                problems.add(at + "message: expected to contain <" + x.messageContains() + ">, got <" + a.message() + ">");
            }
            if (x.hintContains() != null && (a.hint() == null || !a.hint().contains(x.hintContains()))) {
                problems.add(at + "hint: expected to contain <" + x.hintContains() + ">, got <" + a.hint() + ">");
            }
        }
        StringBuilder actual = new StringBuilder("valid=" + r.valid());
        r.diagnostics().forEach(d -> actual.append("\n    ").append(d));
        report(c, problems, actual.toString());
    }

    private static void check(List<String> problems, String what, Expected expected, String actual) {
        if (expected.checked()) {
            same(problems, what, expected.value(), actual);
        }
    }

    private static void same(List<String> problems, String what, String expected, String actual) {
        if (!Objects.equals(expected, actual)) {
            problems.add(what + ": expected <" + expected + ">, got <" + actual + ">");
        }
    }

    private static void report(ConformanceCase c, List<String> problems, String actual) {
        if (!problems.isEmpty()) {
            Assertions.fail(c.displayName() + " (pins: " + c.spec() + ")\n  " + String.join("\n  ", problems)
                    + "\n  actual: " + actual);
        }
    }

    private static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("case value cannot be written as JSON: " + e.getOriginalMessage(), e);
        }
    }
}
