package dev.custody.client.model;


/**
 * A submitted signing request: the server's {@code transaction_id} and the
 * {@code X-Idempotency-Key} it was sent with (reuse it to retry without creating a duplicate).
 * Immutable and thread-safe.
 */
public record SignSubmission(String transactionId, String idempotencyKey) {
}
