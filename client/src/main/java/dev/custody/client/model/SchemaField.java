package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
/**
 * One field of {@code GET /policy/schema}: name, type ({@code string}, {@code number},
 * {@code integer}, {@code boolean}, {@code map}) and the allowed values when the field is an enum
 * (JSON {@code enum}; {@code null} otherwise). Immutable and thread-safe.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SchemaField(String name, String type, @JsonProperty("enum") List<String> enumValues) {
    public SchemaField {
        enumValues = enumValues == null ? null : List.copyOf(enumValues);
    }
}
