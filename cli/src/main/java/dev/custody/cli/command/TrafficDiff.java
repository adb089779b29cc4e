package dev.custody.cli.command;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.custody.engine.Decision;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.payload.Action;
import dev.custody.engine.replay.ActionStream;
import dev.custody.engine.replay.DecisionRecords;
import dev.custody.engine.replay.Replayer;
import java.io.BufferedReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The impact of a policy revision on recorded traffic, shared by {@code diff --actions} and {@code review}: every
 * action is decided against the base and the head sets and each action whose decision or attribution differs
 * ({@link DecisionRecords#changed}) is handed to a {@link Listener}, in the order read. Two sources:
 * <ul>
 *   <li>an action stream, each side replayed exactly as {@code replay} would, by a {@link Replayer} of its own
 *       (velocity derived by its own ledger, settlements applied);
 *   <li>a decision log as {@code replay --from-log} reads it ({@link LogReplay#loggedAction}): each logged action
 *       is decided by both engines exactly as logged (its velocity sections are those the engine saw).
 * </ul>
 * Not thread-safe: one diff per instance of its listener.
 */
final class TrafficDiff {
    private TrafficDiff() {}

    /** A change of decision, or of attribution when {@code from} equals {@code to}. */
    record Transition(String from, String to) {
        String label() {
            return from + " → " + to + (from.equals(to) ? " (attribution)" : "");
        }
    }

    /** Told of each changed action and each record that could not be decided, in the order read. */
    interface Listener {
        /** An action decided differently: {@code line} is its 1-based line in the input. */
        void changed(Action action, long line, Decision before, Decision after) throws IOException;

        /** A line that is not an action either side can decide (denied on both sides). */
        void malformed(long line, String message);
    }

    /**
     * What a diff counted.
     *
     * @param actions the actions (and malformed lines) read
     * @param events settlement records applied
     * @param changed the actions decided differently
     * @param malformed the lines that could not be read
     * @param transitions each transition with its count, largest first, then by label
     */
    record Totals(long actions, long events, long changed, long malformed, List<Map.Entry<Transition, Long>> transitions) {
        Totals {
            transitions = List.copyOf(transitions);
        }
    }

    /** Decides every action of {@code stream} on both sides, as {@code replay} would. */
    static Totals stream(ActionStream stream, Replayer base, Replayer head, Listener listener) throws IOException {
        Counter c = new Counter();
        ActionStream.Line read;
        while ((read = stream.next()) != null) {
            Replayer.Step baseStep = base.sequence(read);
            Replayer.Step headStep = head.sequence(read);
            ActionStream.Line line = baseStep.line();
            if (line instanceof ActionStream.ActionLine a) {
                c.actions++;
                c.decided(a.action(), a.number(), base.decide(baseStep), head.decide(headStep), listener);
            } else if (line instanceof ActionStream.MalformedLine m) {
                c.actions++;
                c.malformed++;
                listener.malformed(m.number(), "malformed action line: " + m.message());
            } else if (line instanceof ActionStream.SettlementLine) {
                c.events++;
            }
        }
        StreamOptions.checkAccounted(stream, c.actions + c.events, "diff");
        return c.totals();
    }

    /** Decides every action a decision log recorded on both sides, each exactly as logged. */
    static Totals log(BufferedReader in, PolicyEngine base, PolicyEngine head, Listener listener) throws IOException {
        Counter c = new Counter();
        long number = 0;
        String text;
        while ((text = in.readLine()) != null) {
            number++;
            if (text.isBlank()) {
                continue;
            }
            c.actions++;
            LogReplay.Logged read;
            try {
                read = LogReplay.loggedAction(LogReplay.JSON.readTree(text));
            } catch (JsonProcessingException e) {
                read = new LogReplay.Logged.Unreadable("malformed JSON");
            }
            if (read instanceof LogReplay.Logged.Readable r) {
                Action a = r.action();
                c.decided(a, number, base.evaluate(a, false), head.evaluate(a, false), listener);
            } else {
                c.malformed++;
                listener.malformed(number, ((LogReplay.Logged.Unreadable) read).problem());
            }
        }
        return c.totals();
    }

    private static final class Counter {
        long actions;
        long events;
        long changed;
        long malformed;
        final Map<Transition, long[]> transitions = new LinkedHashMap<>();

        void decided(Action a, long line, Decision before, Decision after, Listener listener) throws IOException {
            if (!DecisionRecords.changed(before, after)) {
                return;
            }
            changed++;
            transitions.computeIfAbsent(new Transition(label(before), label(after)), k -> new long[1])[0]++;
            listener.changed(a, line, before, after);
        }

        Totals totals() {
            List<Map.Entry<Transition, Long>> table = new ArrayList<>();
            transitions.forEach((t, n) -> table.add(Map.entry(t, n[0])));
            table.sort(Comparator.comparingLong((Map.Entry<Transition, Long> e) -> e.getValue()).reversed()
                    .thenComparing(e -> e.getKey().label()));
            return new Totals(actions, events, changed, malformed, table);
        }
    }

    /** {@code DENY}, or {@code DENY (fail-closed)}. */
    static String label(Decision d) {
        return d.outcome().name() + (d.failClosed() ? " (fail-closed)" : "");
    }
}
