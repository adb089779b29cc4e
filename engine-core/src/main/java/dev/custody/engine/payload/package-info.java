/**
 * The action a service decides: {@link dev.custody.engine.payload.Action} (built field by field, or from a
 * withdrawal request by {@link dev.custody.engine.payload.WithdrawalActions} with the address book and velocity
 * figures). Reading action JSON and checking an action against the field schema are the tools' (package
 * {@code dev.custody.engine.check}, not exported to consumers).
 */
package dev.custody.engine.payload;
