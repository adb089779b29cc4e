package dev.custody.analysis;

import dev.custody.engine.files.FilePolicySource;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.compile.ConditionResult;
import dev.custody.engine.Decision;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.ActionReader;
import dev.custody.engine.check.PayloadResult;
import dev.custody.engine.check.PayloadValidator;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * Replays witness actions through the engine, so that no witness is reported that does not show what it
 * claims. Thread-safe, as its {@link PolicyEngine} is: the threads of one analysis share one, so that each
 * workspace's bundle is compiled once.
 */
final class Replay {
    private final PolicyEngine engine;

    Replay(PolicySet set) {
        this.engine = PolicyEngine.builder(FilePolicySource.of(set.documents())::policies)
                .timeBudget(Duration.ofSeconds(10)).build();
    }

    /** The engine's decision for a witness; empty when the witness is not a readable action. */
    Optional<Decision> decide(Map<String, Object> witness) {
        return action(witness).map(a -> engine.evaluate(a, false));
    }

    /**
     * The engine's decision for a witness on which {@code rule}'s condition is true; empty when it is not true
     * there (false or failing) or the witness is not a readable action. The action is read once, and the
     * (costlier) decision over every rule is made only when the condition is true.
     */
    Optional<Decision> decideWhenTrue(AnalyzedRule rule, Map<String, Object> witness) {
        Optional<Action> a = action(witness);
        if (a.isEmpty()) {
            return Optional.empty();
        }
        PayloadResult p = PayloadValidator.validate(a.get(), Instant.parse((String) witness.get("at")));
        if (!(p instanceof PayloadResult.Valid v) || !value(rule, v.payload()).orElse(false)) {
            return Optional.empty();
        }
        return Optional.of(engine.evaluate(a.get(), false));
    }

    /** Whether the rule's policy targets the witness's wallet and workspace (its condition aside). */
    static boolean applies(AnalyzedRule rule, Map<String, Object> witness) {
        return rule.targets(witness.get("wallet_id") instanceof String w ? w : null,
                witness.get("workspace_id") instanceof String k ? k : null);
    }

    /** What one rule's condition gives on the witness: TRUE, FALSE, or empty for a failure / unreadable action. */
    static Optional<Boolean> value(AnalyzedRule rule, Map<String, Object> witness) {
        Optional<Action> a = action(witness);
        if (a.isEmpty()) {
            return Optional.empty();
        }
        PayloadResult p = PayloadValidator.validate(a.get(), Instant.parse((String) witness.get("at")));
        if (!(p instanceof PayloadResult.Valid v)) {
            return Optional.empty();
        }
        ConditionResult r = rule.condition().evaluate(v.payload(), System.nanoTime() + 5_000_000_000L);
        return r instanceof ConditionResult.Value b ? Optional.of(b.value()) : Optional.empty();
    }

    /** A witness validated once, to evaluate many conditions on: empty when the engine does not accept it. */
    static Optional<dev.custody.engine.check.Payload> payload(Map<String, Object> witness) {
        Optional<Action> a = action(witness);
        if (a.isEmpty()) {
            return Optional.empty();
        }
        PayloadResult p = PayloadValidator.validate(a.get(), Instant.parse((String) witness.get("at")));
        return p instanceof PayloadResult.Valid v ? Optional.of(v.payload()) : Optional.empty();
    }

    /** What one rule's condition gives on a validated witness: TRUE, FALSE, or empty for a failure. */
    static Optional<Boolean> value(AnalyzedRule rule, dev.custody.engine.check.Payload payload) {
        ConditionResult r = rule.condition().evaluate(payload, System.nanoTime() + 5_000_000_000L);
        return r instanceof ConditionResult.Value b ? Optional.of(b.value()) : Optional.empty();
    }

    static Optional<Action> action(Map<String, Object> witness) {
        return ActionReader.fromMap(new java.util.LinkedHashMap<>(witness)) instanceof ActionReader.Read r
                ? Optional.of(r.action()) : Optional.empty();
    }
}
