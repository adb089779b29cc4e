package dev.custody.cli.command;

import dev.custody.engine.Decision;
import dev.custody.engine.FailureKind;
import dev.custody.engine.Outcome;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts of a replay: per decision, fail-closed, malformed lines, velocity events, and per deciding rule.
 * Memory is bounded by the number of rules. Not thread-safe.
 */
final class ReplaySummary {
    /** Distinct event names counted apart; the rest are counted together, so a hostile stream cannot grow memory. */
    static final int MAX_EVENT_NAMES = 100;

    /** One deciding rule and how many actions it decided. */
    record RuleCount(String policyId, String ruleId, String decision, boolean failClosed, long count) {}

    private final Map<Outcome, long[]> decisions = new EnumMap<>(Outcome.class);
    private final Map<String, Counter> rules = new HashMap<>();
    private final Map<String, long[]> events = new TreeMap<>();
    private long actions;
    private long failClosed;
    private long malformed;
    private long overBudget;
    private long overCost;
    private final long start = System.nanoTime();
    private long elapsed = -1;

    /** Whether event records were only counted ({@code --velocity given}), not applied to a ledger. */
    private final boolean eventsIgnored;

    ReplaySummary() {
        this(false);
    }

    ReplaySummary(boolean eventsIgnored) {
        this.eventsIgnored = eventsIgnored;
        for (Outcome o : Outcome.values()) {
            decisions.put(o, new long[1]);
        }
    }

    void add(Decision d) {
        actions++;
        decisions.get(d.outcome())[0]++;
        if (d.failClosed()) {
            failClosed++;
            if (d.failure() == FailureKind.TIME_BUDGET) {
                overBudget++;
            } else if (d.failure() == FailureKind.COST_BUDGET) {
                overCost++;
            }
        }
        if (d.ruleId() != null) {
            String key = d.policyId() + '\u0000' + d.ruleId() + '\u0000' + d.outcome() + (d.failClosed() ? "!" : "");
            rules.computeIfAbsent(key, k -> new Counter(d)).count++;
        }
    }

    /** A malformed line: counted as an action denied fail-closed. */
    void malformed() {
        actions++;
        malformed++;
        failClosed++;
        decisions.get(Outcome.DENY)[0]++;
    }

    void event(String name) {
        String key = events.containsKey(name) || events.size() < MAX_EVENT_NAMES ? name : "(other)";
        events.computeIfAbsent(key, k -> new long[1])[0]++;
    }

    void finish() {
        elapsed = System.nanoTime() - start;
    }

    long actions() {
        return actions;
    }

    /** Event records seen (applied, or counted with {@code --velocity given}). */
    long eventRecords() {
        long n = 0;
        for (long[] c : events.values()) {
            n += c[0];
        }
        return n;
    }

    long malformedLines() {
        return malformed;
    }

    long count(Outcome o) {
        return decisions.get(o)[0];
    }

    List<RuleCount> rules() {
        List<RuleCount> out = new ArrayList<>();
        for (Counter c : rules.values()) {
            out.add(new RuleCount(c.policyId, c.ruleId, c.decision, c.failClosed, c.count));
        }
        out.sort(Comparator.comparing(RuleCount::decision).thenComparing(Comparator.comparingLong(RuleCount::count)
                .reversed()).thenComparing(RuleCount::ruleId));
        return out;
    }

    /** The summary as text, for stderr. */
    void print(PrintWriter err, String source) {
        double seconds = Math.max(elapsed, 1) / 1e9;
        err.println(Inputs.plural(actions, "action") + " from " + source + " in " + String.format("%.2f s", seconds)
                + " (" + Math.round(actions / seconds) + " actions/s)");
        err.println(String.format("  %-9s %8d", "ALLOW", count(Outcome.ALLOW)));
        err.println(String.format("  %-9s %8d", "DENY", count(Outcome.DENY))
                + (failClosed > 0 ? "  (" + failClosed + " fail-closed)" : ""));
        err.println(String.format("  %-9s %8d", "NO_MATCH", count(Outcome.NO_MATCH)));
        if (malformed > 0) {
            err.println(String.format("  %-9s %8d", "malformed", malformed) + "  (denied, fail-closed)");
        }
        if (overCost > 0) {
            err.println("  " + overCost + " denied for passing the cost limit (the same on every machine; see "
                    + "--cost-limit)");
        }
        if (overBudget > 0) {
            err.println("  " + overBudget + " denied for running past the wall-clock backstop: the machine is "
                    + "stalled or far slower than expected; raise it with --time-budget");
        }
        for (Map.Entry<String, long[]> e : events.entrySet()) {
            String events = Inputs.plural(e.getValue()[0], "`" + e.getKey() + "` event");
            err.println(eventsIgnored ? "  ignored " + events + " (--velocity given)"
                    : "  applied " + events + " to the velocity ledger");
        }
        List<RuleCount> rs = rules();
        if (!rs.isEmpty()) {
            err.println("by rule:");
            int width = rs.stream().mapToInt(r -> r.ruleId().length()).max().orElse(0);
            for (RuleCount r : rs) {
                err.println(String.format("  %-" + width + "s  %-5s %8d", r.ruleId(), r.decision(), r.count())
                        + (r.failClosed() ? "  (fail-closed: the rule failed)" : ""));
            }
        }
    }

    /** The summary as JSON values. */
    Map<String, Object> json() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("actions", actions);
        Map<String, Object> d = new LinkedHashMap<>();
        for (Outcome o : Outcome.values()) {
            d.put(o.name(), count(o));
        }
        m.put("decisions", d);
        m.put("fail_closed", failClosed);
        m.put("malformed_lines", malformed);
        Map<String, Object> ev = new LinkedHashMap<>();
        events.forEach((k, v) -> ev.put(k, v[0]));
        m.put("events", ev);
        List<Object> rs = new ArrayList<>();
        for (RuleCount r : rules()) {
            Map<String, Object> j = new LinkedHashMap<>();
            j.put("policy_id", r.policyId());
            j.put("rule_id", r.ruleId());
            j.put("decision", r.decision());
            j.put("fail_closed", r.failClosed());
            j.put("count", r.count());
            rs.add(j);
        }
        m.put("rules", rs);
        return m;
    }

    private static final class Counter {
        final String policyId;
        final String ruleId;
        final String decision;
        final boolean failClosed;
        long count;

        Counter(Decision d) {
            policyId = d.policyId();
            ruleId = d.ruleId();
            decision = d.outcome().name();
            failClosed = d.failClosed();
        }
    }
}
