package dev.custody.engine.payload;

import dev.custody.engine.schema.TriggerAction;
import dev.custody.engine.velocity.Velocity;
import dev.custody.engine.velocity.VelocityException;
import dev.custody.engine.velocity.VelocitySource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Builds the {@code withdrawal.create} {@link Action} a service evaluates before a withdrawal goes to
 * approval or signing: the request, the address book's answer, the velocity figures, the principal, and
 * one instant from the {@link Clock} for all of them.
 *
 * <pre>{@code
 * WithdrawalActions withdrawals = WithdrawalActions.builder()
 *         .addressBook(addressBook).velocity(velocitySource).clock(Clock.systemUTC()).build();
 * Action action = withdrawals.action(requestId, workspaceId, walletId, principal, request);
 * Decision decision = engine.evaluate(workspaceId, action);
 * }</pre>
 *
 * <h2>Fields</h2>
 * <ul>
 *   <li>{@code principal.*} from the {@link Principal} ({@code user_email} only when known);
 *   <li>{@code withdrawal.amount}, {@code value_usd}, {@code asset_symbol}, {@code asset_is_native},
 *       {@code network_code}, {@code destination_address} from the {@link WithdrawalRequest};
 *   <li>{@code withdrawal.is_whitelisted}: whether the address book has a record of the destination on
 *       the network; {@code withdrawal.address_age_sec}: whole seconds from that record's creation to the
 *       instant, 0 when there is no record (an unknown address is as new as an address gets, so an
 *       "address too young" DENY rule still fires and an "old enough" ALLOW rule does not) and 0 for a
 *       record dated in the future (a clock skew never makes an address look older);
 *   <li>{@code wallet.*} and {@code workspace.*} from the {@link VelocitySource} as of the instant;
 *   <li>the action's {@code at} is the instant, so {@code context.*} agrees with the velocity window.
 * </ul>
 * The attempt itself is not recorded here: the caller records it (and its settlement) in its store after
 * the decision, so the figures an action sees exclude the action itself.
 *
 * <p>Immutable and thread-safe when its address book and velocity source are.
 */
public final class WithdrawalActions {
    private final AddressBook addressBook;
    private final VelocitySource velocity;
    private final Clock clock;

    private WithdrawalActions(Builder b) {
        this.addressBook = b.addressBook;
        this.velocity = b.velocity;
        this.clock = b.clock;
    }

    /** A builder; the address book and the velocity source are required. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The action for one withdrawal request.
     *
     * @param actionId the caller's id, echoed in the decision; may be null
     * @throws VelocityException when the velocity source cannot answer: deny the withdrawal fail-closed
     * @throws RuntimeException whatever the address book throws when it cannot answer: deny likewise
     */
    public Action action(String actionId, String workspaceId, String walletId, Principal principal,
            WithdrawalRequest request) {
        Objects.requireNonNull(workspaceId, "workspaceId");
        Objects.requireNonNull(walletId, "walletId");
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(request, "request");
        Instant now = clock.instant();
        Optional<AddressBook.Entry> entry =
                addressBook.lookup(workspaceId, request.networkCode(), request.destinationAddress());
        Velocity v = velocity.velocity(workspaceId, walletId, request.networkCode(), now);

        Map<String, Object> who = new LinkedHashMap<>();
        if (principal.userEmail() != null) {
            who.put("user_email", principal.userEmail());
        }
        who.put("role", principal.role());
        Map<String, Object> w = new LinkedHashMap<>();
        w.put("amount", request.amount());
        w.put("value_usd", request.valueUsd());
        w.put("asset_symbol", request.assetSymbol());
        w.put("asset_is_native", request.assetIsNative());
        w.put("destination_address", request.destinationAddress());
        w.put("network_code", request.networkCode());
        w.put("is_whitelisted", entry.isPresent());
        w.put("address_age_sec", entry.map(e -> ageSeconds(e.createdAt(), now)).orElse(0L));
        return Action.builder(TriggerAction.WITHDRAWAL_CREATE)
                .id(actionId)
                .walletId(walletId)
                .workspaceId(workspaceId)
                .at(now)
                .section("principal", who)
                .section("withdrawal", w)
                .section("wallet", v.walletSection())
                .section("workspace", v.workspaceSection())
                .build();
    }

    private static long ageSeconds(Instant createdAt, Instant now) {
        return Math.max(0, Duration.between(createdAt, now).getSeconds());
    }

    /** Builds {@link WithdrawalActions}; fails fast on a missing part. Not thread-safe. */
    public static final class Builder {
        private AddressBook addressBook;
        private VelocitySource velocity;
        private Clock clock = Clock.systemUTC();

        private Builder() {}

        /** The workspace address book behind {@code is_whitelisted} and {@code address_age_sec}. */
        public Builder addressBook(AddressBook addressBook) {
            this.addressBook = Objects.requireNonNull(addressBook, "addressBook");
            return this;
        }

        /** The source of the {@code wallet} and {@code workspace} velocity sections. */
        public Builder velocity(VelocitySource velocity) {
            this.velocity = Objects.requireNonNull(velocity, "velocity");
            return this;
        }

        /** The clock giving the action's instant; the system UTC clock by default. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** @throws IllegalStateException when the address book or the velocity source is missing */
        public WithdrawalActions build() {
            if (addressBook == null) {
                throw new IllegalStateException("an address book is required: call addressBook(..)");
            }
            if (velocity == null) {
                throw new IllegalStateException("a velocity source is required: call velocity(..)");
            }
            return new WithdrawalActions(this);
        }
    }
}
