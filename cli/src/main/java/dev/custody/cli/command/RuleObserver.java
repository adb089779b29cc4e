package dev.custody.cli.command;

import dev.custody.engine.EngineObserver;
import dev.custody.engine.check.Payload;
import dev.custody.engine.compile.ConditionResult;
import dev.custody.engine.coverage.EvaluationObserver;
import dev.custody.engine.coverage.ObservedRule;
import java.util.List;

/**
 * A rule-level observer (coverage) in the form the engine's builder takes it: an {@link EngineObserver} that is
 * also an {@link EvaluationObserver}, told the rules through {@code PolicyEngine.Builder.observer} and nothing else.
 *
 * @param rules the observer told every rule loaded and evaluated
 */
record RuleObserver(EvaluationObserver rules) implements EngineObserver, EvaluationObserver {
    @Override
    public void rulesLoaded(List<ObservedRule> loaded) {
        rules.rulesLoaded(loaded);
    }

    @Override
    public void ruleEvaluated(ObservedRule rule, Payload payload, ConditionResult result) {
        rules.ruleEvaluated(rule, payload, result);
    }
}
