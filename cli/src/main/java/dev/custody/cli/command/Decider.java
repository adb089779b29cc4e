package dev.custody.cli.command;

import dev.custody.engine.bundle.PolicyBundle;
import dev.custody.engine.eval.Decision;
import dev.custody.engine.eval.Evaluator;
import dev.custody.engine.payload.Action;
import java.io.PrintWriter;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Decides actions against a {@link PolicySet} the way the engine would, and reports each invalid bundle on
 * stderr the first time it is used ("policies that do not compile deny every action, with the errors on
 * stderr"). {@link #bundle} is not thread-safe; {@link #decide(Action, PolicyBundle, boolean)} is.
 */
final class Decider {
    private final PolicySet policies;
    private final Evaluator evaluator;
    private final PrintWriter err;
    private final String label;
    private final Set<PolicyBundle> reported = Collections.newSetFromMap(new IdentityHashMap<>());
    private boolean failed;

    /**
     * @param label how to name this policy set in messages ({@code "policies"}, {@code "base policies"}, …)
     */
    Decider(PolicySet policies, Evaluator evaluator, PrintWriter err, String label) {
        this.policies = policies;
        this.evaluator = evaluator;
        this.err = err;
        this.label = label;
        if (policies.loadFailure() != null) {
            failed = true;
            err.println("error: the " + label + " could not be loaded; every action is denied (fail_closed):");
            policies.readErrors().forEach(f -> err.println("  " + f.oneLine()));
        }
    }

    /** Decides one action (the bundle lookup and the decision, on this thread). */
    Decision decide(Action action, boolean explain) {
        return decide(action, bundle(action), explain);
    }

    /**
     * The bundle for an action, built on first use (and reported on stderr when invalid); null when the
     * policies could not be loaded. Not thread-safe: call it in stream order, from one thread.
     */
    PolicyBundle bundle(Action action) {
        if (policies.loadFailure() != null) {
            return null;
        }
        PolicyBundle bundle = policies.bundle(action.workspaceId());
        if (!bundle.valid() && reported.add(bundle)) {
            failed = true;
            err.println("error: the " + label + (action.workspaceId() == null
                    ? " for actions without a workspace do not compile; those actions are denied (fail_closed):"
                    : " of workspace `" + action.workspaceId() + "` do not compile; its actions are denied (fail_closed):"));
            policies.problems(bundle).forEach(p -> err.println("  " + p));
        }
        return bundle;
    }

    /** The decision on an action with its bundle from {@link #bundle}; thread-safe. */
    Decision decide(Action action, PolicyBundle bundle, boolean explain) {
        if (bundle == null) {
            return Decision.failClosed(action.id(), action.action(), policies.loadFailure(), 0);
        }
        return evaluate(evaluator, bundle, action, explain);
    }

    /**
     * The evaluator's decision, except that an action denied for running past the time budget is decided once
     * more. A rule that is slow on this input is slow twice and stays denied; a thread the machine stalled
     * (a busy CI runner, a garbage collection) gets its real decision, so offline results do not depend on
     * the load. Thread-safe.
     */
    static Decision evaluate(Evaluator evaluator, PolicyBundle bundle, Action action, boolean explain) {
        Decision d = evaluator.evaluate(bundle, action, explain);
        if (d.failClosed() && d.error() != null && d.error().startsWith("time budget")) {
            d = evaluator.evaluate(bundle, action, explain);
        }
        return d;
    }

    /** Whether the policies failed to load or some bundle did not compile. */
    boolean failed() {
        return failed;
    }
}
