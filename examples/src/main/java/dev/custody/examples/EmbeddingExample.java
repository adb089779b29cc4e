package dev.custody.examples;

import dev.custody.engine.PolicySources;
import dev.custody.engine.Decision;
import dev.custody.engine.payload.Action;
import dev.custody.engine.schema.TriggerAction;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The library in a service: a {@link WithdrawalGuard} (one engine, a decision log, metrics) over the example
 * policy files decides three withdrawals, prints each decision with the revision of the policies that decided it,
 * then the metrics it counted. The decision log it writes reads back with
 * {@code custody replay --policies examples/policies --from-log examples/target/decisions.jsonl}. The README
 * quotes this class. Run from the repository root:
 *
 * <pre>
 * ./mvnw -B -q package -DskipTests
 * java -cp examples/target/classes:cli/target/custody.jar:examples/target/lib/* dev.custody.examples.EmbeddingExample
 * </pre>
 */
public final class EmbeddingExample {
    static final String WORKSPACE = "00cd4ae6-310e-4566-99ae-1270f1ed5570";

    private EmbeddingExample() {}

    public static void main(String[] args) throws Exception {
        Path policies = Path.of(args.length > 0 ? args[0] : "examples/policies");
        Path log = Path.of(args.length > 1 ? args[1] : "examples/target/decisions.jsonl");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        for (Decision d : decide(policies, log, registry)) {
            System.out.println(d.actionId() + " " + d.outcome()
                    + (d.ruleId() == null ? "" : " " + d.ruleId() + ": " + d.reason())
                    + " [bundle " + d.bundleRevision() + "]");
        }
        System.out.println("decision log: " + log + " (" + Files.readAllLines(log).size() + " records)");
        metrics(registry).forEach(System.out::println);
    }

    /** Three withdrawals of the example workspace, decided and logged to a fresh {@code log}. */
    static List<Decision> decide(Path policies, Path log, MeterRegistry registry) throws IOException,
            InterruptedException {
        Files.deleteIfExists(log);
        List<Decision> out = new ArrayList<>();
        // One guard (one engine) per process: it compiles each workspace's policies once and caches the bundle.
        try (WithdrawalGuard guard = new WithdrawalGuard(PolicySources.watching(List.of(policies)), log, registry)) {
            out.add(guard.decide(WORKSPACE, withdrawal("w-1001", "proposer", 7400.0, 2_592_000)));
            out.add(guard.decide(WORKSPACE, withdrawal("w-1002", "signer", 1500.0, 2_592_000)));
            out.add(guard.decide(WORKSPACE, withdrawal("w-1003", "signer", 9000.0, 2_592_000)));
        } // closing the guard delivers the queued decisions to the log
        return out;
    }

    static Action withdrawal(String id, String role, double usd, long addressAgeSec) {
        return Action.builder(TriggerAction.WITHDRAWAL_CREATE)
                .id(id)
                .walletId("92e0490b-f666-47c5-8c1a-dd0688c6fc87")
                .workspaceId(WORKSPACE)
                .at(Instant.parse("2026-11-03T14:05:00Z"))
                .field("principal.user_email", "dara@example.com")
                .field("principal.role", role)
                .field("withdrawal.amount", usd)
                .field("withdrawal.value_usd", usd)
                .field("withdrawal.asset_symbol", "USDC")
                .field("withdrawal.asset_is_native", false)
                .field("withdrawal.destination_address", "0x8ba1f109551bd432803012645ac136ddd64dba72")
                .field("withdrawal.network_code", "ETHEREUM_MAINNET")
                .field("withdrawal.is_whitelisted", true)
                .field("withdrawal.address_age_sec", addressAgeSec)
                .build();
    }

    /** The registry's non-zero counts, one {@code name{tags} count} line each, sorted (timers: their count). */
    static List<String> metrics(MeterRegistry registry) {
        List<String> out = new ArrayList<>();
        for (Meter m : registry.getMeters()) {
            for (Measurement v : m.measure()) {
                if (v.getStatistic().name().equals("COUNT") && v.getValue() != 0) {
                    String tags = m.getId().getTags().stream().map(t -> t.getKey() + "=" + t.getValue())
                            .collect(Collectors.joining(","));
                    out.add(m.getId().getName() + "{" + tags + "} " + Math.round(v.getValue()));
                }
            }
        }
        out.sort(null);
        return out;
    }
}
