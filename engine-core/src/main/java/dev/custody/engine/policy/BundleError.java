package dev.custody.engine.policy;

import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.format.DiagnosticFormatter;
import java.util.Objects;

/**
 * Why a bundle could not be built: an error of one active policy. Immutable and thread-safe.
 *
 * @param policyId the policy's id (or its position, {@code #2}, when it has none)
 * @param diagnostic the error, whose pointer is inside that policy
 */
public record BundleError(String policyId, Diagnostic diagnostic) {
    public BundleError {
        Objects.requireNonNull(policyId, "policyId");
        Objects.requireNonNull(diagnostic, "diagnostic");
    }

    /** One line: {@code policy `p` /rules/0/condition 1:12: error[unknown_field] …}. */
    public String describe() {
        return "policy `" + policyId + "` " + DiagnosticFormatter.oneLine(diagnostic);
    }
}
