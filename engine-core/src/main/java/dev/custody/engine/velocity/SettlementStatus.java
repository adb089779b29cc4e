package dev.custody.engine.velocity;

import java.util.Optional;

/**
 * The terminal state a withdrawal reached, as a {@code withdrawal.settled} record states it. Only
 * {@link #EXECUTED} and {@link #SUCCESS} realize outflow (spec: "velocity fields count outflow only after
 * a withdrawal has reached an executed or successful terminal state"). Immutable and thread-safe.
 */
public enum SettlementStatus {
    /** The withdrawal was executed on chain: its value counts as outflow. */
    EXECUTED("executed"),
    /** The withdrawal succeeded: its value counts as outflow. */
    SUCCESS("success"),
    /** The withdrawal failed: it counts nothing. */
    FAILED("failed");

    private final String wireName;

    SettlementStatus(String wireName) {
        this.wireName = wireName;
    }

    /** The wire name, e.g. {@code "executed"}. */
    public String wireName() {
        return wireName;
    }

    /** Whether a withdrawal in this state counts as realized outflow. */
    public boolean realized() {
        return this != FAILED;
    }

    /** The status with this exact (lowercase) wire name, or empty. */
    public static Optional<SettlementStatus> fromWireName(String name) {
        for (SettlementStatus s : values()) {
            if (s.wireName.equals(name)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }
}
