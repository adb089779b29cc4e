package dev.custody.engine.log;

/**
 * Told about every decision a {@link dev.custody.engine.PolicyEngine} takes: for an audit log, an event bus, a
 * data warehouse. Registered with {@code PolicyEngine.Builder.decisionLog}, it is never called on the deciding
 * thread: the engine hands each event to a bounded queue and one background thread calls the listener, so a slow
 * or failing listener never delays, blocks or changes a decision (when the queue is full the event is dropped and
 * counted, see {@link DecisionLog#dropped()}).
 *
 * <p>Called from one thread at a time, in the order the events were queued; an exception it throws is counted and
 * ignored.
 */
@FunctionalInterface
public interface DecisionListener {
    /** One decision. */
    void onDecision(DecisionEvent event) throws Exception;
}
