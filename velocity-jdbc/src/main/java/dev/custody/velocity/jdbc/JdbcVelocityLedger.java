package dev.custody.velocity.jdbc;

/** Placeholder while the module is built (issue 33). */
public final class JdbcVelocityLedger {
    private JdbcVelocityLedger() {}
}
