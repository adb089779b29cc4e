package dev.custody.client;

/**
 * The server could not be reached or did not answer in time (connection refused, connect or
 * request time-out, I/O error, interrupted wait), after every retry the request allowed. The cause
 * is kept for {@code --debug}; the message is one redacted line. Immutable and thread-safe.
 */
public final class CustodyTransportException extends CustodyClientException {
    private static final long serialVersionUID = 1L;

    private final int attempts;

    CustodyTransportException(String message, int attempts, Throwable cause) {
        super(message, cause);
        this.attempts = attempts;
    }

    /** How many attempts were made before giving up. */
    public int attempts() {
        return attempts;
    }
}
