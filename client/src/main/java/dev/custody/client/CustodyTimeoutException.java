package dev.custody.client;

/**
 * A polled operation (a signing request, an MPC wallet creation) did not reach a terminal state
 * before the caller's time-out. The request still exists on the server: resume by polling
 * {@link #resourceId()} rather than submitting again. Immutable and thread-safe.
 */
public final class CustodyTimeoutException extends CustodyClientException {
    private static final long serialVersionUID = 1L;

    private final String resourceId;
    private final String lastStatus;

    CustodyTimeoutException(String message, String resourceId, String lastStatus) {
        super(message, null);
        this.resourceId = resourceId;
        this.lastStatus = lastStatus;
    }

    /** The transaction id or wallet id that is still pending. */
    public String resourceId() {
        return resourceId;
    }

    /** The last status the server reported, or {@code null} if none was read. */
    public String lastStatus() {
        return lastStatus;
    }
}
