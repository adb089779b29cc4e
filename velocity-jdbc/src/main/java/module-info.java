/**
 * The durable velocity ledger: engine-core's {@code VelocitySource} over a SQL database (docs/design.md §18).
 * {@code DataSource} in, {@code VelocitySource} out: SQLite (embedded, WAL) or PostgreSQL (several replicas of one
 * service), the schema created and migrated by the module itself. The JDBC driver is the service's own: the module
 * names no driver class, {@code DriverManager} finds the one on the path.
 */
module dev.custody.velocity.jdbc {
    requires transitive dev.custody.engine;
    requires transitive java.sql;
    requires com.zaxxer.hikari;

    exports dev.custody.velocity.jdbc;
}
