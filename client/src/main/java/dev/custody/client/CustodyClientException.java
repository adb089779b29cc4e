package dev.custody.client;

/**
 * Every failure the custody client reports. The hierarchy is sealed so that a caller's
 * {@code switch} breaks when a kind of failure is added:
 * <ul>
 *   <li>{@link InvalidRequestException}: refused before anything was sent (bounds, unsupported
 *       values, missing credentials);</li>
 *   <li>{@link CustodyApiException}: the server answered with a non-2xx status, with
 *       {@code success: false}, or with a body that is not what the spec describes;</li>
 *   <li>{@link CustodyTransportException}: no usable answer (connection refused, time-out,
 *       interrupted), after the retries the request allowed;</li>
 *   <li>{@link CustodyTimeoutException}: a polled operation did not reach a terminal state in time.</li>
 * </ul>
 * Messages are lowercase, one line, user input in backticks, and never contain the API secret or
 * a request signature. Every kind is immutable and thread-safe.
 */
public abstract sealed class CustodyClientException extends RuntimeException
        permits InvalidRequestException, CustodyApiException, CustodyTransportException, CustodyTimeoutException {
    private static final long serialVersionUID = 1L;

    CustodyClientException(String message, Throwable cause) {
        super(message, cause);
    }
}
