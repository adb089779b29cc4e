package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;
/**
 * The status of a raw transaction signing request
 * ({@code GET /web3/transaction/{wallet_id}/{transaction_id}}). Per the spec's client rules it is
 * done on {@code confirmed} or {@code completed} with a hash, and stops on {@code failed} (with
 * {@code failed_reason} when available) or {@code rejected}. Immutable and thread-safe.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record TransactionStatus(
        String transactionId,
        String status,
        String method,
        List<Approval> approvals,
        String createdAt,
        String updatedAt,
        String hash,
        String failedReason) {

    public TransactionStatus {
        approvals = approvals == null ? List.of() : List.copyOf(approvals);
    }

    /** {@code confirmed} or {@code completed}, and carrying a hash. */
    @JsonIgnore
    public boolean isDone() {
        return ("confirmed".equals(status) || "completed".equals(status)) && hash != null && !hash.isEmpty();
    }

    /** {@code failed} or {@code rejected}: polling stops without a hash. */
    @JsonIgnore
    public boolean isFailed() {
        return "failed".equals(status) || "rejected".equals(status);
    }

    /** Done or failed: nothing more will happen. */
    @JsonIgnore
    public boolean isTerminal() {
        return isDone() || isFailed();
    }
}
