package dev.custody.engine.schema;

import java.util.Locale;
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

    /** The name used in conditions and payloads, e.g. {@code "withdrawal"}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The section with this exact lowercase name, or empty. */
    public static Optional<Section> fromWireName(String name) {
        for (Section s : values()) {
            if (s.wireName().equals(name)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }
}
