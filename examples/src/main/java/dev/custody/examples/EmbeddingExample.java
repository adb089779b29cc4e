package dev.custody.examples;

import dev.custody.engine.PolicyEngine;
import dev.custody.engine.eval.Decision;
import dev.custody.engine.payload.Action;
import dev.custody.engine.FilePolicySource;
import dev.custody.engine.schema.TriggerAction;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * The library in a service: one engine over the example policy files, one withdrawal decided. The README
 * quotes this class. Run from the repository root:
 *
 * <pre>
 * ./mvnw -B -q package -DskipTests
 * java -cp examples/target/classes:cli/target/custody.jar dev.custody.examples.EmbeddingExample
 * </pre>
 */
public final class EmbeddingExample {
    private EmbeddingExample() {}

    public static void main(String[] args) {
        Decision decision = decide(Path.of(args.length > 0 ? args[0] : "examples/policies"));
        System.out.println(decision.outcome() + " " + decision.ruleId() + ": " + decision.reason());
    }

    /** One withdrawal of a proposer, decided against the policy files under {@code policies}. */
    static Decision decide(Path policies) {
        // One engine per process: it compiles each workspace's policies once and caches the bundle.
        PolicyEngine engine = PolicyEngine.builder(FilePolicySource.watching(List.of(policies))).build();

        String workspace = "00cd4ae6-310e-4566-99ae-1270f1ed5570";
        Action withdrawal = Action.builder(TriggerAction.WITHDRAWAL_CREATE)
                .id("w-1001")
                .walletId("92e0490b-f666-47c5-8c1a-dd0688c6fc87")
                .workspaceId(workspace)
                .at(Instant.parse("2026-11-03T14:05:00Z"))
                .field("principal.user_email", "dara@example.com")
                .field("principal.role", "proposer")
                .field("withdrawal.amount", 7400.0)
                .field("withdrawal.value_usd", 7400.0)
                .field("withdrawal.asset_symbol", "USDC")
                .field("withdrawal.asset_is_native", false)
                .field("withdrawal.destination_address", "0x8ba1f109551bd432803012645ac136ddd64dba72")
                .field("withdrawal.network_code", "ETHEREUM_MAINNET")
                .field("withdrawal.is_whitelisted", true)
                .field("withdrawal.address_age_sec", 2_592_000)
                .build();

        // Never throws: policies that do not compile, a malformed action or a rule error is a fail-closed DENY.
        // After a policy approval or rejection, engine.invalidate(workspace) drops the cached bundle.
        return engine.evaluate(workspace, withdrawal);
    }
}
