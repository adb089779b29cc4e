package dev.custody.engine.velocity;

import java.time.Instant;

/**
 * Where the velocity figures of a withdrawal come from: the {@code wallet.*} and {@code workspace.*}
 * sections of a {@code withdrawal.create} payload (spec, condition field schema).
 *
 * <p>This is the SPI a service implements over its own store (e.g. SQL sums over its withdrawals
 * table); {@link VelocityLedger} is the in-memory implementation the CLI replay and tests use. Whatever
 * backs it must keep the spec's meaning:
 * <ul>
 *   <li>outflow is realized USD value: only withdrawals that reached an {@code executed} or
 *       {@code success} terminal state count ({@link SettlementStatus#realized()});
 *   <li>{@code *_withdrawal_count_1h} counts attempts, whatever became of them;
 *   <li>windows are the 1, 6 and 24 hours ending at {@code at}; {@link VelocityLedger} documents the exact
 *       bounds and whether the action being decided counts itself.
 * </ul>
 *
 * <p>Implementations must be thread-safe. A source that cannot answer throws {@link VelocityException};
 * the caller must deny the action fail-closed, never evaluate it without its figures.
 */
public interface VelocitySource {

    /**
     * The velocity figures of a withdrawal from {@code walletId} in {@code workspaceId} on
     * {@code networkCode}, as of {@code at}.
     *
     * @throws VelocityException when the figures cannot be given
     */
    Velocity velocity(String workspaceId, String walletId, String networkCode, Instant at);
}
