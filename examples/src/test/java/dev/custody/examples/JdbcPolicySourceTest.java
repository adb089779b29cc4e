package dev.custody.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.files.FilePolicySource;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.Decision;
import dev.custody.engine.FailureKind;
import dev.custody.engine.Outcome;
import dev.custody.engine.files.PolicyFiles;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's database-backed source, on an in-memory H2 database holding the example policy files. */
class JdbcPolicySourceTest {
    private static final String WS = EmbeddingExample.WORKSPACE;

    @TempDir
    Path dir;

    private final JdbcDataSource db = new JdbcDataSource();
    private int position;

    @BeforeEach
    void schema() throws Exception {
        db.setURL("jdbc:h2:mem:" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE policy_documents (workspace_id VARCHAR(36) NOT NULL, position INT NOT NULL,"
                    + " name VARCHAR(200) NOT NULL, document CLOB NOT NULL, PRIMARY KEY (workspace_id, position))");
        }
        for (Path file : PolicyFiles.discover(List.of(ExamplesTest.POLICIES))) {
            insert(file.getFileName().toString(), Files.readString(file));
        }
    }

    private void insert(String name, String document) throws Exception {
        try (Connection c = db.getConnection(); PreparedStatement s = c.prepareStatement(
                "INSERT INTO policy_documents VALUES (?, ?, ?, ?)")) {
            s.setString(1, WS);
            s.setInt(2, position++);
            s.setString(3, name);
            s.setString(4, document);
            s.executeUpdate();
        }
    }

    @Test
    void decidesAsTheFilesDoUnderTheSameRevision() throws Exception {
        Decision fromFiles = PolicyEngine.builder(FilePolicySource.watching(List.of(ExamplesTest.POLICIES))::policies).build()
                .evaluate(WS, EmbeddingExample.withdrawal("w-1001", "proposer", 7400.0, 2_592_000));
        try (WithdrawalGuard guard = new WithdrawalGuard(new JdbcPolicySource(db), dir.resolve("log.jsonl"),
                new SimpleMeterRegistry())) {
            Decision fromDb = guard.decide(WS, EmbeddingExample.withdrawal("w-1001", "proposer", 7400.0, 2_592_000));
            assertEquals("proposer-ceiling", fromDb.ruleId());
            assertTrue(fromFiles.sameAs(fromDb), fromFiles + " vs " + fromDb);
            assertEquals(fromFiles.bundleRevision(), fromDb.bundleRevision());
        }
    }

    @Test
    void anApprovalEventInvalidatesTheWorkspace() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (WithdrawalGuard guard = new WithdrawalGuard(new JdbcPolicySource(db), dir.resolve("log.jsonl"),
                registry)) {
            Decision before = guard.decide(WS, EmbeddingExample.withdrawal("w-2", "signer", 1500.0, 2_592_000));
            assertEquals(Outcome.ALLOW, before.outcome());

            insert("payout-freeze.yaml", """
                    - id: payout-freeze
                      name: Payout freeze
                      approval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf
                      rules:
                        - rule_id: freeze
                          trigger_action: withdrawal.create
                          effect: DENY
                          description: no payouts during the audit
                          condition: withdrawal.value_usd > 1000
                    """);
            // approved in the database, but the engine still holds the bundle it compiled
            assertEquals(Outcome.ALLOW, guard.decide(WS, EmbeddingExample.withdrawal("w-3", "signer", 1500.0,
                    2_592_000)).outcome());
            guard.onPolicyEvent(new WithdrawalGuard.PolicyEvent(WS, "payout-freeze", "approved"));
            Decision after = guard.decide(WS, EmbeddingExample.withdrawal("w-4", "signer", 1500.0, 2_592_000));
            assertEquals(Outcome.DENY, after.outcome());
            assertEquals("freeze", after.ruleId());
            assertNotEquals(before.bundleRevision(), after.bundleRevision());
        }
        assertEquals(2.0, registry.get("custody.bundle.loads").tag("result", "compiled").counter().count());
    }

    @Test
    void aDocumentThatDoesNotReadDeniesTheWorkspace() throws Exception {
        insert("broken.json", "{\"id\": ");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (WithdrawalGuard guard = new WithdrawalGuard(new JdbcPolicySource(db), dir.resolve("log.jsonl"),
                registry)) {
            Decision d = guard.decide(WS, EmbeddingExample.withdrawal("w-5", "signer", 1500.0, 2_592_000));
            assertEquals(Outcome.DENY, d.outcome());
            assertEquals(FailureKind.LOAD, d.failure());
            assertTrue(d.error().contains("policy document `broken.json` does not read"), d.error());
        }
        assertEquals(1.0, registry.get("custody.bundle.loads").tag("result", "load_failed").counter().count());
        assertEquals(1.0, registry.get("custody.decisions")
                .tags("action", "withdrawal.create", "outcome", "deny", "failure", "load").counter().count());
    }
}
