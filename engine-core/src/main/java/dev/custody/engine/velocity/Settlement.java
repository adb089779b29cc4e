package dev.custody.engine.velocity;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.Objects;

/**
 * A {@code withdrawal.settled} record: a withdrawal reached a terminal state, so (when the state is executed
 * or success) its USD value counts as realized outflow of its wallet, workspace and network from {@code at}.
 * Checked when built: every field but {@code id} present, the value finite and not negative. Immutable and
 * thread-safe.
 *
 * @param id the record's own id, for messages; may be null
 * @param workspaceId the workspace
 * @param walletId the wallet
 * @param networkCode the network
 * @param valueUsd the withdrawal's USD value, not negative
 * @param status the terminal state
 * @param at when the state was reached
 */
public record Settlement(String id, String workspaceId, String walletId, String networkCode, BigDecimal valueUsd,
        SettlementStatus status, Instant at) {

    /** The event name of a settlement record in an action stream. */
    public static final String EVENT = "withdrawal.settled";

    public Settlement {
        Objects.requireNonNull(workspaceId, "workspaceId");
        Objects.requireNonNull(walletId, "walletId");
        Objects.requireNonNull(networkCode, "networkCode");
        Objects.requireNonNull(valueUsd, "valueUsd");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(at, "at");
        if (valueUsd.signum() < 0) {
            throw new IllegalArgumentException("`value_usd` must not be negative, got " + valueUsd.toPlainString());
        }
    }

    /** Applies this settlement to a ledger. */
    public void applyTo(VelocityLedger ledger) {
        ledger.recordSettlement(workspaceId, walletId, networkCode, valueUsd, status, at);
    }
}
