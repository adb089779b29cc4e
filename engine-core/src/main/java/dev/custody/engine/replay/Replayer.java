package dev.custody.engine.replay;

import dev.custody.engine.PolicyEngine;
import dev.custody.engine.Decision;
import dev.custody.engine.payload.Action;
import dev.custody.engine.schema.TriggerAction;
import java.util.Objects;

/**
 * Decides a stream of actions as {@code custody replay} does, through a {@link PolicyEngine}: the one
 * definition of a replay that {@code replay}, {@code diff} (once per side) and a Spark partition share, so they
 * cannot decide the same stream differently.
 *
 * <p>Two stages. {@link #sequence} runs in stream order, on one thread: it applies settlement records to the
 * velocity ledger, gives each withdrawal its absent {@code wallet}/{@code workspace} sections as of its
 * {@code at}, records it as an attempt, and loads the workspace's bundle (so load and compile problems are
 * reported in stream order). {@link #decide} can then run on any thread: decisions are pure functions of the
 * action and the bundle. With {@code assumeSettled} a withdrawal's decision changes what later withdrawals see,
 * so {@link #sequence} decides it there and then.
 *
 * <p>Without a ledger ({@code --velocity given}) actions are decided exactly as given and settlement records
 * are passed on, unapplied. A withdrawal whose velocity the ledger cannot give (it is more than the lateness
 * tolerance before the latest record) is denied fail-closed, failure {@code malformed_action}: the stream is
 * out of order there.
 *
 * <p>{@link #sequence} is not thread-safe (call it in stream order); {@link #decide} is.
 */
public final class Replayer {
    private final PolicyEngine engine;
    private final StreamLedger ledger;
    private final boolean assumeSettled;
    private final boolean explain;

    /**
     * The workspace ids (as spelled in the stream) whose bundle {@link #sequence} has loaded, so that {@link #read}
     * never loads one out of stream order (load problems are reported in stream order). Bounded: past
     * {@value #MAX_LOADED} workspaces, actions of new ones are decided after the in-order stage, as without it.
     */
    private final java.util.concurrent.ConcurrentHashMap<String, Boolean> loaded = new java.util.concurrent.ConcurrentHashMap<>();

    private static final int MAX_LOADED = 10_000;

    /** The key of an action line in {@link #loaded}: its workspace id, or "" for none. */
    private static String workspaceOf(ActionStream.ActionLine a) {
        String w = a.action().workspaceId();
        return w == null ? "" : w;
    }

    /**
     * @param ledger the stream's velocity ledger, or null to decide actions exactly as given
     * @param assumeSettled whether every withdrawal that is not denied realizes its value (needs a ledger)
     * @param explain whether decisions carry a trace
     */
    public Replayer(PolicyEngine engine, StreamLedger ledger, boolean assumeSettled, boolean explain) {
        this.engine = Objects.requireNonNull(engine, "engine");
        if (assumeSettled && ledger == null) {
            throw new IllegalArgumentException("assumeSettled needs a velocity ledger");
        }
        this.ledger = ledger;
        this.assumeSettled = assumeSettled;
        this.explain = explain;
    }

    /**
     * A line after the in-order stage: the line (an action with its velocity sections derived, or a settlement
     * the ledger refused turned into a malformed line), and its decision when it had to be taken in order
     * (else null). Out of {@link #read}: the line, its decision when taken on read, and then, with a ledger, the
     * attempt to count in order (null when there is none).
     */
    public record Step(ActionStream.Line line, Decision decided, StreamLedger.Attempt attempt) {
        /** A step with nothing read ahead for the ledger. */
        public Step(ActionStream.Line line, Decision decided) {
            this(line, decided, null);
        }
    }

    /**
     * The first stage, on any thread, right after the line is read: the line, with its decision when nothing the
     * in-order stage does can change it. Such a line is an action with its own {@code at} whose workspace bundle
     * {@link #sequence} has already loaded, and, with a ledger, no velocity to derive (not a withdrawal, or one
     * that gives both its sections) and no {@code assumeSettled}: its in-order stage would only count the
     * attempt, and hand the action to {@link #decide} unchanged. Deciding it here, while the action just read is
     * still in this thread's cache, takes the same decision (the same pure function of the action and the bundle)
     * at a fraction of the cost of reading the action again later on another thread. Thread-safe.
     */
    public Step read(ActionStream.Line line) {
        if (!(line instanceof ActionStream.ActionLine a) || a.action().at() == null || !loaded.containsKey(workspaceOf(a))) {
            return new Step(line, null);
        }
        Action action = a.action();
        if (ledger != null && (assumeSettled || action.action() == TriggerAction.WITHDRAWAL_CREATE
                && (action.sections().get("wallet") == null || action.sections().get("workspace") == null))) {
            return new Step(line, null);
        }
        return new Step(line, engine.evaluate(action, explain), ledger == null ? null : ledger.attempt(action));
    }

    /** The in-order stage of a line that {@link #read} has seen: a line it decided only counts its attempt. */
    public Step sequence(Step read) {
        if (read.decided() != null && read.line() instanceof ActionStream.ActionLine) {
            if (read.attempt() != null) {
                ledger.recordAttempt(read.attempt());
            }
            return read;
        }
        return sequence(read.line());
    }

    /** The in-order stage of one line. */
    public Step sequence(ActionStream.Line line) {
        if (line instanceof ActionStream.SettlementLine s) {
            if (ledger != null && ledger.apply(s.settlement()) instanceof StreamLedger.Rejected r) {
                return new Step(new ActionStream.MalformedLine(s.number(), 0, r.id(), r.message()), null);
            }
            return new Step(line, null);
        }
        if (!(line instanceof ActionStream.ActionLine a)) {
            return new Step(line, null);
        }
        engine.preload(a.action());
        if (loaded.size() < MAX_LOADED) {
            loaded.putIfAbsent(workspaceOf(a), Boolean.TRUE);
        }
        if (ledger == null) {
            return new Step(line, null);
        }
        StreamLedger.Prepared prepared = ledger.prepare(a.action());
        Action action = prepared.action();
        Decision decided = null;
        if (prepared instanceof StreamLedger.Unavailable u) {
            decided = u.decision();
        } else if (assumeSettled && action.action() == TriggerAction.WITHDRAWAL_CREATE) {
            decided = engine.evaluate(action, explain);
        }
        if (decided != null) {
            ledger.record(action, decided);
        } else if (!assumeSettled) {
            ledger.recordAttempt(action);
        }
        return new Step(a.with(action), decided);
    }

    /** The decision on a sequenced action line (null for other lines). Thread-safe. */
    public Decision decide(Step step) {
        if (step.decided() != null) {
            return step.decided();
        }
        return step.line() instanceof ActionStream.ActionLine a ? engine.evaluate(a.action(), explain) : null;
    }

    /** Both stages at once, for a caller that decides in stream order. */
    public Decision next(ActionStream.Line line) {
        return decide(sequence(line));
    }
}
