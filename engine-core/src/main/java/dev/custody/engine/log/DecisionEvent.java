package dev.custody.engine.log;

import dev.custody.engine.Decision;
import dev.custody.engine.payload.Action;
import java.time.Instant;
import java.util.Objects;

/**
 * One decision as a decision log records it: what was decided, for which workspace, on what, when, and under which
 * policies ({@link Decision#bundleRevision()}). Immutable and thread-safe.
 *
 * @param workspaceId the workspace the engine decided under (canonical, lower case; empty for actions without one)
 * @param action the action as decided
 * @param decision the decision
 * @param decidedAt when the engine decided it (its clock)
 */
public record DecisionEvent(String workspaceId, Action action, Decision decision, Instant decidedAt) {
    public DecisionEvent {
        Objects.requireNonNull(workspaceId, "workspaceId");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(decidedAt, "decidedAt");
    }
}
