package dev.custody.examples;

import dev.custody.engine.Decision;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.payload.Action;
import dev.custody.engine.payload.AddressBook;
import dev.custody.engine.payload.Principal;
import dev.custody.engine.payload.WithdrawalActions;
import dev.custody.engine.payload.WithdrawalRequest;
import dev.custody.engine.velocity.Settlement;
import dev.custody.engine.velocity.VelocityException;
import dev.custody.velocity.jdbc.JdbcVelocityLedger;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Velocity in a service (README, "Velocity in a service"): the durable ledger over the service's own database gives
 * each withdrawal its realized-outflow windows and attempt counts, and records its attempt, in one committed step
 * keyed by the request id; settlements come from the service's withdrawal state machine. Thread-safe.
 */
public final class VelocityGuard implements AutoCloseable {
    private final PolicyEngine engine;
    private final AddressBook addressBook;
    private final JdbcVelocityLedger ledger;

    public VelocityGuard(PolicyEngine engine, AddressBook addressBook, DataSource dataSource) {
        this.engine = engine;
        this.addressBook = addressBook;
        // creates (and migrates) its velocity_* tables on first use; the service's pool stays the service's
        ledger = JdbcVelocityLedger.builder(dataSource).lateness(Duration.ofHours(1)).build();
    }

    /**
     * The decision on one withdrawal request. Its attempt is committed before this returns, once per request id: a
     * retried request gets the figures (so the decision) of its first attempt.
     *
     * @throws VelocityException when the ledger cannot give the figures: deny the withdrawal
     */
    public Decision decide(String requestId, String workspaceId, String walletId, Principal principal,
            WithdrawalRequest request) {
        Action action = WithdrawalActions.builder().addressBook(addressBook).velocity(ledger.attempting(requestId))
                .build().action(requestId, workspaceId, walletId, principal, request);
        return engine.evaluate(workspaceId, action);
    }

    /** A withdrawal reached a terminal state: executed and success realize its value, once per settlement id. */
    public void onSettled(Settlement settlement) {
        ledger.recordSettlement(settlement);
    }

    @Override
    public void close() {
        ledger.close();
    }
}
