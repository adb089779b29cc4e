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
        return compare(base, head, action, List.of()).whole();
    }

    /**
     * A comparison of the whole sets, and one for each group of rules in {@code focus}.
     *
     * @param whole what {@link #compare(PolicySet, PolicySet, Optional)} gives
     * @param focused for each group of {@code focus}, in order: the changes on which the base or the head decision
     *     is attributed to a rule of the group, one witness per kind of change (so a change the whole comparison
     *     showed only through another rule's witness gets one of its own); {@code equivalent} is true when the
     *     solver proved that no valid action changes through a rule of the group
     */
    public record Focused(Result whole, List<Result> focused) {
        public Focused {
            focused = List.copyOf(focused);
        }
    }

    /**
     * {@link #compare(PolicySet, PolicySet, Optional)}, and the same questions asked again for each group of rules
     * {@code focus} gives (a rule is in a group when its predicate accepts it, on either side), with the constraint
     * that the base or the head decision is attributed to one of them: in the same solver context, on the same
     * encoding. What a review asks per changed rule.
     */
    public Focused compare(PolicySet base, PolicySet head, Optional<TriggerAction> action,
            List<java.util.function.Predicate<AnalyzedRule>> focus) {
        Answers whole = new Answers();
        List<Answers> groups = new ArrayList<>();
        focus.forEach(x -> groups.add(new Answers()));
        Replay baseReplay = new Replay(base);
        Replay headReplay = new Replay(head);
        for (TriggerAction a : TriggerAction.values()) {
            if (action.isPresent() && action.get() != a) {
                continue;
            }
            try (Formulas f = new Formulas(a, List.of(base, head), timeoutMs)) {
                Slice slice = Slice.of(f, base.rules(a), head.rules(a));
                List<String> opaque = new ArrayList<>();
                for (List<AnalyzedRule> side : List.of(slice.base(), slice.head())) {
                    for (AnalyzedRule r : side) {
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
                Outcomes b = outcomes(f, slice.base(), keys);
                Outcomes h = outcomes(f, slice.head(), keys);
                Context ctx = f.ctx;
                BoolExpr differ = ctx.mkOr(ctx.mkNot(ctx.mkEq(b.code, h.code)), ctx.mkNot(ctx.mkEq(b.rule, h.rule)));
                if (slice.changed() != null) {
                    List<BoolExpr> anyTrue = new ArrayList<>();
                    slice.changed().forEach(r -> anyTrue.add(f.rule(r).isTrue()));
                    differ = anyTrue.isEmpty() ? ctx.mkFalse()
                            : ctx.mkAnd(differ, ctx.mkOr(anyTrue.toArray(new BoolExpr[0])));
                }
                Question q = new Question(a, f, b, h, baseReplay, headReplay, strings, opaque);
                java.util.Set<List<Outcome>> possible = new java.util.HashSet<>();
                Formulas.Answer any = q.ask(differ, null, (x, y) -> true, false, possible, whole);
                if (any.unsat()) {
                    continue; // proved, even with rules outside the fragment (unchanged ones share their variables)
                }
                for (int g = 0; g < focus.size(); g++) {
                    java.util.function.Predicate<AnalyzedRule> in = focus.get(g);
                    java.util.Set<Integer> group = new java.util.HashSet<>();
                    List<String> labels = new ArrayList<>();
                    for (AnalyzedRule r : both) {
                        if (in.test(r)) {
                            group.add(key(keys, r));
                            labels.add(r.policyId() + "\u0000" + r.ruleId());
                        }
                    }
                    if (group.isEmpty()) {
                        continue;
                    }
                    List<BoolExpr> attributed = new ArrayList<>();
                    for (int k : group) {
                        attributed.add(ctx.mkEq(b.rule, ctx.mkInt(k)));
                        attributed.add(ctx.mkEq(h.rule, ctx.mkInt(k)));
                    }
                    BoolExpr through = ctx.mkAnd(differ, ctx.mkOr(attributed.toArray(new BoolExpr[0])));
                    java.util.function.Predicate<Decision> named = d -> d.policyId() != null && d.ruleId() != null
                            && labels.contains(d.policyId() + "\u0000" + d.ruleId());
                    // a kind of change no valid action shows is shown by none through the group, and one whose
                    // witness of the whole comparison a rule of the group decides has its witness: neither is asked
                    java.util.Set<List<Outcome>> witnessed = new java.util.HashSet<>();
                    for (Difference d : whole.differences) {
                        if (d.action() == a && (named.test(d.base()) || named.test(d.head()))) {
                            groups.get(g).differences.add(d);
                            witnessed.add(List.of(d.from(), d.to()));
                        }
                    }
                    java.util.function.BiPredicate<Outcome, Outcome> left =
                            (x, y) -> possible.contains(List.of(x, y)) && !witnessed.contains(List.of(x, y));
                    if (possible.stream().anyMatch(k -> left.test(k.get(0), k.get(1)))) {
                        q.ask(through, named, left, !witnessed.isEmpty(), new java.util.HashSet<>(), groups.get(g));
                    }
                }
            }
        }
        List<Result> focused = new ArrayList<>();
        groups.forEach(x -> focused.add(x.result()));
        return new Focused(whole.result(), focused);
    }

    /** The differences and undecided questions of one comparison, as they are found. */
    private static final class Answers {
        final List<Difference> differences = new ArrayList<>();
        final List<String> undecided = new ArrayList<>();

        /** The result, its differences by trigger action, then kind of change (the order the whole asks them in). */
        Result result() {
            List<Difference> sorted = new ArrayList<>(differences);
            sorted.sort(java.util.Comparator.comparing(Difference::action).thenComparing(Difference::from)
                    .thenComparing(Difference::to));
            return new Result(differences.isEmpty() && undecided.isEmpty(), sorted, undecided);
        }
    }

    /** The questions about one trigger action's decisions, on one solver context. */
    private final class Question {
        private final TriggerAction a;
        private final Formulas f;
        private final Outcomes b;
        private final Outcomes h;
        private final Replay baseReplay;
        private final Replay headReplay;
        private final java.util.SortedSet<String> strings;
        private final List<String> opaque;

        Question(TriggerAction a, Formulas f, Outcomes b, Outcomes h, Replay baseReplay, Replay headReplay,
                java.util.SortedSet<String> strings, List<String> opaque) {
            this.a = a;
            this.f = f;
            this.b = b;
            this.h = h;
            this.baseReplay = baseReplay;
            this.headReplay = headReplay;
            this.strings = strings;
            this.opaque = opaque;
        }

        /**
         * Whether some valid action meets {@code differ}, and if so one replayed witness per kind of change, each
         * shown by a replay whose base or head decision {@code named} accepts (any, when null); added to
         * {@code out}. Only the kinds {@code ask} accepts are asked; those the solver did not rule out are added
         * to {@code possible}. With {@code knownSat} (a witness is already at hand) the first question is not
         * asked. Returns the answer to the first question, null when it was not asked.
         */
        Formulas.Answer ask(BoolExpr differ, java.util.function.Predicate<Decision> named,
                java.util.function.BiPredicate<Outcome, Outcome> ask, boolean knownSat,
                java.util.Set<List<Outcome>> possible, Answers out) {
            Context ctx = f.ctx;
            Formulas.Answer any = knownSat ? null : f.check(differ);
            if (any != null && any.unsat()) {
                return any;
            }
            boolean sat = any == null || any.sat();
            int before = out.undecided.size();
            for (Outcome from : Outcome.values()) {
                for (Outcome to : Outcome.values()) {
                    if (from == Outcome.NO_MATCH && to == Outcome.NO_MATCH || !ask.test(from, to)) {
                        continue;
                    }
                    Formulas.Answer ans = f.check(differ, decision(ctx, b, from), decision(ctx, h, to));
                    if (ans.unsat()) {
                        continue;
                    }
                    possible.add(List.of(from, to));
                    String what = a.wireName() + " " + from + " → " + to;
                    if (!ans.sat()) {
                        out.undecided.add("the solver did not decide within " + timeoutMs + " ms whether some "
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
                                && xh.get().outcome() == to && !xb.get().sameAs(xh.get())
                                && (named == null || named.test(xb.get()) || named.test(xh.get()));
                    };
                    if (shows.test(w)) {
                        w = PolicyAnalyzer.tidy(w, strings, f.space.wallets(), f.space.workspaces(), shows);
                    }
                    Optional<Decision> bd = baseReplay.decide(w);
                    Optional<Decision> hd = headReplay.decide(w);
                    if (shows.test(w)) {
                        out.differences.add(new Difference(a, from, to, bd.get(), hd.get(), w));
                    } else {
                        out.undecided.add("the solver found a " + what + " change, but its witness did not replay");
                    }
                }
            }
            // why first, then the rules outside the fragment that may be behind it
            if (!sat) {
                out.undecided.add(before, "the solver did not decide within " + timeoutMs + " ms whether the "
                        + a.wireName() + " decisions differ");
            }
            if (out.undecided.size() > before || !sat) {
                out.undecided.addAll(opaque);
            }
            return any;
        }
    }

    /**
     * The rules of one trigger action the comparison encodes. Whole, unless the two sides differ only in some
     * rules ({@code changed}: a rule, by workspace, policy and rule id, that one side lacks or whose condition,
     * effect or targeting differs) while the others keep their relative order, and no changed rule can fail or
     * is outside the fragment. Then a decision can differ only on an action on which some changed rule is true
     * (with every changed rule false, both sides decide by the same rules in the same order), and on such an
     * action an unchanged rule that {@link FieldBounds} separates from every changed rule is false, and one that
     * cannot fail does not fail: it decides nothing on either side. So the slice keeps the changed rules, the
     * unchanged rules that may be true together with one of them, and those that may fail or are outside the
     * fragment; the comparison asks only about actions on which a changed rule is true ({@code changed} non-null;
     * empty when the sides have the same rules in the same order, which decide every action alike).
     * What it finds is replayed on the whole sets as before; a proof on the slice is a proof on the sets.
     */
    private record Slice(List<AnalyzedRule> base, List<AnalyzedRule> head, List<AnalyzedRule> changed) {
        static Slice of(Formulas f, List<AnalyzedRule> base, List<AnalyzedRule> head) {
            Slice whole = new Slice(base, head, null);
            Map<List<Object>, AnalyzedRule> b = index(base);
            Map<List<Object>, AnalyzedRule> h = index(head);
            if (b == null || h == null) {
                return whole; // a rule id twice in one workspace: no key to pair rules by
            }
            List<AnalyzedRule> changed = new ArrayList<>();
            List<List<Object>> sameBase = unchanged(b, h, changed);
            List<List<Object>> sameHead = unchanged(h, b, changed);
            if (!sameBase.equals(sameHead)) {
                return whole; // unchanged rules moved: their order may decide differently
            }
            if (changed.isEmpty()) {
                return new Slice(List.of(), List.of(), List.of()); // the same rules in the same order
            }
            for (AnalyzedRule c : changed) {
                Formulas.RuleFormula cf = f.rule(c);
                if (cf.reason() != null || !cf.error().isFalse()) {
                    return whole;
                }
            }
            List<FieldBounds> bounds = changed.stream().map(FieldBounds::of).toList();
            java.util.function.Predicate<AnalyzedRule> kept = r -> {
                if (changed.contains(r)) {
                    return true;
                }
                Formulas.RuleFormula rf = f.rule(r);
                if (rf.reason() != null || !rf.error().isFalse()) {
                    return true;
                }
                FieldBounds rb = FieldBounds.of(r);
                return bounds.stream().anyMatch(cb -> !cb.excludes(rb));
            };
            return new Slice(base.stream().filter(kept).toList(), head.stream().filter(kept).toList(), changed);
        }

        /** The rules by key, in order; null when a key comes twice. */
        private static Map<List<Object>, AnalyzedRule> index(List<AnalyzedRule> rules) {
            Map<List<Object>, AnalyzedRule> out = new java.util.LinkedHashMap<>();
            for (AnalyzedRule r : rules) {
                if (out.putIfAbsent(key(r), r) != null) {
                    return null;
                }
            }
            return out;
        }

        /** The keys of {@code side}'s rules that {@code other} has alike, in order; the rest go to {@code changed}. */
        private static List<List<Object>> unchanged(Map<List<Object>, AnalyzedRule> side,
                Map<List<Object>, AnalyzedRule> other, List<AnalyzedRule> changed) {
            List<List<Object>> same = new ArrayList<>();
            side.forEach((k, r) -> {
                AnalyzedRule o = other.get(k);
                if (o != null && same(r, o)) {
                    same.add(k);
                } else {
                    changed.add(r);
                }
            });
            return same;
        }

        private static List<Object> key(AnalyzedRule r) {
            return java.util.Arrays.asList(r.workspaceId(), r.policyId(), r.ruleId());
        }

        private static boolean same(AnalyzedRule x, AnalyzedRule y) {
            return x.effect() == y.effect() && x.walletIds().equals(y.walletIds())
                    && x.condition().source().equals(y.condition().source());
        }
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
