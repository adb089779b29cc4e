package dev.custody.engine.coverage;

import dev.custody.engine.compile.ConditionResult;
import dev.custody.engine.check.Payload;
import java.util.List;

/**
 * Told what the engine evaluated, for coverage: the rules of every bundle it builds, and every rule it evaluates
 * for a decision, with the result. Attach one by passing an {@code EngineObserver} that also implements this
 * interface to {@code PolicyEngine.Builder.observer} (a tool-only extension: this package is not exported to
 * embedders, and this interface names no engine type above it, so the engine reads it without a bridge); there is
 * none by default, and then the engine does no work for it.
 *
 * <h2>When it is told</h2>
 * {@link #rulesLoaded} when a valid bundle is compiled (once per distinct policy list: workspaces with equal
 * policies share a bundle), before it decides anything; the warm-up run of a fresh bundle is not reported.
 * {@link #ruleEvaluated} once per rule the evaluator ran for a decision, in the order it ran them, after the
 * decision is made and outside its time budget, on the deciding thread, before {@code evaluate} returns. A
 * decision that stops early (a true DENY rule, a failure, the cost limit) reports only the rules it ran.
 * Decisions that run no rule (a malformed action, an invalid bundle) report nothing.
 *
 * <h2>It never decides</h2>
 * Whatever an observer does or throws, the decision is the same: what it throws is dropped. Implementations
 * must be thread-safe (the engine decides on many threads at once) and should be quick, as they run on the
 * deciding thread.
 */
public interface EvaluationObserver {

    /**
     * The rules of a bundle just compiled, in declaration order. Does nothing unless overridden.
     *
     * @param rules the bundle's rules (enabled rules of active policies)
     */
    default void rulesLoaded(List<ObservedRule> rules) {}

    /**
     * A rule was evaluated for a decision.
     *
     * @param rule the rule
     * @param payload the action as the rule saw it (checked, with its velocity and context sections)
     * @param result the rule's result: true, false, or a failure
     */
    void ruleEvaluated(ObservedRule rule, Payload payload, ConditionResult result);
}
