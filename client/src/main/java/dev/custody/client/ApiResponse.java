package dev.custody.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A successful answer: the typed {@code data}, the same {@code data} as the JSON tree the server
 * sent ({@link #raw()}, with every field, including those the typed records ignore), and the
 * envelope's {@code message} ({@code null} for endpoints that answer bare JSON).
 *
 * <p>Immutable, and safe to share between threads, if {@code T} is and callers leave the JSON tree
 * as it is (they must not modify it).
 *
 * @param <T> the typed payload
 */
public record ApiResponse<T>(T data, JsonNode raw, String message) {
}
