package dev.custody.engine.coverage;

import dev.custody.engine.compile.CompiledCondition;
import dev.custody.engine.compile.ConditionBranches;
import dev.custody.engine.compile.ConditionResult;
import dev.custody.engine.check.Payload;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The observer that counts coverage: per rule, how often it was evaluated, true, false and failing (exactly
 * what the evaluator reported, docs/design.md §5.3); per branch of its condition ({@link ConditionBranches}),
 * how often it was true and false. {@link #report()} takes a snapshot.
 *
 * <h2>How branches are counted</h2>
 * Each evaluated rule whose condition has branches is evaluated once more ({@link ConditionBranches#observe}),
 * after the decision and outside its time budget ({@link EvaluationObserver}): by a small probe that follows
 * cel-java's evaluation order when the condition fits its fragment, else on cel-java under an evaluation
 * listener. The decision itself ran on the compiled path, which decides exactly as cel-java does
 * (docs/design.md §10.4). Nothing is evaluated when no recorder is set.
 *
 * <h2>Identity of a rule</h2>
 * A rule is its policy id, rule id, trigger action and condition text: the bundles of several workspaces (or of
 * several test files) that hold the same rule add to the same counts. Rules are reported in the order the
 * recorder first learns of them; to list rules that no decision loaded (a workspace the stream never names),
 * hand them to {@link #rulesLoaded} first.
 *
 * <p>Thread-safe: counts are atomic, and a snapshot taken while decisions run sees each count at some moment
 * during the snapshot.
 */
public final class CoverageRecorder implements EvaluationObserver {
    private record Key(String policyId, String ruleId, TriggerAction action, String condition) {}

    /** The counts of one rule; the branch outcomes of branch {@code i} are at {@code 2i} (true) and {@code 2i+1}. */
    private static final class Counters implements ConditionBranches.Outcomes {
        final Key key;
        final Effect effect;
        final ConditionBranches branches;
        final LongAdder trueCount = new LongAdder();
        final LongAdder falseCount = new LongAdder();
        final LongAdder errorCount = new LongAdder();
        final AtomicLongArray outcomes;

        Counters(Key key, Effect effect, ConditionBranches branches) {
            this.key = key;
            this.effect = effect;
            this.branches = branches;
            this.outcomes = new AtomicLongArray(2 * branches.branches().size());
        }

        @Override
        public void outcome(int branch, boolean value) {
            outcomes.incrementAndGet(2 * branch + (value ? 0 : 1));
        }
    }

    /**
     * By compiled condition (compared by identity; rules of the same text may share one): the fast path, checked
     * against the rule's ids.
     */
    private final Map<CompiledCondition, Counters> byCondition = new ConcurrentHashMap<>();
    /** By identity, in the order first seen; guarded by itself. */
    private final Map<Key, Counters> byKey = new LinkedHashMap<>();

    /** A recorder with nothing counted. */
    public CoverageRecorder() {}

    @Override
    public void rulesLoaded(List<ObservedRule> rules) {
        rules.forEach(this::counters);
    }

    @Override
    public void ruleEvaluated(ObservedRule rule, Payload payload, ConditionResult result) {
        Counters c = counters(rule);
        if (result instanceof ConditionResult.Value v) {
            (v.value() ? c.trueCount : c.falseCount).increment();
        } else {
            c.errorCount.increment();
        }
        if (c.outcomes.length() > 0) {
            c.branches.observe(payload, c);
        }
    }

    private Counters counters(ObservedRule rule) {
        CompiledCondition condition = rule.condition();
        Counters c = byCondition.get(condition);
        if (c != null && c.key.ruleId().equals(rule.ruleId()) && c.key.policyId().equals(rule.policyId())) {
            return c;
        }
        Key key = new Key(rule.policyId(), rule.ruleId(), condition.action(), condition.source());
        synchronized (byKey) {
            c = byKey.get(key);
            if (c == null) {
                c = new Counters(key, rule.effect(), ConditionBranches.of(condition));
                byKey.put(key, c);
            }
        }
        // the branches found on one compiled form serve every other compile of the same text; a compiled form
        // shared by two rules (the compiler remembers conditions by text, so rules of the same text share one)
        // stays on this slower path
        byCondition.putIfAbsent(condition, c);
        return c;
    }

    /** The counts so far. */
    public CoverageReport report() {
        List<Counters> all;
        synchronized (byKey) {
            all = new ArrayList<>(byKey.values());
        }
        List<CoverageReport.RuleCoverage> rules = new ArrayList<>(all.size());
        List<CoverageReport.BranchCoverage> branches = new ArrayList<>();
        for (Counters c : all) {
            long t = c.trueCount.sum();
            long f = c.falseCount.sum();
            long e = c.errorCount.sum();
            rules.add(new CoverageReport.RuleCoverage(c.key.policyId(), c.key.ruleId(), c.key.action(), c.effect,
                    c.key.condition(), t + f + e, t, f, e));
            List<ConditionBranches.Branch> bs = c.branches.branches();
            for (int i = 0; i < bs.size(); i++) {
                ConditionBranches.Branch b = bs.get(i);
                branches.add(new CoverageReport.BranchCoverage(c.key.policyId(), c.key.ruleId(), c.key.action(),
                        b.line(), b.column(), b.offset(), b.length(), b.text(), c.outcomes.get(2 * i),
                        c.outcomes.get(2 * i + 1)));
            }
        }
        return new CoverageReport(rules, branches);
    }
}
