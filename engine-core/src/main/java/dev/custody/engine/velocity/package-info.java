/**
 * Velocity: the in-memory ledger of realized outflow and withdrawal attempts over sliding windows
 * ({@link dev.custody.engine.velocity.VelocityLedger}), the figures it gives, settlement records, and the
 * {@link dev.custody.engine.velocity.VelocitySource} SPI a service implements over its own store. Knows nothing
 * of actions or decisions.
 */
package dev.custody.engine.velocity;
