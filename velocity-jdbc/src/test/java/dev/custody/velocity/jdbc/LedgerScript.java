package dev.custody.velocity.jdbc;

import dev.custody.engine.check.ActionReader;
import dev.custody.engine.payload.Action;
import dev.custody.engine.schema.TriggerAction;
import dev.custody.engine.velocity.Settlement;
import dev.custody.engine.velocity.SettlementStatus;
import dev.custody.engine.velocity.Velocity;
import dev.custody.engine.velocity.VelocityException;
import dev.custody.engine.velocity.VelocityLedger;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * An event stream for the differential tests: withdrawal attempts and settlements, in stream order, and what the
 * in-memory {@link VelocityLedger} (the oracle) gives for each attempt, fed the same calls in the same order as a
 * replay feeds them: the figures before the attempt ({@code velocity}, or its refusal), then {@code recordAttempt}.
 */
final class LedgerScript {
    /** One event of the stream: an attempt (with its action id) or a settlement. */
    sealed interface Event permits Attempt, Settle {}

    record Attempt(String id, String workspaceId, String walletId, String networkCode, Instant at) implements Event {}

    record Settle(Settlement settlement) implements Event {}

    /** What an attempt got: figures, or a refusal. */
    record Answer(Velocity velocity, String refusal) {
        @Override
        public String toString() {
            return refusal != null ? "refused: " + refusal : FiguresText.write(velocity);
        }
    }

    final List<Event> events;

    LedgerScript(List<Event> events) {
        this.events = List.copyOf(events);
    }

    /** The number of attempts. */
    long attempts() {
        return events.stream().filter(e -> e instanceof Attempt).count();
    }

    /**
     * A generated stream: {@code n} events over several workspaces, wallets and networks, time moving forward in
     * small steps with equal instants, settlements a little late (within the lateness), some later than the
     * lateness (refused queries, counted or dropped records), a few more than a day late (dropped), and queries at
     * exact window edges (1 h, 6 h, 24 h after a settlement, and a nanosecond either side). Values have up to 9
     * decimals, so rounding to micro-dollars (half-even) is exercised.
     */
    static LedgerScript generated(long seed, int n, Duration lateness) {
        Random r = new Random(seed);
        String[] workspaces = {"0a1b2c3d-0000-4000-8000-000000000001", "0a1b2c3d-0000-4000-8000-000000000002",
            "0A1B2C3D-0000-4000-8000-00000000000F"};
        String[][] wallets = new String[workspaces.length][];
        for (int w = 0; w < workspaces.length; w++) {
            wallets[w] = new String[3];
            for (int i = 0; i < 3; i++) {
                wallets[w][i] = String.format(Locale.ROOT, "9f8e7d6c-%04d-4000-8000-0000000000%02d", w, i);
            }
        }
        String[] networks = {"ETHEREUM_MAINNET", "BASE_MAINNET", "SOL_MAINNET"};
        long late = lateness.toNanos();
        Instant now = Instant.parse("2026-11-02T00:00:00Z");
        List<Event> out = new ArrayList<>(n);
        List<Instant> edges = new ArrayList<>();
        int id = 0;
        while (out.size() < n) {
            // time moves: mostly seconds to minutes, sometimes not at all, sometimes by nanoseconds
            int step = r.nextInt(20);
            if (step == 0) {
                now = now.plusNanos(1 + r.nextInt(999));
            } else if (step > 2) {
                now = now.plusMillis(r.nextInt(90_000));
            }
            int w = r.nextInt(workspaces.length);
            String ws = workspaces[w];
            String wallet = wallets[w][r.nextInt(3)];
            if (r.nextInt(10) == 0) {
                // the same wallet and workspace, in other letter cases
                wallet = wallet.toUpperCase(Locale.ROOT);
                ws = r.nextBoolean() ? ws.toUpperCase(Locale.ROOT) : ws.toLowerCase(Locale.ROOT);
            }
            String network = networks[r.nextInt(networks.length)];
            int kind = r.nextInt(100);
            Instant at = now;
            if (kind < 6) {
                at = now.minusNanos((long) (r.nextDouble() * late)); // late, within the tolerance
            } else if (kind < 8) {
                at = now.minusNanos(late + 1 + (long) (r.nextDouble() * 2 * 3_600_000_000_000L)); // past it
            } else if (kind < 9) {
                at = now.minus(Duration.ofHours(25 + r.nextInt(5))); // past every window
            } else if (kind < 13 && !edges.isEmpty()) {
                Instant edge = edges.get(r.nextInt(edges.size()));
                Duration window = List.of(Duration.ofHours(1), Duration.ofHours(6), Duration.ofHours(24))
                        .get(r.nextInt(3));
                at = edge.plus(window).plusNanos(r.nextInt(3) - 1);
                if (at.isAfter(now)) {
                    now = at;
                }
            }
            if (r.nextInt(5) < 2) {
                BigDecimal value = r.nextInt(20) == 0 ? BigDecimal.ZERO
                        : BigDecimal.valueOf(r.nextLong(1, 50_000_000_000_000L), 9);
                SettlementStatus status = switch (r.nextInt(6)) {
                    case 0 -> SettlementStatus.FAILED;
                    case 1 -> SettlementStatus.SUCCESS;
                    default -> SettlementStatus.EXECUTED;
                };
                String sid = r.nextInt(3) == 0 ? null : "s-" + seed + "-" + out.size();
                out.add(new Settle(new Settlement(sid, ws, wallet, network, value, status, at)));
                if (r.nextInt(4) == 0) {
                    edges.add(at);
                }
            } else {
                out.add(new Attempt("a-" + seed + "-" + (++id), ws, wallet, network, at));
            }
        }
        return new LedgerScript(out);
    }

