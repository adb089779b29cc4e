package dev.custody.cli.command;

import dev.custody.engine.files.FilePolicySource;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.PolicySource;
import dev.custody.engine.EngineObserver;
import dev.custody.engine.coverage.CoverageRecorder;
import dev.custody.engine.coverage.EvaluationObserver;
import dev.custody.engine.policy.BundleError;
import dev.custody.engine.files.Finding;
import dev.custody.engine.files.PolicyDocument;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * A {@link PolicyEngine} over policy files read once, as every deciding verb uses it: the CLI is a client of
 * the engine a service embeds, so its decisions are the engine's (docs/design.md §3), including fail-closed ones.
 *
 * <p>It adds only the reporting a command line needs: files that do not read cleanly are reported on stderr up
 * front (every action is then denied, failure {@code load}), and a bundle that does not compile is reported
 * the first time it is loaded, each error at file:line:column (its workspace's actions are then denied,
 * failure {@code compile}). {@link #failed()} says whether either happened, for the exit code.
 *
 * <p>Decisions are bounded by cost, not by the clock (docs/design.md §3.15): a stalled machine does not change
 * them, so nothing is decided twice. Thread-safe (stderr writes are synchronized).
 */
final class LocalEngine {
    private final FilePolicySource source;
    private final PolicyEngine engine;
    private final PrintWriter err;
    private final String label;
    private final Set<List<BundleError>> reported = Collections.newSetFromMap(new IdentityHashMap<>());
    private volatile boolean failed;

    private LocalEngine(FilePolicySource source, Clock clock, Duration budget, long costLimit, PrintWriter err,
            String label, EvaluationObserver observer) {
        this.source = source;
        this.err = err;
        this.label = label;
        PolicyEngine.Builder builder = PolicyEngine.builder(source::policies);
        if (observer != null) {
            builder.observer(new RuleObserver(observer));
        }
        this.engine = builder
                .clock(clock)
                .timeBudget(budget)
                .costLimit(costLimit)
                .observer(new EngineObserver() {
                    @Override
                    public void bundleLoaded(String workspaceId, List<BundleError> errors) {
                        if (!errors.isEmpty()) {
                            report(workspaceId, errors);
                        }
                    }

                    @Override
                    public void loadFailed(String workspaceId, String message) {
                        LocalEngine.this.failed = true;
                    }
                })
                .build();
        List<Finding> readErrors = source.readErrors();
        if (!readErrors.isEmpty()) {
            failed = true;
            err.println("error: the " + label + " could not be loaded; every action is denied (fail_closed):");
            readErrors.forEach(f -> err.println("  " + f.oneLine()));
        }
    }

    /**
     * Reads the policy files under {@code paths} (a missing path throws {@link java.nio.file.NoSuchFileException}).
     *
     * @param label how to name this policy set in messages ({@code "policies"}, {@code "base policies"}, …)
     */
    static LocalEngine read(List<Path> paths, Clock clock, Duration budget, long costLimit, PrintWriter err,
            String label) throws IOException {
        return read(paths, clock, budget, costLimit, err, label, null);
    }

    /** {@link #read}, with an observer for coverage ({@code --coverage}) when not null. */
    static LocalEngine read(List<Path> paths, Clock clock, Duration budget, long costLimit, PrintWriter err,
            String label, EvaluationObserver observer) throws IOException {
        return new LocalEngine(FilePolicySource.read(paths), clock, budget, costLimit, err, label, observer);
    }

    /** An engine over policy documents already read. */
    static LocalEngine of(FilePolicySource source, Clock clock, Duration budget, long costLimit, PrintWriter err,
            String label) {
        return new LocalEngine(source, clock, budget, costLimit, err, label, null);
    }

    PolicyEngine engine() {
        return engine;
    }

    List<PolicyDocument> documents() {
        return source.documents();
    }

    /** Whether the policies failed to load or some bundle did not compile. */
    boolean failed() {
        return failed;
    }

    private void report(String workspaceId, List<BundleError> errors) {
        synchronized (err) {
            failed = true;
            if (!reported.add(errors)) {
                return;
            }
            err.println("error: the " + label + (PolicySource.NO_WORKSPACE.equals(workspaceId)
                    ? " for actions without a workspace do not compile; those actions are denied (fail_closed):"
                    : " of workspace `" + workspaceId + "` do not compile; its actions are denied (fail_closed):"));
            errors.forEach(e -> err.println("  " + source.locate(e)));
        }
    }
}
