package dev.custody.engine.velocity;

import dev.custody.engine.diagnostic.Suggestions;
import dev.custody.engine.eval.Decision;
import dev.custody.engine.payload.Action;
import dev.custody.engine.schema.TriggerAction;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The velocity ledger of a replay (DESIGN §4): it derives the {@code wallet} and {@code workspace}
 * sections of withdrawal actions from the earlier records of the stream.
 *
 * <p>The replay calls it for every record, in stream order:
 * <pre>{@code
 * StreamLedger velocity = new StreamLedger(VelocityLedger.create(), assumeSettled, clock);
 * // an event record (a map with an "event" key): Applied, or Rejected = a malformed line
 * StreamLedger.EventResult r = velocity.onEvent(record);
 * // an action:
 * StreamLedger.Prepared p = velocity.prepare(action);
 * Decision d = p instanceof StreamLedger.Ready ready
 *         ? evaluator.evaluate(bundle, ready.action(), explain)
 *         : Decision.failClosed(action.id(), action.action(), ((StreamLedger.Unavailable) p).error(), 0);
 * velocity.record(p.action(), d);
 * }</pre>
 *
 * <ul>
 *   <li>{@code {"event": "withdrawal.settled", "wallet_id", "workspace_id", "network_code", "value_usd",
 *       "status": "executed"|"success"|"failed", "at"}} records realize outflow ({@code failed} counts
 *       nothing); an optional {@code id} is allowed; anything else is a malformed line.
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
    /** The event type that realizes outflow. */
    public static final String SETTLED = "withdrawal.settled";

    private static final List<String> EVENT_FIELDS =
            List.of("event", "id", "wallet_id", "workspace_id", "network_code", "value_usd", "status", "at");
    private static final Set<String> EVENT_FIELD_SET = Set.copyOf(EVENT_FIELDS);

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

    /** Whether a parsed JSON record is an event record (it has an {@code event} key) rather than an action. */
    public static boolean isEvent(Map<String, ?> record) {
        return record.containsKey("event");
    }

    /** What became of an event record. */
    public sealed interface EventResult permits Applied, Rejected {}

    /** The event was applied to the ledger. */
    public record Applied() implements EventResult {}

    /**
     * The event is malformed: the replay reports the line as malformed.
     *
     * @param message one line naming the field
     * @param id the record's {@code id} when it has one, else null
     */
    public record Rejected(String message, String id) implements EventResult {}

    /** Applies one event record. Never throws for malformed content. */
    public EventResult onEvent(Map<String, ?> record) {
        Object rawId = record.get("id");
        String id = rawId == null ? null : String.valueOf(rawId);
        Object event = record.get("event");
        if (!SETTLED.equals(event)) {
            String name = String.valueOf(event);
            String hint = Suggestions.closest(name, List.of(SETTLED)).map(s -> " (did you mean `" + s + "`?)").orElse("");
            return new Rejected("unknown event `" + clip(name) + "`" + hint, id);
        }
        for (String key : record.keySet()) {
            if (!EVENT_FIELD_SET.contains(key)) {
                String hint = Suggestions.closest(key, EVENT_FIELDS).map(s -> " (did you mean `" + s + "`?)").orElse("");
                return new Rejected("unknown property `" + clip(key) + "` in a `" + SETTLED + "` record" + hint, id);
            }
        }
        try {
            String wallet = text(record, "wallet_id");
            String workspace = text(record, "workspace_id");
            String network = text(record, "network_code");
            BigDecimal value = usd(record.get("value_usd"));
            Object rawStatus = record.get("status");
            SettlementStatus status = rawStatus instanceof String s ? SettlementStatus.fromWireName(s).orElse(null) : null;
            if (status == null) {
                throw new IllegalArgumentException("`status` must be `executed`, `success` or `failed`"
                        + (rawStatus == null ? "" : ", not `" + clip(String.valueOf(rawStatus)) + "`"));
            }
            Instant at = instant(record.get("at"));
            ledger.recordSettlement(workspace, wallet, network, value, status, at);
            return new Applied();
        } catch (IllegalArgumentException e) {
            return new Rejected(e.getMessage(), id);
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
    public record Unavailable(Action action, String error) implements Prepared {}

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
        if (needWallet) {
            a = a.withSection("wallet", v.walletSection());
        }
        if (needWorkspace) {
            a = a.withSection("workspace", v.workspaceSection());
        }
        return new Ready(a, List.of());
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
                    ledger.recordSettlement(action.workspaceId(), action.walletId(), network(action), usd(value),
                            SettlementStatus.EXECUTED, at);
                }
            }
        } catch (IllegalArgumentException e) {
            notes.add("not recorded: " + e.getMessage());
        }
        return List.copyOf(notes);
    }

    private static String missingKey(Action a) {
        if (a.walletId() == null || a.walletId().isEmpty()) {
            return "`wallet_id` is missing";
        }
        if (a.workspaceId() == null || a.workspaceId().isEmpty()) {
            return "`workspace_id` is missing";
        }
        return network(a) == null ? "`withdrawal.network_code` is missing" : null;
    }

    private static String network(Action a) {
        Map<String, Object> w = a.sections().get("withdrawal");
        Object n = w == null ? null : w.get("network_code");
        return n instanceof String s && !s.isEmpty() ? s : null;
    }

    private static String text(Map<String, ?> record, String key) {
        Object v = record.get(key);
        if (v == null) {
            throw new IllegalArgumentException("`" + key + "` is missing");
        }
        if (!(v instanceof String s) || s.isEmpty()) {
            throw new IllegalArgumentException("`" + key + "` must be a non-empty string");
        }
        return s;
    }

    private static BigDecimal usd(Object v) {
        if (v == null) {
            throw new IllegalArgumentException("`value_usd` is missing");
        }
        BigDecimal d;
        if (v instanceof BigDecimal b) {
            d = b;
        } else if (v instanceof Double || v instanceof Float) {
            double x = ((Number) v).doubleValue();
            if (!Double.isFinite(x)) {
                throw new IllegalArgumentException("`value_usd` must be a finite number");
            }
            // the shortest decimal that reads back as this double: 0.1 stays 0.1
            d = BigDecimal.valueOf(x);
        } else if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            d = BigDecimal.valueOf(((Number) v).longValue());
        } else if (v instanceof BigInteger b) {
            d = new BigDecimal(b);
        } else {
            throw new IllegalArgumentException("`value_usd` must be a number");
        }
        if (d.signum() < 0) {
            throw new IllegalArgumentException("`value_usd` must not be negative, got " + d.toPlainString());
        }
        return d;
    }

    private static Instant instant(Object v) {
        if (v == null) {
            throw new IllegalArgumentException("`at` is missing");
        }
        if (v instanceof String s) {
            try {
                return Instant.parse(s);
            } catch (DateTimeParseException e) {
                // fall through
            }
        }
        throw new IllegalArgumentException("`at` `" + clip(String.valueOf(v))
                + "` is not an ISO-8601 instant such as `2026-11-02T14:05:00Z`");
    }

    private static String clip(String s) {
        return s.length() <= 64 ? s : s.substring(0, 61) + "...";
    }
}
