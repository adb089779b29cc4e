package dev.custody.client.model;


/**
 * Filters of {@code GET /assets}; null means not sent. {@code isNative} true returns only native
 * currencies, false only tokens. The client checks {@code offset} (0 to 100000) and {@code limit}
 * (1 to 1000) before sending. Immutable and thread-safe.
 */
public record AssetQuery(
        String networkId,
        String search,
        Boolean isNative,
        Boolean isWhitelisted,
        Integer offset,
        Integer limit) {

    /** No filter. */
    public static final AssetQuery ALL = new AssetQuery(null, null, null, null, null, null);
}
