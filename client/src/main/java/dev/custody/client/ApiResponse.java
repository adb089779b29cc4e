package dev.custody.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A successful answer: the typed {@code data}, the same {@code data} as the JSON tree the server
 * sent ({@link #raw()}, with every field, including those the typed records ignore), and the
 * envelope's {@code message} ({@code null} for endpoints that answer bare JSON).
 *
 * <p>Immutable if {@code T} is; the JSON tree must not be modified by callers.
 *
 * @param <T> the typed payload
 */
public record ApiResponse<T>(T data, JsonNode raw, String message) {
}