    /** The events of an action stream file (withdrawals with their keys, and settlement records), in order. */
    static LedgerScript ofStream(Path file) throws IOException {
        List<Event> out = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isBlank()) {
                continue;
            }
            ActionReader.Result r = ActionReader.read(line.getBytes(StandardCharsets.UTF_8), 0,
                    line.getBytes(StandardCharsets.UTF_8).length);
            if (r instanceof ActionReader.SettlementRead s) {
                out.add(new Settle(s.settlement()));
            } else if (r instanceof ActionReader.Read read && read.action().action() == TriggerAction.WITHDRAWAL_CREATE) {
                Action a = read.action();
                Map<String, Object> w = a.sections().get("withdrawal");
                Object network = w == null ? null : w.get("network_code");
                if (a.walletId() != null && a.workspaceId() != null && network instanceof String net && a.at() != null) {
                    out.add(new Attempt(a.id(), a.workspaceId(), a.walletId(), net, a.at()));
                }
            }
        }
        return new LedgerScript(out);
    }

    /** What the oracle gives each attempt, in order. */
    List<Answer> oracle(Duration lateness) {
        VelocityLedger ledger = VelocityLedger.builder().lateness(lateness).build();
        List<Answer> out = new ArrayList<>();
        for (Event e : events) {
            if (e instanceof Settle s) {
                s.settlement().applyTo(ledger);
            } else {
                Attempt a = (Attempt) e;
                Answer answer;
                try {
                    answer = new Answer(ledger.velocity(a.workspaceId(), a.walletId(), a.networkCode(), a.at()), null);
                } catch (VelocityException ex) {
                    answer = new Answer(null, ex.getMessage());
                }
                out.add(answer);
                ledger.recordAttempt(a.workspaceId(), a.walletId(), a.networkCode(), a.at());
            }
        }
        return out;
    }

    /** What the JDBC ledger gives each attempt, the events applied in chunks of {@code chunk} (one transaction each). */
    List<Answer> jdbc(JdbcVelocityLedger ledger, int chunk) {
        List<Answer> out = new ArrayList<>();
        for (int from = 0; from < events.size(); from += chunk) {
            List<JdbcVelocityLedger.Operation> ops = new ArrayList<>();
            for (Event e : events.subList(from, Math.min(events.size(), from + chunk))) {
                ops.add(operation(e));
            }
            for (JdbcVelocityLedger.Outcome o : ledger.apply(ops)) {
                if (o instanceof JdbcVelocityLedger.Attempted a) {
                    out.add(new Answer(a.figures().velocity(), a.figures().refusal()));
                }
            }
        }
        return out;
    }

    static JdbcVelocityLedger.Operation operation(Event e) {
        if (e instanceof Settle s) {
            return new JdbcVelocityLedger.RecordSettlement(s.settlement());
        }
        Attempt a = (Attempt) e;
        return new JdbcVelocityLedger.RecordAttempt(a.id(), a.workspaceId(), a.walletId(), a.networkCode(), a.at());
    }

    /** Whether two answers are the same: equal refusals, or figures equal as numbers (scales may differ). */
    static boolean same(Answer a, Answer b) {
        if (a.refusal() != null || b.refusal() != null) {
            return java.util.Objects.equals(a.refusal(), b.refusal());
        }
        return same(a.velocity(), b.velocity());
    }

    static boolean same(Velocity a, Velocity b) {
        return same(a.wallet(), b.wallet()) && same(a.workspace(), b.workspace()) && same(a.network(), b.network());
    }

    private static boolean same(Velocity.Figures a, Velocity.Figures b) {
        return a.outflow1h().compareTo(b.outflow1h()) == 0 && a.outflow6h().compareTo(b.outflow6h()) == 0
                && a.outflow24h().compareTo(b.outflow24h()) == 0 && a.withdrawalCount1h() == b.withdrawalCount1h();
    }
}
