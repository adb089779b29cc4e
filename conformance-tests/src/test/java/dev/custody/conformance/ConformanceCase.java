package dev.custody.conformance;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** One case of the corpus, as read from its file. Immutable. */
sealed interface ConformanceCase {
    /** The case file's name without {@code .yaml}. */
    String file();

    /** The case's name, unique in its file. */
    String name();

    /** The spec section (or DESIGN item) the case pins. */
    String spec();

    /** {@code <file>/<name>}: the dynamic test's name. */
    default String displayName() {
        return file() + "/" + name();
    }

    /** A decision: policies, an action, the expected decision. */
    record DecisionCase(String file, String name, String spec, List<Object> policies, Object action,
            Instant now, Duration budget, Long costLimit, DecisionExpect expect) implements ConformanceCase {}

    /** A validate-endpoint check of one rule. */
    record Validate(String file, String name, String spec, String triggerAction, String condition,
            String effect, DiagnosticsExpect expect) implements ConformanceCase {}

    /** A validation of one policy object. */
    record PolicyCheck(String file, String name, String spec, Map<String, Object> policy,
            DiagnosticsExpect expect) implements ConformanceCase {}

    /** A validation of a rule update against the stored rule. */
    record RuleUpdateCheck(String file, String name, String spec, Map<String, Object> existing,
            Map<String, Object> update, DiagnosticsExpect expect) implements ConformanceCase {}

    /** A value a case may pin (possibly to null), or leave unchecked. */
    record Expected(boolean checked, String value) {
        static final Expected UNCHECKED = new Expected(false, null);
    }

    /** The expected decision; {@code errorContains} holds substrings that must all appear in the error. */
    record DecisionExpect(String decision, boolean failClosed, String failure, Expected ruleId, Expected policyId,
            Expected reason, Expected error, List<String> errorContains) {}

    /** The expected validation: {@code valid} and the exact list of diagnostics, in order. */
    record DiagnosticsExpect(boolean valid, List<DiagnosticExpect> diagnostics) {}

    /** One expected diagnostic; null fields are not checked. */
    record DiagnosticExpect(String code, String severity, String pointer, Integer line, Integer column,
            String message, String messageContains, String hintContains) {}
}
