package dev.custody.engine.schema;

import java.util.Optional;

/**
 * The actions a rule can be triggered by. Immutable and thread-safe.
 */
public enum TriggerAction {
    /** A withdrawal request, evaluated before approval and signing. */
    WITHDRAWAL_CREATE("withdrawal.create"),
    /** An EVM contract call (including ERC-20 transfers), evaluated before signing. */
    WEB3_CONTRACT_CALL("web3.contract_call");

    private final String wireName;

    TriggerAction(String wireName) {
        this.wireName = wireName;
    }

    /** The wire name, e.g. {@code "withdrawal.create"}. */
    public String wireName() {
        return wireName;
    }

    /**
     * The action with this exact wire name. Matching is case-sensitive, as the API's enum is: a
     * {@code "Withdrawal.Create"} is not an action.
     *
     * @return the action, or empty when {@code name} is null or not an action's wire name
     */
    public static Optional<TriggerAction> fromWireName(String name) {
        for (TriggerAction a : values()) {
            if (a.wireName.equals(name)) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return wireName;
    }
}
