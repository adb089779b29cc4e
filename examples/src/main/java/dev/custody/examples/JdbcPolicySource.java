package dev.custody.examples;

import dev.custody.engine.PolicySource;
import dev.custody.engine.PolicySources;
import dev.custody.engine.policy.Policy;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * A {@link PolicySource} over a database: one row per policy document, the JSON or YAML that {@code custody api
 * policies pull} writes, in declaration order.
 *
 * <pre>
 * CREATE TABLE policy_documents (
 *   workspace_id VARCHAR(36)  NOT NULL,  -- lower case
 *   position     INT          NOT NULL,  -- declaration order
 *   name         VARCHAR(200) NOT NULL,  -- e.g. role-limits.yaml: its extension picks the format
 *   document     CLOB         NOT NULL,
 *   PRIMARY KEY (workspace_id, position))
 * </pre>
 *
 * <p>A document that does not read cleanly fails the load (the engine then denies the workspace's actions, failure
 * {@code load}) rather than deciding on part of the policies. Thread-safe as its {@link DataSource} is.
 */
public final class JdbcPolicySource implements PolicySource {
    static final String QUERY =
            "SELECT name, document FROM policy_documents WHERE workspace_id = ? ORDER BY position";

    private final DataSource db;

    public JdbcPolicySource(DataSource db) {
        this.db = Objects.requireNonNull(db, "db");
    }

    @Override
    public List<Policy> policies(String workspaceId) throws SQLException, IOException {
        List<Policy> out = new ArrayList<>();
        try (Connection c = db.getConnection(); PreparedStatement q = c.prepareStatement(QUERY)) {
            q.setString(1, workspaceId);
            try (ResultSet rows = q.executeQuery()) {
                while (rows.next()) {
                    String name = rows.getString("name");
                    try {
                        out.addAll(PolicySources.parse(rows.getString("document"), name));
                    } catch (IllegalArgumentException e) {
                        throw new IOException("policy document `" + name + "` does not read: " + e.getMessage());
                    }
                }
            }
        }
        return out;
    }
}
