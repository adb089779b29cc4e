package dev.custody.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.custody.engine.payload.Action;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.schema.TriggerAction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PolicySourcesTest {
    static final String WS = "00cd4ae6-310e-4566-99ae-1270f1ed5570";
    static final String DOC = """
            id: limits
            name: withdrawal limits
            status: active
            version: 1
            workspace_id: 00cd4ae6-310e-4566-99ae-1270f1ed5570
            approval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf
            rules:
              - id: big
                trigger_action: withdrawal.create
                condition: withdrawal.value_usd > 10000
                effect: DENY
            """;

    @Test
    void parseGivesTheDocumentsPoliciesInOrder() {
        List<Policy> policies = PolicySources.parse(DOC, "limits.yaml");
        assertEquals(1, policies.size());
        assertEquals("limits", policies.get(0).id());
        assertEquals("big", policies.get(0).rules().get(0).ruleId());
        assertEquals("withdrawal.value_usd > 10000", policies.get(0).rules().get(0).condition());
    }

    @Test
    void aDocumentThatDoesNotReadIsOneLineWithItsPosition() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PolicySources.parse("id: [unclosed", "bad.yaml"));
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
        assertEquals(true, e.getMessage().startsWith("bad.yaml:1:"), e.getMessage());
    }

    @Test
    void aWatchedDirectoryDecidesAndReadOnceRefusesABrokenFile(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("limits.yaml"), DOC);
        PolicyEngine engine = PolicyEngine.builder(PolicySources.watching(List.of(dir))).build();
        Decision d = engine.evaluate(WS, Action.builder(TriggerAction.WITHDRAWAL_CREATE)
                .walletId("92e0490b-f666-47c5-8c1a-dd0688c6fc87").workspaceId(WS)
                .at(Instant.parse("2026-11-03T14:05:00Z"))
                .field("principal.role", "signer").field("withdrawal.amount", 20000.0)
                .field("withdrawal.value_usd", 20000.0).field("withdrawal.asset_symbol", "USDC")
                .field("withdrawal.asset_is_native", false)
                .field("withdrawal.destination_address", "0x9474bfd290aa63e670a8ad0f0ad082b5114b5ea0")
                .field("withdrawal.network_code", "ETHEREUM_MAINNET").field("withdrawal.is_whitelisted", true)
                .field("withdrawal.address_age_sec", 86400).build());
        assertEquals(Outcome.DENY, d.outcome());
        assertEquals("big", d.ruleId());

        Files.writeString(dir.resolve("zz.yaml"), "rules: [");
        IOException e = assertThrows(IOException.class, () -> PolicySources.read(List.of(dir)));
        assertEquals(true, e.getMessage().startsWith(dir.resolve("zz.yaml") + ":1:")
                || e.getMessage().contains("zz.yaml:1:"), e.getMessage());
    }
}
