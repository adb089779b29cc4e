package dev.custody.client;

/**
 * A request the client refused to send: a parameter outside the spec's bounds (assets
 * {@code offset} above 100000, {@code limit} above 1000), an unsupported value (deposit address
 * type {@code tron}), or missing credentials for an authenticated endpoint. Nothing reached the
 * network. Immutable and thread-safe.
 */
public final class InvalidRequestException extends CustodyClientException {
    private static final long serialVersionUID = 1L;

    public InvalidRequestException(String message) {
        super(message, null);
    }
}
