package dev.custody.engine.files;

import dev.custody.engine.policy.Policy;
import java.util.Objects;

/**
 * A policy read from a file, with where it stands: the JSON pointer of the policy object in the file
 * ({@code ""} for a single-policy file, {@code /2} in an array, {@code /data/0} in an envelope) and its
 * source node, for mapping diagnostics back to lines and columns. Immutable and thread-safe.
 */
public record SourcedPolicy(Policy policy, String pointer, SourceNode node) {
    public SourcedPolicy {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(pointer, "pointer");
        Objects.requireNonNull(node, "node");
    }
}
