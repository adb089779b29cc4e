package dev.custody.engine.schema;

import java.util.Optional;

/**
 * The effect of a rule whose condition is true. DENY wins over ALLOW. Immutable and thread-safe.
 */
public enum Effect {
    /** The action proceeds and its approval is bypassed (unless a DENY rule is also true). */
    ALLOW,
    /** The action is blocked. */
    DENY;

    /**
     * The effect with this exact wire name ({@code "ALLOW"} or {@code "DENY"}, case-sensitive).
     *
     * @return the effect, or empty when {@code name} is null or not an effect
     */
    public static Optional<Effect> fromWireName(String name) {
        if ("ALLOW".equals(name)) {
            return Optional.of(ALLOW);
        }
        if ("DENY".equals(name)) {
            return Optional.of(DENY);
        }
        return Optional.empty();
    }
}
