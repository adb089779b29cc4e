package dev.custody.analysis;

import dev.custody.engine.schema.TriggerAction;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One finding about one rule, with the fields of docs/design.md §5.1. Immutable and thread-safe.
 *
 * @param kind what was found
 * @param rule the rule it is about (policy id, rule id, trigger action, file, line, column)
 * @param related the earlier or DENY rules involved, as {@code [policy_id, rule_id]} pairs
 * @param message one line
 * @param witness an action in the replay format (docs/design.md §4.2) that shows the finding, already replayed
 *     through the engine with the claimed result; null when the finding has none
 */
public record AnalysisFinding(
        FindingKind kind, AnalyzedRule rule, List<AnalyzedRule> related, String message, Map<String, Object> witness) {

    public AnalysisFinding {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(rule, "rule");
        related = List.copyOf(related);
        Objects.requireNonNull(message, "message");
        witness = witness == null ? null : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(witness));
    }

    /** The kind's severity. */
    public String severity() {
        return kind.severity();
    }

    /** The rule's trigger action. */
    public TriggerAction action() {
        return rule.action();
    }
}
