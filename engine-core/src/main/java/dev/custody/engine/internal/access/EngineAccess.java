package dev.custody.engine.internal.access;

import dev.custody.engine.Decision;
import dev.custody.engine.FailureKind;
import dev.custody.engine.Outcome;
import dev.custody.engine.TraceEntry;
import dev.custody.engine.payload.Action;
import dev.custody.engine.schema.TriggerAction;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Internal, not API: what engine-core's own packages reach of each other beyond the exported API (the pattern
 * of the JDK's {@code SharedSecrets}). {@link Action} and {@link Decision} install their package-private
 * operations here from their static initializers; the evaluator, the payload check and the replay code call them
 * through here. The package is exported to no module, so a consumer on the module path can neither build a
 * {@link Decision} (only the engine decides) nor reach an action's check cache.
 *
 * <p>Thread-safe: each operation set is installed once, before its class is used.
 */
public final class EngineAccess {
    /** An action's package-private operations. */
    public interface Actions {
        /** An action over sections the caller made and no longer touches (kept, not copied). */
        Action ofOwn(String id, TriggerAction action, String walletId, String workspaceId, Instant at,
                Map<String, Map<String, Object>> sections);

        /** What the payload check remembered of the action's sections (null before the first check). */
        Object checkCache(Action action);

        /** Remembers what the payload check found. */
        void checkCache(Action action, Object checked);

        /** Sets a whole section of the builder to a map the caller made for it and no longer touches (no copy). */
        void adopt(Action.Builder builder, String name, Map<String, Object> fields);
    }

    /** How decisions are made: the factories that keep a decision's fields consistent. */
    public interface Decisions {
        /** A rule decided: ALLOW or DENY, attributed to the first true rule of the winning effect. */
        Decision matched(String actionId, TriggerAction action, Outcome outcome, String policyId, String ruleId,
                String reason, long elapsedNanos, List<TraceEntry> trace, String bundleRevision);

        /** No rule matched. */
        Decision noMatch(String actionId, TriggerAction action, long elapsedNanos, List<TraceEntry> trace,
                String bundleRevision);

        /** A fail-closed DENY, attributed to the rule that failed (or null ids when no rule is to blame). */
        Decision failClosed(String actionId, TriggerAction action, FailureKind failure, String error, String policyId,
                String ruleId, long elapsedNanos, List<TraceEntry> trace);
    }

    private static volatile Actions actions;
    private static volatile Decisions decisions;

    private EngineAccess() {}

    /** Installs {@link Action}'s operations (once, from its static initializer). */
    public static void install(Actions a) {
        if (actions != null) {
            throw new IllegalStateException("already installed");
        }
        actions = a;
    }

    /** Installs {@link Decision}'s factories (once, from its static initializer). */
    public static void install(Decisions d) {
        if (decisions != null) {
            throw new IllegalStateException("already installed");
        }
        decisions = d;
    }

    /** {@link Action}'s operations. */
    public static Actions actions() {
        Actions a = actions;
        if (a == null) {
            initialize(Action.class);
            a = actions;
        }
        return a;
    }

    /** {@link Decision}'s factories. */
    public static Decisions decisions() {
        Decisions d = decisions;
        if (d == null) {
            initialize(Decision.class);
            d = decisions;
        }
        return d;
    }

    /** Runs the class's static initializer (which installs its operations), if it has not run yet. */
    private static void initialize(Class<?> c) {
        try {
            Class.forName(c.getName(), true, c.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
