package dev.custody.examples;

import dev.custody.engine.PolicyEngine;
import dev.custody.engine.PolicySource;
import dev.custody.engine.Decision;
import dev.custody.engine.log.DecisionLog;
import dev.custody.engine.log.JsonLinesDecisionSink;
import dev.custody.engine.metrics.EngineMetrics;
import dev.custody.engine.payload.Action;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;

/**
 * The engine in a service, as the README's "In a service" section quotes it: one engine over the service's
 * policy store, every decision in a rotating JSON-lines decision log (which {@code custody replay --from-log}
 * reads back), metrics in the service's Micrometer registry, and the cached bundle of a workspace dropped when
 * an approval event says its policies changed. Thread-safe.
 */
public final class WithdrawalGuard implements AutoCloseable {
    private final DecisionLog log;
    private final PolicyEngine engine;

    /**
     * @param policies where policies live, e.g. {@link JdbcPolicySource} over the service's database
     * @param logFile the decision log (rotated at 64 MiB, five old files kept)
     * @param registry the service's meter registry
     */
    public WithdrawalGuard(PolicySource policies, Path logFile, MeterRegistry registry) {
        // decisions reach the file off the deciding thread; a full queue drops (and counts) rather than waits
        log = DecisionLog.of(JsonLinesDecisionSink.builder(logFile).maxBytes(64L << 20).keep(5).build());
        engine = PolicyEngine.builder(policies)
                .observer(log)
                .observer(EngineMetrics.builder(registry).decisionLog(log).build())
                .build();
    }

    /** Decides a withdrawal. Never throws: a failure of any kind is a fail-closed DENY. */
    public Decision decide(String workspaceId, Action withdrawal) {
        return engine.evaluate(workspaceId, withdrawal);
    }

    /** Subscribed to approval events: a policy approved or rejected, a wallet re-targeted. */
    public void onPolicyEvent(PolicyEvent event) {
        engine.invalidate(event.workspaceId());
    }

    /** What the approval flow publishes when a workspace's policies change. */
    public record PolicyEvent(String workspaceId, String policyId, String change) {}

    /** Delivers the decisions still queued to the log (up to 10 s) and closes it. */
    @Override
    public void close() throws InterruptedException {
        log.close();
    }
}
