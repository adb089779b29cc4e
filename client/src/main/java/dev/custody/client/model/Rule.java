package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
/**
 * A rule as the server returns it inside a {@link Policy}. {@code is_enabled} is {@code null} when
 * the server omits it, which means enabled. Immutable and thread-safe.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record Rule(
        String ruleId,
        String triggerAction,
        String condition,
        String effect,
        String description,
        Boolean isEnabled) {

    /** Whether the evaluator uses this rule (absent means enabled). */
    public boolean enabled() {
        return isEnabled == null || isEnabled;
    }
}
