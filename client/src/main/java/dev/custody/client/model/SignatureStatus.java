package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;
/**
 * The status of a message signing request ({@code GET /web3/{wallet_id}/sign/{transaction_id}}).
 * Per the spec's client rules it is done on {@code confirmed} with a signature, and stops on
 * {@code failed} or {@code rejected}. Immutable and thread-safe.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record SignatureStatus(
        String transactionId,
        String status,
        String signature,
        List<Approval> approvals,
        String createdAt,
        String updatedAt) {

    public SignatureStatus {
        approvals = approvals == null ? List.of() : List.copyOf(approvals);
    }

    /** {@code confirmed} and carrying a signature. */
    @JsonIgnore
    public boolean isDone() {
        return "confirmed".equals(status) && signature != null && !signature.isEmpty();
    }

    /** {@code failed} or {@code rejected}: polling stops without a signature. */
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
