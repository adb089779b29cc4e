/**
 * The velocity ledger on a SQL database: {@link dev.custody.velocity.jdbc.JdbcVelocityLedger} (docs/design.md §18).
 */
package dev.custody.velocity.jdbc;
