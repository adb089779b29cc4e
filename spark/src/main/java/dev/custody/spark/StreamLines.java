package dev.custody.spark;

import dev.custody.engine.Decision;
import dev.custody.engine.payload.Action;
import dev.custody.engine.replay.ActionStream;
import dev.custody.engine.replay.StreamLedger;
import dev.custody.engine.schema.TriggerAction;
import dev.custody.engine.velocity.VelocityException;
import dev.custody.engine.velocity.VelocityLedger;
import java.io.Reader;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.Map;

/**
 * What the Spark job does to one line, on an executor, with engine-core's own types: reading it
 * ({@link ActionStream#parse}), and the checks the replay's ledger makes before it counts a record. Those checks
 * run on a fresh {@link VelocityLedger} (one that has seen nothing refuses only what is out of range), so their
 * messages are the ledger's own. Stateless and thread-safe.
 */
final class StreamLines {
    private static final Instant MIN_INSTANT = Instant.EPOCH;
    private static final Instant MAX_INSTANT = Instant.parse("2200-01-01T00:00:00Z");

    private StreamLines() {}

    /** One line read as {@code custody replay} reads it, a line over {@code maxLine} characters being malformed. */
    static ActionStream.Line parse(long number, String text, int maxLine) {
        if (text.length() > maxLine) {
            return new ActionStream(Reader.nullReader(), maxLine).parse(new ActionStream.RawLine(number, null, text.length()));
        }
        return ActionStream.parse(number, text);
    }

    /** The action as the replay's ledger hands it on: without {@code at}, it is given the job's instant. */
    static Action withInstant(Action action, Instant now) {
        return action.at() == null ? action.withAt(now) : action;
    }

    /**
     * The ledger keys of a withdrawal (lowercase wallet, lowercase workspace, network), or null when it has none
     * to derive from or count under (not a withdrawal, or {@code wallet_id}, {@code workspace_id} or
     * {@code withdrawal.network_code} missing).
     */
    static String[] keys(Action a) {
        if (a.action() != TriggerAction.WITHDRAWAL_CREATE || a.walletId() == null || a.walletId().isEmpty()
                || a.workspaceId() == null || a.workspaceId().isEmpty()) {
            return null;
        }
        Map<String, Object> w = a.sections().get("withdrawal");
        Object n = w == null ? null : w.get("network_code");
        if (!(n instanceof String network) || network.isEmpty()) {
            return null;
        }
        return new String[] {a.walletId().toLowerCase(Locale.ROOT), a.workspaceId().toLowerCase(Locale.ROOT), network};
    }

    /** Whether a withdrawal lacks a velocity section, so the replay derives it. */
    static boolean needsVelocity(Action a) {
        return a.sections().get("wallet") == null || a.sections().get("workspace") == null;
    }

    /** Whether the ledger takes this instant (1970 to 2200). */
    static boolean inRange(Instant at) {
        return !at.isBefore(MIN_INSTANT) && at.isBefore(MAX_INSTANT);
    }

    /** Epoch nanoseconds of an instant in range. */
    static long nanos(Instant at) {
        return at.getEpochSecond() * 1_000_000_000L + at.getNano();
    }

    /** The ledger's refusal of a query whose instant is out of range (its message, from a fresh ledger). */
    static String rangeError(Action a, String[] keys) {
        try {
            VelocityLedger.create().velocity(keys[1], keys[0], keys[2], a.at());
            return null;
        } catch (VelocityException | IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /** The refusal of a settlement by the ledger (value or instant out of range), or null when it would count it. */
    static StreamLedger.Rejected settlementRejected(ActionStream.SettlementLine s) {
        var st = s.settlement();
        if (inRange(st.at()) && st.valueUsd().precision() - st.valueUsd().scale() <= 12) {
            // what the ledger takes, without building one: an instant in range and a value (never negative) below
            // 10^12 USD, so below 10^18 micro-dollars once rounded; only the rest goes to a fresh ledger for its words
            return null;
        }
        StreamLedger.EventResult r = new StreamLedger(VelocityLedger.create(), false, Clock.fixed(Instant.EPOCH, ZoneOffset.UTC))
                .apply(s.settlement());
        return r instanceof StreamLedger.Rejected rejected ? rejected : null;
    }

    /** The malformed line a refused settlement becomes in the replay. */
    static ActionStream.MalformedLine malformed(ActionStream.SettlementLine s, StreamLedger.Rejected r) {
        return new ActionStream.MalformedLine(s.number(), 0, r.id(), r.message());
    }

    /**
     * The ledger's refusal of a query more than the lateness before what it has seen (the same words as
     * {@link VelocityLedger#velocity}).
     */
    static String lateError(Instant at, long watermarkNanos, Duration lateness) {
        return "velocity as of `" + at + "` is unavailable: the ledger has already seen `"
                + Instant.EPOCH.plusNanos(watermarkNanos) + "`, more than "
                + lateness.toString().substring(2).toLowerCase(Locale.ROOT) + " later";
    }

    /** The fail-closed decision on a withdrawal whose velocity the ledger cannot give. */
    static Decision unavailable(Action a, String error) {
        return StreamLedger.unavailable(a, error);
    }
}
