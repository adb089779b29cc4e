package dev.custody.analysis;

import com.microsoft.z3.BoolExpr;
import com.microsoft.z3.Context;
import com.microsoft.z3.IntExpr;
import dev.custody.engine.Decision;
import dev.custody.engine.Outcome;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Whether two policy sets decide every valid action alike, decision and attribution (what
 * {@link Decision#sameAs} compares), and if not, one witness action per kind of change.
 *
 * <p>Each set's decision is encoded exactly as the evaluator takes it (docs/design.md §3): the first true DENY
 * rule in declaration order; else, if a DENY rule fails, DENY fail-closed attributed to the first that fails;
 * else, if an ALLOW rule fails, DENY fail-closed attributed to the first that fails; else the first true ALLOW
 * rule; else NO_MATCH; each rule only when its policy targets the action's wallet and workspace. Every
 * difference reported has been replayed against both sets and shows the change; a change the solver found but
 * no replay confirmed (possible only with rules outside the fragment, which get free variables) is reported in
 * {@link Result#undecided()}, and so is a time-out. So {@code equivalent} is
 * true only when the solver proved it.
 *
 * <p>Each call builds and closes its own solver context; an instance holds only settings and is thread-safe.
 */
public final class SemanticDiff {
    private final long timeoutMs;

    /** One kind of change, with its witness (replayed). */
    public record Difference(TriggerAction action, Outcome from, Outcome to, Decision base, Decision head,
            Map<String, Object> witness) {
        public Difference {
            Objects.requireNonNull(witness, "witness");
        }
    }

    /**
     * The comparison.
     *
     * @param equivalent true when the solver proved that every valid action gets the same decision and attribution
     * @param differences one per kind of change found (decision from → to, or a change of attributed rule)
     * @param undecided what could not be decided, one line each (rules outside the fragment, time-outs)
     */
    public record Result(boolean equivalent, List<Difference> differences, List<String> undecided) {
        public Result {
            differences = List.copyOf(differences);
            undecided = List.copyOf(undecided);
        }
    }

    /**
     * The witnesses are replayed through the engine (over each set's documents, with the shared compiler every
     * engine uses), so no compiler is given.
     *
     * @param timeoutMs the time-out of one solver query, in milliseconds
     */
    public SemanticDiff(long timeoutMs) {
        this.timeoutMs = timeoutMs;
    }

    /** Compares the sets on actions of {@code action}, or of both trigger actions when empty. */
    public Result compare(PolicySet base, PolicySet head, Optional<TriggerAction> action) {
        List<Difference> differences = new ArrayList<>();
        List<String> undecided = new ArrayList<>();
        Replay baseReplay = new Replay(base);
        Replay headReplay = new Replay(head);
        for (TriggerAction a : TriggerAction.values()) {
            if (action.isPresent() && action.get() != a) {
                continue;
            }
            try (Formulas f = new Formulas(a, List.of(base, head), timeoutMs)) {
                List<String> opaque = new ArrayList<>();
                for (PolicySet s : List.of(base, head)) {
                    for (AnalyzedRule r : s.rules(a)) {
                        String reason = f.rule(r).reason();
                        if (reason != null) {
                            opaque.add("rule `" + r.label() + "` (" + r.file() + ":" + r.line() + ":" + r.column()
                                    + ") is not analysed: " + reason);
                        }
                    }
                }
                List<AnalyzedRule> both = new ArrayList<>(base.rules(a));
                both.addAll(head.rules(a));
                java.util.SortedSet<String> strings = PolicyAnalyzer.strings(both);
                Map<String, Integer> keys = new HashMap<>();
                Outcomes b = outcomes(f, base.rules(a), keys);
                Outcomes h = outcomes(f, head.rules(a), keys);
                Context ctx = f.ctx;
                BoolExpr differ = ctx.mkOr(ctx.mkNot(ctx.mkEq(b.code, h.code)), ctx.mkNot(ctx.mkEq(b.rule, h.rule)));
                Formulas.Answer any = f.check(differ);
                if (any.unsat()) {
                    // proved, even with rules outside the fragment (unchanged ones share their variables)
                    continue;
                }
                int before = undecided.size();
                for (Outcome from : Outcome.values()) {
                    for (Outcome to : Outcome.values()) {
                        if (from == Outcome.NO_MATCH && to == Outcome.NO_MATCH) {
                            continue;
                        }
                        Formulas.Answer ans = f.check(differ, decision(ctx, b, from), decision(ctx, h, to));
                        if (ans.unsat()) {
                            continue;
                        }
                        String what = a.wireName() + " " + from + " → " + to;
                        if (!ans.sat()) {
                            undecided.add("the solver did not decide within " + timeoutMs + " ms whether some "
                                    + what + " change exists");
                            continue;
                        }
                        Map<String, Object> w = f.space.witness(ans.model(), "witness-" + a.wireName() + "-"
                                + from.name().toLowerCase(java.util.Locale.ROOT) + "-"
                                + to.name().toLowerCase(java.util.Locale.ROOT));
                        java.util.function.Predicate<Map<String, Object>> shows = x -> {
                            Optional<Decision> xb = baseReplay.decide(x);
                            Optional<Decision> xh = headReplay.decide(x);
                            return xb.isPresent() && xh.isPresent() && xb.get().outcome() == from
                                    && xh.get().outcome() == to && !xb.get().sameAs(xh.get());
                        };
                        if (shows.test(w)) {
                            w = PolicyAnalyzer.tidy(w, strings, shows);
                        }
                        Optional<Decision> bd = baseReplay.decide(w);
                        Optional<Decision> hd = headReplay.decide(w);
                        if (shows.test(w)) {
                            differences.add(new Difference(a, from, to, bd.get(), hd.get(), w));
                        } else {
                            undecided.add("the solver found a " + what + " change, but its witness did not replay");
                        }
                    }
                }
                if (undecided.size() > before || !any.sat()) {
                    undecided.addAll(opaque);
                }
                if (!any.sat() && !any.unsat()) {
                    undecided.add("the solver did not decide within " + timeoutMs + " ms whether the "
                            + a.wireName() + " decisions differ");
                }
            }
        }
        return new Result(differences.isEmpty() && undecided.isEmpty(), differences, undecided);
    }

    /** A set's decision as two integers: code (0 NO_MATCH, 1 DENY, 2 DENY fail-closed, 3 ALLOW) and rule key. */
    private record Outcomes(IntExpr code, IntExpr rule) {}

    private static Outcomes outcomes(Formulas f, List<AnalyzedRule> rules, Map<String, Integer> keys) {
        Context ctx = f.ctx;
        List<AnalyzedRule> deny = rules.stream().filter(r -> r.effect() == Effect.DENY).toList();
        List<AnalyzedRule> allow = rules.stream().filter(r -> r.effect() == Effect.ALLOW).toList();
        IntExpr code = ctx.mkInt(0);
        IntExpr rule = ctx.mkInt(-1);
        // built from the last case backwards: NO_MATCH, first true ALLOW, first failing ALLOW, first failing
        // DENY, first true DENY
        for (int i = allow.size() - 1; i >= 0; i--) {
            BoolExpr t = f.rule(allow.get(i)).isTrue();
            code = (IntExpr) ctx.mkITE(t, ctx.mkInt(3), code);
            rule = (IntExpr) ctx.mkITE(t, ctx.mkInt(key(keys, allow.get(i))), rule);
        }
        for (List<AnalyzedRule> failing : List.of(allow, deny)) {
            for (int i = failing.size() - 1; i >= 0; i--) {
                BoolExpr e = f.rule(failing.get(i)).fails();
                code = (IntExpr) ctx.mkITE(e, ctx.mkInt(2), code);
                rule = (IntExpr) ctx.mkITE(e, ctx.mkInt(key(keys, failing.get(i))), rule);
            }
        }
        for (int i = deny.size() - 1; i >= 0; i--) {
            BoolExpr t = f.rule(deny.get(i)).isTrue();
            code = (IntExpr) ctx.mkITE(t, ctx.mkInt(1), code);
            rule = (IntExpr) ctx.mkITE(t, ctx.mkInt(key(keys, deny.get(i))), rule);
        }
        return new Outcomes(code, rule);
    }

    private static int key(Map<String, Integer> keys, AnalyzedRule r) {
        return keys.computeIfAbsent(r.policyId() + "\u0000" + r.ruleId(), k -> keys.size());
    }

    private static BoolExpr decision(Context ctx, Outcomes o, Outcome d) {
        return switch (d) {
            case NO_MATCH -> ctx.mkEq(o.code, ctx.mkInt(0));
            case ALLOW -> ctx.mkEq(o.code, ctx.mkInt(3));
            case DENY -> ctx.mkOr(ctx.mkEq(o.code, ctx.mkInt(1)), ctx.mkEq(o.code, ctx.mkInt(2)));
        };
    }
}
