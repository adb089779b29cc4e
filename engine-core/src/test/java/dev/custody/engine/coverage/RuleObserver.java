package dev.custody.engine.coverage;

import dev.custody.engine.EngineObserver;
import dev.custody.engine.check.Payload;
import dev.custody.engine.compile.ConditionResult;
import java.util.List;

/**
 * Test support: a rule-level observer in the form the engine's builder takes it, an {@link EngineObserver} that is
 * also an {@link EvaluationObserver} (the tools have their own, {@code dev.custody.cli.command.RuleObserver}).
 *
 * @param rules the observer told every rule loaded and evaluated
 */
public record RuleObserver(EvaluationObserver rules) implements EngineObserver, EvaluationObserver {
    @Override
    public void rulesLoaded(List<ObservedRule> loaded) {
        rules.rulesLoaded(loaded);
    }

    @Override
    public void ruleEvaluated(ObservedRule rule, Payload payload, ConditionResult result) {
        rules.ruleEvaluated(rule, payload, result);
    }
}
