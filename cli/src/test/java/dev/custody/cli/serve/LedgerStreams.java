package dev.custody.cli.serve;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.custody.velocity.jdbc.testing.PostgresServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the {@code serve --ledger} tests share: the databases (a fresh SQLite file, a fresh database on the test
 * PostgreSQL), a policy whose velocity limits are tight enough that the example stream trips them, and that stream
 * with its velocity sections taken out (so the server must derive them), with late lines added.
 */
final class LedgerStreams {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger DATABASES = new AtomicInteger();

    /** Velocity limits the example stream meets often: every one of them reads derived figures. */
    static final String TIGHT_VELOCITY = """
            id: tight-velocity
            name: Tight velocity limits
            approval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf
            rules:
              - rule_id: wallet-burst-3
                trigger_action: withdrawal.create
                effect: DENY
                description: three attempts from one wallet in an hour
                condition: wallet.withdrawal_count_1h >= 3
              - rule_id: wallet-hourly-outflow
                trigger_action: withdrawal.create
                effect: DENY
                description: more than $20,000 out of one wallet in an hour
                condition: wallet.outflow_1h + withdrawal.value_usd > 20000
              - rule_id: network-6h-outflow
                trigger_action: withdrawal.create
                effect: DENY
                description: more than $60,000 on one network in 6 hours
                condition: workspace.network_outflow_6h + withdrawal.value_usd > 60000
              - rule_id: workspace-attempts
                trigger_action: withdrawal.create
                effect: DENY
                description: eight attempts in the workspace in an hour
                condition: workspace.withdrawal_count_1h >= 8 && workspace.outflow_24h > 1000
            """;

    private LedgerStreams() {}

    enum Store {
        SQLITE, POSTGRESQL;

        /** The {@code --ledger} URL of a new, empty database. */
        String freshUrl(Path dir) {
            if (this == SQLITE) {
                return dir.resolve("ledger-" + DATABASES.incrementAndGet() + ".db").toString();
            }
            try {
                return PostgresServer.shared().createDatabase("serve_" + ProcessHandle.current().pid() + "_"
                        + DATABASES.incrementAndGet()) + "?user=" + PostgresServer.USER;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * The example stream without its {@code wallet} and {@code workspace} sections, plus, after every 200th line, a
     * copy of the action before it two hours earlier (more than the 1 h lateness: refused, denied
     * {@code malformed_action} by replay and by the server alike).
     */
    static List<String> strippedStream() throws IOException {
        List<String> out = new ArrayList<>();
        int n = 0;
        for (String line : Files.readAllLines(Path.of("../examples/actions/stream.jsonl"), StandardCharsets.UTF_8)) {
            if (line.isBlank()) {
                continue;
            }
            ObjectNode o = (ObjectNode) JSON.readTree(line);
            o.remove("wallet");
            o.remove("workspace");
            out.add(JSON.writeValueAsString(o));
            if (++n % 200 == 0 && o.has("action") && o.get("action").asText().equals("withdrawal.create")) {
                ObjectNode late = o.deepCopy();
                late.put("id", o.get("id").asText() + "-late");
                late.put("at", Instant.parse(o.get("at").asText()).minusSeconds(7200).toString());
                out.add(JSON.writeValueAsString(late));
            }
        }
        return out;
    }

    static boolean isSettlement(String line) {
        return line.startsWith("{\"event\"");
    }
}
