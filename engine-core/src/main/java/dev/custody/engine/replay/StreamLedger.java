package dev.custody.engine.replay;

import dev.custody.engine.Decision;
import dev.custody.engine.FailureKind;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.ActionReader;
import dev.custody.engine.schema.TriggerAction;
import dev.custody.engine.velocity.Settlement;
import dev.custody.engine.velocity.SettlementStatus;
import dev.custody.engine.velocity.Velocity;
import dev.custody.engine.velocity.VelocityException;
import dev.custody.engine.velocity.VelocityLedger;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The velocity ledger of a replay (docs/design.md §4): it derives the {@code wallet} and {@code workspace}
 * sections of withdrawal actions from the earlier records of the stream.
 *
 * <p>The replay calls it for every record, in stream order:
 * <pre>{@code
 * StreamLedger velocity = new StreamLedger(VelocityLedger.create(), assumeSettled, clock);
 * // a settlement record: Applied, or Rejected = a malformed line
 * StreamLedger.EventResult r = velocity.apply(settlement);
 * // an action:
 * StreamLedger.Prepared p = velocity.prepare(action);
 * Decision d = p instanceof StreamLedger.Ready ready
 *         ? engine.evaluate(ready.action(), explain)
 *         : ((StreamLedger.Unavailable) p).decision();
 * velocity.record(p.action(), d);
 * }</pre>
 *
 * <ul>
 *   <li>{@link Settlement} records (read by {@link ActionReader}) realize outflow ({@code failed} counts
 *       nothing).
 *   <li>{@link #prepare}: a withdrawal whose {@code wallet} or {@code workspace} section is absent gets it
 *       from the ledger as of its {@code at}; a section given in the action, even empty, is used as given.
 *       An action without {@code at} is given the clock's instant, so the velocity and {@code context.*}
 *       agree.
 *   <li>{@link #record}: after the decision, every withdrawal is recorded as an attempt (whatever the
 *       decision, even a fail-closed one), so an action never counts itself. With {@code assumeSettled},
 *       a withdrawal that was not denied also realizes its {@code withdrawal.value_usd} at its {@code at}.
 * </ul>
 * Deriving needs the action's {@code wallet_id}, {@code workspace_id} and {@code withdrawal.network_code};
 * without them, absent sections stay absent (a rule that reads one fails, which denies) and a note says
 * why. Web3 contract calls pass through untouched.
 *
 * <p>Independent of any CLI library. Thread-safe (the ledger is), but a replay must feed records in order
 * from one thread for the figures to mean anything.
 */
public final class StreamLedger {
    private final VelocityLedger ledger;
    private final boolean assumeSettled;
    private final Clock clock;

    /**
     * @param ledger the ledger to read and update
     * @param assumeSettled whether every withdrawal that is not denied realizes its value (the
     *     {@code --assume-settled} replay)
     * @param clock the instant of actions without {@code at}
     */
    public StreamLedger(VelocityLedger ledger, boolean assumeSettled, Clock clock) {
        this.ledger = Objects.requireNonNull(ledger, "ledger");
        this.assumeSettled = assumeSettled;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The ledger behind this stream. */
    public VelocityLedger ledger() {
        return ledger;
    }

    /** What became of a settlement record. */
    public sealed interface EventResult permits Applied, Rejected {}

    /** The settlement was applied to the ledger. */
    public record Applied() implements EventResult {}

    /**
     * The ledger refused the settlement (a value or instant out of its range): the replay reports the line as
     * malformed.
     *
     * @param message one line
     * @param id the record's {@code id} when it has one, else null
     */
    public record Rejected(String message, String id) implements EventResult {}

    /** Applies one settlement record (as {@link ActionReader} read it). Never throws for out-of-range content. */
    public EventResult apply(Settlement settlement) {
        try {
            settlement.applyTo(ledger);
            return new Applied();
        } catch (IllegalArgumentException e) {
            return new Rejected(e.getMessage(), settlement.id());
        }
    }

    /** An action ready to evaluate, or why its velocity could not be derived. */
    public sealed interface Prepared permits Ready, Unavailable {
        /** The action with its instant set (and, when ready, its velocity sections): pass it to {@link #record}. */
        Action action();
    }

    /**
     * The action to evaluate (and then to pass to {@link #record}), with the {@code wallet} and
     * {@code workspace} sections filled in where they were absent.
     *
     * @param notes why a section was left absent, for the trace; usually empty
     */
    public record Ready(Action action, List<String> notes) implements Prepared {
        public Ready {
            Objects.requireNonNull(action, "action");
            notes = List.copyOf(notes);
        }
    }

    /**
     * The ledger cannot give the figures as of the action's instant (it is more than the lateness tolerance
     * before the latest record): the replay must deny the action fail-closed with this error.
     *
     * @param action the action with its instant set; pass it to {@link #record} all the same
     * @param error one line
     */
    public record Unavailable(Action action, String error) implements Prepared {
        /** The fail-closed DENY ({@code malformed_action}, this error) the replay records for the action. */
        public Decision decision() {
            return StreamLedger.unavailable(action, error);
        }
    }

    /**
     * The fail-closed DENY ({@code malformed_action}) on an action whose velocity figures cannot be given, with this
     * one-line error.
     */
    public static Decision unavailable(Action action, String error) {
        return Decision.refused(action.id(), action.action(), FailureKind.MALFORMED_ACTION, error);
    }

    /** Fills in the velocity sections of a withdrawal that lacks them. Never throws for malformed content. */
    public Prepared prepare(Action action) {
        Objects.requireNonNull(action, "action");
        Action a = action.at() == null ? action.withAt(clock.instant()) : action;
        if (a.action() != TriggerAction.WITHDRAWAL_CREATE) {
            return new Ready(a, List.of());
        }
        boolean needWallet = a.sections().get("wallet") == null;
        boolean needWorkspace = a.sections().get("workspace") == null;
        if (!needWallet && !needWorkspace) {
            return new Ready(a, List.of());
        }
        String missing = missingKey(a);
        if (missing != null) {
            return new Ready(a, List.of("velocity not derived: " + missing));
        }
        Velocity v;
        try {
            v = ledger.velocity(a.workspaceId(), a.walletId(), network(a), a.at());
        } catch (VelocityException | IllegalArgumentException e) {
            return new Unavailable(a, e.getMessage());
        }
        return new Ready(withVelocity(a, v), List.of());
    }

    /**
     * Whether the velocity of a withdrawal is derived: it is a {@code withdrawal.create} that lacks its {@code wallet}
     * or its {@code workspace} section (a section given, even empty, is used as given).
     */
    public static boolean needsVelocity(Action action) {
        return action.action() == TriggerAction.WITHDRAWAL_CREATE
                && (action.sections().get("wallet") == null || action.sections().get("workspace") == null);
    }

    /** The action with its absent {@code wallet} and {@code workspace} sections filled from the figures. */
    public static Action withVelocity(Action action, Velocity v) {
        Action a = action;
        if (a.sections().get("wallet") == null) {
            a = a.withSection("wallet", v.walletSection());
        }
        if (a.sections().get("workspace") == null) {
            a = a.withSection("workspace", v.workspaceSection());
        }
        return a;
    }

    /**
     * The fail-closed DENY ({@code ledger}) of a withdrawal whose attempt could not be recorded or whose figures could
     * not be read because the ledger did not answer (a database down or too slow), with this one-line error.
     */
    public static Decision ledgerUnavailable(Action action, String error) {
        return Decision.refused(action.id(), action.action(), FailureKind.LEDGER, error);
    }

    /**
     * Records a decided action: a withdrawal counts as an attempt; with {@code assumeSettled}, one that was
     * not denied also realizes its value. Pass the action as {@link #prepare} returned it. Never throws for
     * malformed content.
     *
     * @return notes on what could not be recorded, for the trace; usually empty
     */
    public List<String> record(Action action, Decision decision) {
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(decision, "decision");
        return record(action, assumeSettled && !decision.denied());
    }

    /**
     * Records a withdrawal as an attempt, before or without its decision: what a replay without
     * {@code assumeSettled} needs, since there the decision changes nothing the ledger holds, so deciding
     * can run in parallel. With {@code assumeSettled}, call {@link #record} with the decision instead.
     *
     * @return notes on what could not be recorded, for the trace; usually empty
     * @throws IllegalStateException when this ledger assumes settlement (the decision is needed)
     */
    public List<String> recordAttempt(Action action) {
        Objects.requireNonNull(action, "action");
        if (assumeSettled) {
            throw new IllegalStateException("an assume-settled ledger needs the decision: call record(action, decision)");
        }
        return record(action, false);
    }

    /**
     * What counting a withdrawal's attempt needs, read from the action by {@link #attempt} on any thread, so that
     * the in-order stage ({@link #recordAttempt(Attempt)}) does not go back to the action, long out of its cache.
     * Its ids are canonical instances shared by every attempt of the same wallet or workspace.
     */
    public static final class Attempt {
        private final String workspaceId;
        private final String walletId;
        private final String network;
        private final Instant at;

        private Attempt(String workspaceId, String walletId, String network, Instant at) {
            this.workspaceId = workspaceId;
            this.walletId = walletId;
            this.network = network;
            this.at = at;
        }
    }

    /** Canonical id strings for {@link #attempt}, bounded: past the bound, ids are used as they come. */
    private final java.util.concurrent.ConcurrentHashMap<String, String> ids = new java.util.concurrent.ConcurrentHashMap<>();

    private static final int MAX_IDS = 100_000;

    private String canonical(String id) {
        String known = ids.get(id);
        if (known != null) {
            return known;
        }
        if (ids.size() < MAX_IDS) {
            known = ids.putIfAbsent(id, id);
        }
        return known != null ? known : id;
    }

    /**
     * What {@link #recordAttempt(Action)} would count for this action, read now; null when it would count nothing
     * (not a withdrawal, or a key is missing). Thread-safe.
     */
    public Attempt attempt(Action action) {
        if (action.action() != TriggerAction.WITHDRAWAL_CREATE || missingKey(action) != null) {
            return null;
        }
        return new Attempt(canonical(action.workspaceId()), canonical(action.walletId()), canonical(network(action)),
                action.at());
    }

    /**
     * Counts an attempt read by {@link #attempt}: the same as {@link #recordAttempt(Action)} on its action.
     *
     * @throws IllegalStateException when this ledger assumes settlement (the decision is needed)
     */
    public void recordAttempt(Attempt attempt) {
        if (assumeSettled) {
            throw new IllegalStateException("an assume-settled ledger needs the decision: call record(action, decision)");
        }
        try {
            ledger.recordAttempt(attempt.workspaceId, attempt.walletId, attempt.network,
                    attempt.at == null ? clock.instant() : attempt.at);
        } catch (IllegalArgumentException e) {
            // as recordAttempt(Action): a note nobody reads in a replay
        }
    }

    private List<String> record(Action action, boolean realize) {
        if (action.action() != TriggerAction.WITHDRAWAL_CREATE) {
            return List.of();
        }
        String missing = missingKey(action);
        if (missing != null) {
            return List.of("attempt not recorded: " + missing);
        }
        Instant at = action.at() == null ? clock.instant() : action.at();
        List<String> notes = new ArrayList<>();
        try {
            ledger.recordAttempt(action.workspaceId(), action.walletId(), network(action), at);
            if (realize) {
                Object value = action.sections().get("withdrawal").get("value_usd");
                if (value == null) {
                    notes.add("outflow not realized: `withdrawal.value_usd` is absent");
                } else {
                    ledger.recordSettlement(action.workspaceId(), action.walletId(), network(action), ActionReader.usd(value),
                            SettlementStatus.EXECUTED, at);
                }
            }
        } catch (IllegalArgumentException e) {
            notes.add("not recorded: " + e.getMessage());
        }
        return List.copyOf(notes);
    }

    /**
     * Why a withdrawal's velocity cannot be derived nor its attempt counted: the key it lacks
     * ({@code `wallet_id` is missing}, …), or null when it has {@code wallet_id}, {@code workspace_id} and
     * {@code withdrawal.network_code}.
     */
    public static String missingKey(Action a) {
        if (a.walletId() == null || a.walletId().isEmpty()) {
            return "`wallet_id` is missing";
        }
        if (a.workspaceId() == null || a.workspaceId().isEmpty()) {
            return "`workspace_id` is missing";
        }
        return network(a) == null ? "`withdrawal.network_code` is missing" : null;
    }

    /** The withdrawal's {@code withdrawal.network_code}, or null when absent or empty. */
    public static String network(Action a) {
        Map<String, Object> w = a.sections().get("withdrawal");
        Object n = w == null ? null : w.get("network_code");
        return n instanceof String s && !s.isEmpty() ? s : null;
    }
}
