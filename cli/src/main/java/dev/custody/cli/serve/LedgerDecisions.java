package dev.custody.cli.serve;

import dev.custody.engine.Decision;
import dev.custody.engine.EngineObserver;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.payload.Action;
import dev.custody.engine.replay.StreamLedger;
import dev.custody.engine.schema.TriggerAction;
import dev.custody.engine.velocity.VelocityException;
import dev.custody.velocity.jdbc.JdbcVelocityLedger;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Deciding the actions of one request with velocity from the durable ledger ({@code custody serve --ledger},
 * docs/design.md §5.5): what {@code custody replay --velocity derive} does for the same actions, with
 * {@link JdbcVelocityLedger} in place of the in-memory ledger.
 *
 * <ol>
 *   <li>An action without {@code at} gets the server clock's instant (as replay gives it the clock's).
 *   <li>Every withdrawal with a {@code wallet_id}, {@code workspace_id} and {@code withdrawal.network_code} is an
 *       attempt: the request's attempts go to the ledger in one call, in order, so each sees the attempts before it
 *       and they are committed (durable) before any answer is sent. An attempt is keyed by the action's id: a retry
 *       of an id is not counted again and gets the figures its first attempt got, so it is decided alike.
 *   <li>A withdrawal that lacks its {@code wallet} or {@code workspace} section gets it from those figures
 *       ({@link StreamLedger#withVelocity}); a section given is used as given. Figures the ledger refuses (an instant
 *       more than the lateness before its watermark) deny it {@code malformed_action}, as replay denies such a line.
 *   <li>When the ledger does not answer, every such withdrawal is denied fail-closed ({@code ledger}), those that
 *       gave their sections too: an attempt that is not recorded would be missing from every later count. Contract
 *       calls and withdrawals without the keys are decided as given, as replay decides them.
 * </ol>
 * The decisions that the engine does not take itself (the ledger's denials) are handed to the same observers (the
 * decision log, the metrics), so the log holds every decision the server answered. Thread-safe.
 */
final class LedgerDecisions {
    private final PolicyEngine engine;
    private final JdbcVelocityLedger ledger;
    private final Clock clock;
    private final EngineObserver observer;

    LedgerDecisions(PolicyEngine engine, JdbcVelocityLedger ledger, Clock clock, EngineObserver observer) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.ledger = Objects.requireNonNull(ledger, "ledger");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.observer = Objects.requireNonNull(observer, "observer");
    }

    /** The decisions of the actions, in order; null elements (malformed actions) stay null. */
    Decision[] decide(List<Action> actions) {
        Action[] prepared = new Action[actions.size()];
        int[] op = new int[actions.size()];
        Arrays.fill(op, -1);
        List<JdbcVelocityLedger.Operation> ops = new ArrayList<>();
        for (int i = 0; i < prepared.length; i++) {
            Action a = actions.get(i);
            if (a == null) {
                continue;
            }
            a = a.at() == null ? a.withAt(clock.instant()) : a;
            prepared[i] = a;
            if (a.action() == TriggerAction.WITHDRAWAL_CREATE && StreamLedger.missingKey(a) == null) {
                op[i] = ops.size();
                ops.add(new JdbcVelocityLedger.RecordAttempt(a.id(), a.workspaceId(), a.walletId(),
                        StreamLedger.network(a), a.at()));
            }
        }
        List<JdbcVelocityLedger.Outcome> outcomes = List.of();
        String unavailable = null;
        if (!ops.isEmpty()) {
            try {
                outcomes = ledger.apply(ops);
            } catch (VelocityException e) {
                unavailable = e.getMessage();
            }
        }
        Decision[] out = new Decision[prepared.length];
        for (int i = 0; i < prepared.length; i++) {
            Action a = prepared[i];
            if (a == null) {
                continue;
            }
            if (op[i] < 0) {
                out[i] = engine.evaluate(a, false);
            } else if (unavailable != null) {
                out[i] = outside(a, StreamLedger.ledgerUnavailable(a, unavailable));
            } else {
                JdbcVelocityLedger.Attempted attempted = (JdbcVelocityLedger.Attempted) outcomes.get(op[i]);
                if (attempted.conflict() != null) {
                    out[i] = outside(a, StreamLedger.unavailable(a, attempted.conflict()));
                } else if (!StreamLedger.needsVelocity(a)) {
                    out[i] = engine.evaluate(a, false);
                } else if (attempted.figures().refused()) {
                    out[i] = outside(a, StreamLedger.unavailable(a, attempted.figures().refusal()));
                } else {
                    out[i] = engine.evaluate(StreamLedger.withVelocity(a, attempted.figures().velocity()), false);
                }
            }
        }
        return out;
    }

    private Decision outside(Action a, Decision d) {
        observer.decided(a.workspaceId(), a, d, 0);
        return d;
    }
}
