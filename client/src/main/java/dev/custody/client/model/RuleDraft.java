package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
/**
 * A rule to create: inline in a {@link PolicyDraft} or {@code POST .../policies/{id}/rules}.
 * {@code trigger_action}, {@code condition} and {@code effect} are required; null optional fields
 * are not sent. Immutable and thread-safe.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record RuleDraft(
        String triggerAction,
        String condition,
        String effect,
        String description,
        Boolean isEnabled) {
}
