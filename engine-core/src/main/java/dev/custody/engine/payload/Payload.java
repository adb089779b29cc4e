package dev.custody.engine.payload;

import dev.custody.engine.schema.TriggerAction;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * An action checked against the field schema, in the form CEL reads: each section an unmodifiable map
 * whose values are {@code String}, {@code Double} (numbers), {@code Long} (integers), {@code Boolean}, or
 * for {@code resource.decoded_args} a map of such values (and lists). Every section of the action is
 * present (empty when the caller left it out); fields the caller left out are absent, so a rule that reads
 * one fails (and the evaluator denies) unless it guards the read with {@code has()}.
 *
 * <p>Only {@link PayloadValidator} makes these. Immutable and thread-safe.
 *
 * @param action the trigger action
 * @param walletId the wallet id, lowercase
 * @param instant the evaluation instant behind {@code context.*}
 * @param sections section name to fields
 */
public record Payload(TriggerAction action, String walletId, Instant instant, Map<String, Map<String, Object>> sections) {

    /** The section's fields, as CEL reads them; empty when the payload has no such section. */
    public Optional<Object> section(String name) {
        return Optional.ofNullable(sections.get(name));
    }
}
