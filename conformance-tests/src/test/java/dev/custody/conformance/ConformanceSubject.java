package dev.custody.conformance;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What the conformance corpus runs against: the engine library, or the packaged {@code custody} CLI. Every
 * input is text in the formats of docs/design.md §4 (policies as a JSON policy file, an action as one JSON object),
 * and every answer is a plain value, so the same case runs unchanged through either implementation.
 *
 * <p>An implementation must never throw for a case's content (a malformed action, policies that do not
 * compile): those are answers. It may throw for its own failures (the CLI jar missing, I/O).
 */
public interface ConformanceSubject {

    /** Short name shown in reports, e.g. {@code library} or {@code cli}. */
    String name();

    /**
     * Decides one action against a workspace holding exactly the given policies.
     *
     * @param request the policies file, the action, the clock and the budget
     */
    DecisionResult decide(DecisionRequest request);

    /** Compile-checks one rule as the validate endpoint does (trigger action, effect, condition). */
    ValidationResult validate(String triggerAction, String condition, String effect);

    /**
     * Validates one policy file holding one policy object, as {@code custody lint} and the create-policy
     * endpoint do: reading problems and every policy and rule check (disabled rules included).
     *
     * @param fileName the file name ({@code <case>.json})
     * @param policyJson the file content
     */
    ValidationResult validatePolicy(String fileName, String policyJson);

    /**
     * Validates a rule update ({@code PUT …/policies/rules/{rule_id}}) against the rule it changes.
     *
     * @param existingRuleJson the stored rule, a JSON object in the policy-file rule format
     * @param updateJson the update body, a JSON object (every field optional)
     * @throws UnsupportedOperationException when this subject has no way to express a rule update; the case
     *     is then skipped for this subject, not passed
     */
    ValidationResult validateRuleUpdate(String existingRuleJson, String updateJson);

    /**
     * One decision to make.
     *
     * @param policiesFileName the name of the policy file, {@code <case>.json}: its stem is the derived id
     *     of a policy without {@code id} (docs/design.md §4)
     * @param policiesJson a JSON array of policy objects, in declaration order; {@code []} means the
     *     workspace has no policy at all (no policy file, rather than a file holding none)
     * @param actionJson one action object (docs/design.md §4), possibly malformed
     * @param now the clock instant used when the action carries no {@code at}; null for the real clock
     * @param budget the wall-clock backstop; null for the subject's default (1 s)
     * @param costLimit the cost limit (docs/design.md §3.15); null for the subject's default
     */
    record DecisionRequest(String policiesFileName, String policiesJson, String actionJson, Instant now,
            Duration budget, Long costLimit) {
        public DecisionRequest {
            Objects.requireNonNull(policiesFileName, "policiesFileName");
            Objects.requireNonNull(policiesJson, "policiesJson");
            Objects.requireNonNull(actionJson, "actionJson");
        }
    }

    /**
     * A decision as docs/design.md §4 prints it.
     *
     * @param decision {@code ALLOW}, {@code DENY} or {@code NO_MATCH}
     * @param policyId attributed policy, or null
     * @param ruleId attributed rule, or null
     * @param reason the attributed rule's description, or null
     * @param failClosed whether the DENY comes from a failure
     * @param error what failed, or null
     */
    record DecisionResult(String decision, String policyId, String ruleId, String reason, boolean failClosed,
            String failure, String error) {
        public DecisionResult {
            Objects.requireNonNull(decision, "decision");
        }
    }

    /**
     * The answer of a validation.
     *
     * @param valid whether there is no error (warnings allowed)
     * @param diagnostics every diagnostic, in the order the subject reports them
     */
    record ValidationResult(boolean valid, List<DiagnosticResult> diagnostics) {
        public ValidationResult {
            diagnostics = List.copyOf(diagnostics);
        }
    }

    /**
     * One diagnostic.
     *
     * @param code the stable code, e.g. {@code unknown_field}
     * @param severity {@code error} or {@code warning}
     * @param pointer JSON pointer of the offending value inside the policy or update ({@code ""} for a lone
     *     condition)
     * @param line 1-based line inside the condition, or 0 when the diagnostic is not about a condition token
     * @param column 1-based column inside the condition, or 0
     * @param message the one-line message
     * @param hint the hint, or null
     */
    record DiagnosticResult(String code, String severity, String pointer, int line, int column, String message,
            String hint) {
        public DiagnosticResult {
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(severity, "severity");
            Objects.requireNonNull(pointer, "pointer");
            Objects.requireNonNull(message, "message");
        }
    }
}
