package dev.custody.engine.eval;

import dev.custody.engine.schema.TriggerAction;
import java.util.List;
import java.util.Objects;

/**
 * The decision on one action: what to do, which rule decided it, and whether it was decided by failure.
 *
 * <p><b>Fail-closed.</b> {@link Outcome#DENY} is also returned, with {@code failClosed} true and an
 * {@code error}, whenever the engine cannot decide soundly: the policies could not be loaded or do not
 * compile, the action is malformed, a rule that had to be evaluated failed (an absent field, a non-boolean
 * result, an exception), or the time budget ran out. A decision is always returned; evaluation never
 * throws.
 *
 * <p><b>Attribution.</b> For ALLOW and DENY-by-rule, {@code policyId}/{@code ruleId} name the first true rule
 * of the winning effect in declaration order, and {@code reason} is its description. For a fail-closed DENY
 * caused by a rule, they name the first rule that failed (and {@code reason} is null); for other
 * fail-closed DENYs and for NO_MATCH they are null.
 *
 * <p>Immutable and thread-safe.
 *
 * @param actionId the action's id, echoed; may be null
 * @param action the trigger action
 * @param decision ALLOW, DENY or NO_MATCH
 * @param policyId the deciding (or failing) rule's policy, or null
 * @param ruleId the deciding (or failing) rule, or null
 * @param reason the deciding rule's description, or null
 * @param failClosed whether the DENY comes from a failure rather than a DENY rule
 * @param error what failed, one line, or null
 * @param elapsedNanos time spent deciding (bundle lookup excluded)
 * @param trace every evaluated rule with its result, when a trace was asked for; else empty
 */
public record Decision(
        String actionId,
        TriggerAction action,
        Outcome decision,
        String policyId,
        String ruleId,
        String reason,
        boolean failClosed,
        String error,
        long elapsedNanos,
        List<TraceEntry> trace) {

    public Decision {
        Objects.requireNonNull(decision, "decision");
        trace = List.copyOf(trace);
        if (failClosed && decision != Outcome.DENY) {
            throw new IllegalArgumentException("a fail-closed decision must be DENY");
        }
    }

    /** Whether the action may proceed without approval. */
    public boolean allowed() {
        return decision == Outcome.ALLOW;
    }

    /** Whether the action is blocked. */
    public boolean denied() {
        return decision == Outcome.DENY;
    }

    /** A fail-closed DENY with no rule attribution. */
    public static Decision failClosed(String actionId, TriggerAction action, String error, long elapsedNanos) {
        return new Decision(actionId, action, Outcome.DENY, null, null, null, true, error, elapsedNanos, List.of());
    }
}
