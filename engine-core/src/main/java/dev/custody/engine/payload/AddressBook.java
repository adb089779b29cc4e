package dev.custody.engine.payload;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The workspace address book, as {@link WithdrawalActions} needs it: whether a destination is in it, and
 * since when. A service implements it over its own store.
 *
 * <p>Address matching (case of EVM hex addresses, network scoping) is the implementation's: EVM addresses
 * are case-insensitive, so an implementation should compare them lowercase. Implementations must be
 * thread-safe; one that cannot answer (its store is down) throws, and the caller must deny the withdrawal
 * fail-closed.
 */
@FunctionalInterface
public interface AddressBook {

    /** The address book record of {@code address} on {@code networkCode} in the workspace, if there is one. */
    Optional<Entry> lookup(String workspaceId, String networkCode, String address);

    /**
     * An address book record.
     *
     * @param createdAt when the record was created: {@code withdrawal.address_age_sec} counts from there
     */
    record Entry(Instant createdAt) {
        public Entry {
            Objects.requireNonNull(createdAt, "createdAt");
        }
    }
}
