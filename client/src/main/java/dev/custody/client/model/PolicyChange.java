package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
/**
 * The answer to a gated change (create, update, delete a policy; create, update, delete a rule):
 * {@code status} ({@code pending_approval}, or {@code deleted} for an ungated delete), the
 * {@code approval_request_id} when an approval request was opened, and for a create the new
 * {@code policy}. Absent fields are {@code null}. Immutable and thread-safe.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record PolicyChange(String status, String approvalRequestId, PolicySummary policy) {
}
