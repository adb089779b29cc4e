package dev.custody.client.model;


/**
 * Filters of list wallets: {@code wallet_type} ({@code standard}, {@code mpc}), {@code limit},
 * {@code offset}; null means not sent. Immutable and thread-safe.
 */
public record WalletQuery(String walletType, Integer limit, Integer offset) {
    /** No filter. */
    public static final WalletQuery ALL = new WalletQuery(null, null, null);
}
