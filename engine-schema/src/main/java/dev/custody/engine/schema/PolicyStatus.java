package dev.custody.engine.schema;

import java.util.Locale;
import java.util.Optional;

/**
 * The status of a policy. Only {@link #ACTIVE} policies are evaluated. Immutable and thread-safe.
 */
public enum PolicyStatus {
    /** Created, not yet approved; not evaluated. */
    PENDING,
    /** Approved and live; the only status the evaluator loads. */
    ACTIVE,
    /** Disabled; not evaluated. */
    INACTIVE,
    /** Rejected during approval; not evaluated. */
    REJECTED;

    /** The wire name, e.g. {@code "active"}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The status with this exact wire name (lowercase, as the API sends it).
     *
     * @return the status, or empty when {@code name} is null or not a status
     */
    public static Optional<PolicyStatus> fromWireName(String name) {
        for (PolicyStatus s : values()) {
            if (s.wireName().equals(name)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }
}
