package dev.custody.client.model;


/**
 * Filters of list policies: {@code status} ({@code pending}, {@code active}, {@code inactive},
 * {@code rejected}), {@code limit} and {@code offset}; null means not sent. Immutable and thread-safe.
 */
public record PolicyQuery(String status, Integer limit, Integer offset) {
    /** No filter: the server defaults apply. */
    public static final PolicyQuery ALL = new PolicyQuery(null, null, null);
}
