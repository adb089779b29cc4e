package dev.custody.engine.schema;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A section of the action payload: the first name of a condition field, as in
 * {@code withdrawal.value_usd}. Immutable and thread-safe.
 */
public enum Section {
    /** Who initiated the action. */
    PRINCIPAL,
    /** The evaluation instant, in UTC. */
    CONTEXT,
    /** The requested withdrawal. */
    WITHDRAWAL,
    /** Velocity of the wallet the withdrawal comes from. */
    WALLET,
    /** Velocity of the whole workspace, and of the workspace on the withdrawal's network. */
    WORKSPACE,
    /** The contract call. */
    RESOURCE;

    // computed once: the evaluator looks sections up by name for every action it decides
    private final String wireName = name().toLowerCase(Locale.ROOT);
    private static final Map<String, Section> BY_WIRE_NAME = new HashMap<>();

    static {
        for (Section s : values()) {
            BY_WIRE_NAME.put(s.wireName, s);
        }
    }

    /** The name used in conditions and payloads, e.g. {@code "withdrawal"}. */
    public String wireName() {
        return wireName;
    }

    /** The section with this exact lowercase name, or empty. */
    public static Optional<Section> fromWireName(String name) {
        return Optional.ofNullable(name == null ? null : BY_WIRE_NAME.get(name));
    }
}
