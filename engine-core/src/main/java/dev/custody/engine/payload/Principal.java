package dev.custody.engine.payload;

import java.util.Objects;

/**
 * Who initiates an action: the {@code principal} section. Immutable and thread-safe.
 *
 * @param userEmail the initiating user's email, or null when not available (rules must guard reads of
 *     {@code principal.user_email})
 * @param role the workspace role: {@code owner}, {@code admin}, {@code signer}, {@code proposer},
 *     {@code viewer} or {@code guest} (another value makes the evaluation deny, fail-closed)
 */
public record Principal(String userEmail, String role) {
    public Principal {
        Objects.requireNonNull(role, "role");
    }
}
