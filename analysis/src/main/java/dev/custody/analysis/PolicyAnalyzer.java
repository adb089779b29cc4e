package dev.custody.analysis;

import com.microsoft.z3.BoolExpr;
import dev.custody.engine.Decision;
import dev.custody.engine.FailureKind;
import dev.custody.engine.Outcome;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.time.Duration;

/**
 * Checks every enabled rule of the active policies of a {@link PolicySet} against every valid action, with an SMT
 * solver (Z3), and reports {@link FindingKind findings}: a rule that can never be true, one that is always true,
 * one that never gets attribution because earlier rules of its effect cover it ({@code shadowed},
 * {@code duplicate}), an ALLOW rule that DENY rules always beat ({@code overridden}), and a rule that can fail at
 * run time so that the decision is a fail-closed DENY ({@code may_error}).
 *
 * <p>Claims follow the evaluator exactly (docs/design.md §3): only enabled rules of active policies, wallet and
 * workspace targeting, declaration order, DENY over ALLOW, absent optional fields and {@code decoded_args} keys
 * fail unless guarded by {@code has()}, {@code &&}/{@code ||} absorb failures. A claim that no action exists
 * ({@code unsatisfiable}, {@code always_true}, {@code shadowed}, {@code overridden}, {@code duplicate}) is proved
 * by the solver over the valid actions, with cel-java's numbers ({@link ConditionEncoder}); a claim that one
 * exists ({@code may_error}) is reported only with a witness action that was replayed through
 * {@link dev.custody.engine.PolicyEngine} and gave the claimed decision; a shadowed or overridden rule only with a witness on which the engine finds the rule true
 * and another rule decides. Before any claim about a rule, the actions the solver found on which the rule is
 * true (and, if any, not true) are replayed through the engine's evaluation of the condition: if the engine
 * disagrees, the rule is {@code unknown} and nothing is claimed about it. A rule outside the fragment is
 * {@code not_analyzed}; a query past the time-out is {@code unknown}; neither is a claim.
 *
 * <p>A question that an action answers ("is there an action on which ...") is first put to a {@link Probe}, which
 * searches concrete actions decided by the engine's own conditions; only what it does not find goes to the
 * solver, so the solver is asked mostly for the proofs behind claims. Shadowed and overridden are decided by
 * walking the candidate rules in declaration order (see {@code cover}).
 *
 * <p>Each call builds and closes its own solver contexts, one per thread and trigger action (Z3 contexts are not
 * shared between threads); an instance holds only settings and is thread-safe.
 */
public final class PolicyAnalyzer {
    /** The default time-out of one solver query. */
    public static final long DEFAULT_TIMEOUT_MS = 5_000;

    private final long timeoutMs;

    /**
     * The witnesses are replayed through the engine (over the set's documents, with the shared compiler every
     * engine uses), so no compiler is given.
     *
     * @param timeoutMs the time-out of one solver query, in milliseconds
     */
    public PolicyAnalyzer(long timeoutMs) {
        this.timeoutMs = timeoutMs;
    }

    /**
     * Starts loading the solver's native library on a background daemon thread (once), so that a command that
     * will analyse pays for it while it reads and compiles the policies rather than after. Optional: the first
     * analysis loads it anyway; a failure here is left for that analysis to meet and report.
     */
    public static void prestart() {
        Formulas.prestart();
    }

    /** Analyses the rules of {@code action}, or of both actions when it is empty, on one thread, without a deadline. */
    public AnalysisReport analyze(PolicySet set, Optional<TriggerAction> action) {
        return analyze(set, action, new Run(1, null, Progress.NONE));
    }

    /**
     * How one analysis runs: on how many threads (each with its own solver contexts), until when, and whom it
     * tells about progress.
     *
     * @param jobs the number of threads, at least 1
     * @param deadline the whole run's deadline, or null for none: a rule not done by then gets one
     *     {@link FindingKind#UNKNOWN} finding ({@link #DEADLINE_MESSAGE}) and nothing else
     * @param progress told after each rule
     */
    public record Run(int jobs, Duration deadline, Progress progress) {
        public Run {
            if (jobs < 1) {
                throw new IllegalArgumentException("jobs must be at least 1, got " + jobs);
            }
            if (deadline != null && (deadline.isNegative() || deadline.isZero())) {
                throw new IllegalArgumentException("deadline must be positive, got " + deadline);
            }
            Objects.requireNonNull(progress, "progress");
        }
    }

    /** Told how far an analysis is; called from the analysing threads, so it must be thread-safe. */
    @FunctionalInterface
    public interface Progress {
        /** Nothing. */
        Progress NONE = (done, total) -> { };

        /** {@code done} of {@code total} rules are finished (analysed, or given up at the deadline). */
        void rules(int done, int total);
    }

    /** The message of the {@code unknown} finding of a rule the run's deadline left undone. */
    public static final String DEADLINE_MESSAGE =
            "not analysed: the analysis deadline passed before this rule was done; nothing is claimed";

    /**
     * Analyses the rules of {@code action}, or of both actions when it is empty, as {@code run} says. The findings
     * do not depend on the number of jobs: each rule's queries are the same whichever thread asks them (only a
     * witness action may differ, as any model of the same query may).
     */
    public AnalysisReport analyze(PolicySet set, Optional<TriggerAction> action, Run run) {
        return analyze(set, action, run, r -> true);
    }

    /**
     * {@link #analyze(PolicySet, Optional, Run)}, for the rules {@code only} accepts: each is analysed against the
     * whole set (its earlier rules, the DENY rules) exactly as in a whole analysis, so its findings are those a
     * whole analysis gives it; the report counts and lists only those rules. What a review of a change uses,
     * with {@link #touched}.
     */
    public AnalysisReport analyze(PolicySet set, Optional<TriggerAction> action, Run run,
            java.util.function.Predicate<AnalyzedRule> only) {
        long deadlineNanos = run.deadline() == null ? Long.MAX_VALUE : System.nanoTime() + run.deadline().toNanos();
        List<List<AnalyzedRule>> perAction = new ArrayList<>();
        int total = 0;
        for (TriggerAction a : TriggerAction.values()) {
            if (action.isPresent() && action.get() != a) {
                continue;
            }
            List<AnalyzedRule> kept = set.rules(a);
            if (kept.stream().anyMatch(only)) {
                perAction.add(kept);
                total += (int) kept.stream().filter(only).count();
            }
        }
        Map<AnalyzedRule, FieldBounds> bounds = new java.util.IdentityHashMap<>();
        for (List<AnalyzedRule> kept : perAction) {
            for (AnalyzedRule r : kept) {
                bounds.put(r, FieldBounds.of(r));
            }
        }
        AtomicInteger done = new AtomicInteger();
        AtomicInteger queries = new AtomicInteger();
        // one engine for every thread (it is thread-safe): each workspace's bundle is compiled once, not per thread
        Replay replay = new Replay(set);
        List<RuleResult> results = new ArrayList<>();
        for (List<AnalyzedRule> kept : perAction) {
            List<AnalyzedRule> todo = kept.stream().filter(only).toList();
            RuleResult[] out = new RuleResult[todo.size()];
            java.util.SortedSet<String> literals = strings(kept);
            AtomicInteger next = new AtomicInteger();
            int threads = Math.min(run.jobs(), todo.size());
            int all = total;
            Runnable worker = () -> {
                Formulas f = null;
                Evidence ev = null;
                try {
                    for (int i = next.getAndIncrement(); i < todo.size(); i = next.getAndIncrement()) {
                        AnalyzedRule r = todo.get(i);
                        if (System.nanoTime() - deadlineNanos >= 0) {
                            out[i] = RuleResult.late(r);
                        } else {
                            if (f == null) {
                                f = new Formulas(r.action(), List.of(set), timeoutMs, deadlineNanos);
                                ev = new Evidence(f, bounds, literals);
                            }
                            List<AnalysisFinding> findings = new ArrayList<>();
                            boolean complete = analyzeRule(f, ev, kept, r, replay, findings);
                            out[i] = System.nanoTime() - deadlineNanos >= 0 && !complete
                                    ? RuleResult.late(r) : new RuleResult(complete, findings);
                        }
                        run.progress().rules(done.incrementAndGet(), all);
                    }
                } finally {
                    if (f != null) {
                        queries.addAndGet(f.queries());
                        f.close();
                    }
                }
            };
            if (threads <= 1) {
                worker.run();
            } else {
                List<Thread> pool = new ArrayList<>();
                List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
                for (int t = 0; t < threads; t++) {
                    Thread th = new Thread(worker, "custody-analyze-" + t);
                    th.setUncaughtExceptionHandler((x, e) -> failures.add(e));
                    pool.add(th);
                    th.start();
                }
                for (Thread th : pool) {
                    try {
                        th.join();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("interrupted while analysing", e);
                    }
                }
                if (!failures.isEmpty()) {
                    Throwable e = failures.get(0);
                    if (e instanceof RuntimeException re) {
                        throw re;
                    }
                    if (e instanceof Error er) {
                        throw er;
                    }
                    throw new IllegalStateException(e);
                }
            }
            results.addAll(List.of(out));
        }
        List<AnalysisFinding> findings = new ArrayList<>();
        int analyzed = 0;
        for (RuleResult r : results) {
            findings.addAll(r.findings());
            if (r.complete()) {
                analyzed++;
            }
        }
        Map<AnalyzedRule, Integer> order = new java.util.IdentityHashMap<>();
        for (AnalyzedRule r : set.rules()) {
            order.put(r, order.size());
        }
        findings.sort((x, y) -> {
            int c = Integer.compare(order.get(x.rule()), order.get(y.rule()));
            return c != 0 ? c : x.kind().compareTo(y.kind());
        });
        return new AnalysisReport(total, analyzed, findings, queries.get());
    }

    /**
     * The rules of {@code set} whose findings a change to the rules {@code changed} accepts may alter, by
     * trigger action, each in declaration order: the changed rules themselves (every finding about a rule is about its own condition,
     * effect, targeting and place), the later rules of the same trigger action and effect that a changed rule may
     * be true together with (it may shadow them, or be their duplicate), and, for a changed DENY rule, the ALLOW
     * rules of its trigger action it may be true together with (it may override them). "May be true together" is
     * decided by {@link FieldBounds}: wallets, workspace and the constant bounds of top-level conjuncts; two rules
     * it separates are never true on the same action, so neither's change can alter the other's ordering
     * findings. Not covered: the {@code may_error} finding of an unchanged rule whose failures a changed DENY rule
     * starts or stops covering (a whole {@code analyze} finds it).
     */
    public static List<AnalyzedRule> touched(PolicySet set, java.util.function.Predicate<AnalyzedRule> changed) {
        List<AnalyzedRule> out = new ArrayList<>();
        for (TriggerAction a : TriggerAction.values()) {
            List<AnalyzedRule> kept = set.rules(a);
            List<Integer> changedAt = new ArrayList<>();
            Map<AnalyzedRule, FieldBounds> bounds = new java.util.IdentityHashMap<>();
            for (int i = 0; i < kept.size(); i++) {
                if (changed.test(kept.get(i))) {
                    changedAt.add(i);
                    bounds.put(kept.get(i), FieldBounds.of(kept.get(i)));
                }
            }
            for (int j = 0; j < kept.size(); j++) {
                AnalyzedRule s = kept.get(j);
                boolean in = bounds.containsKey(s);
                FieldBounds sb = in ? null : FieldBounds.of(s);
                for (int k = 0; k < changedAt.size() && !in; k++) {
                    AnalyzedRule c = kept.get(changedAt.get(k));
                    boolean shadows = changedAt.get(k) < j && c.effect() == s.effect();
                    boolean overrides = c.effect() == Effect.DENY && s.effect() == Effect.ALLOW;
                    in = (shadows || overrides) && !bounds.get(c).excludes(sb);
                }
                if (in) {
                    out.add(s);
                }
            }
        }
        return out;
    }

    /** One rule's findings, and whether it was analysed completely. */
    private record RuleResult(boolean complete, List<AnalysisFinding> findings) {
        static RuleResult late(AnalyzedRule r) {
            return new RuleResult(false, List.of(new AnalysisFinding(FindingKind.UNKNOWN, r, List.of(),
                    DEADLINE_MESSAGE, null)));
        }
    }

    /** Adds the findings of one rule; true when it was analysed completely. */
    private boolean analyzeRule(Formulas f, Evidence ev, List<AnalyzedRule> kept, AnalyzedRule r, Replay replay,
            List<AnalysisFinding> out) {
        Formulas.RuleFormula rf = f.rule(r);
        if (rf.reason() != null) {
            out.add(new AnalysisFinding(FindingKind.NOT_ANALYZED, r, List.of(),
                    "not analysed: " + rf.reason() + " is outside the analysed fragment", null));
            return false;
        }
        int unknown = 0;
        Found canBeTrue = ev.ask(List.of(Probe.Lit.of(Probe.Kind.TRUE, r)), starts(ev.probe.trueOf(r)),
                () -> new BoolExpr[] {rf.isTrue()}, "sample-true-" + r.ruleId());
        if (canBeTrue.unsat()) {
            out.add(new AnalysisFinding(FindingKind.UNSATISFIABLE, r, List.of(),
                    "no valid action makes this rule true: it never applies", null));
        } else if (!canBeTrue.sat()) {
            out.add(unknown(r, "whether the rule can be true"));
            return false;
        }
        if (canBeTrue.sat()) {
            // the encoding must agree with the engine on the very action it found, or nothing about the rule is
            // claimed (an exact encoding always does; this keeps a departure from turning into a false claim)
            if (!canBeTrue.agrees()) {
                out.add(disagrees(r, "true", canBeTrue.witness()));
                return false;
            }
            ev.trueSample(r, canBeTrue.point());
            Found canBeOther = ev.ask(List.of(Probe.Lit.of(Probe.Kind.APPLIES, r), Probe.Lit.of(Probe.Kind.NOT_TRUE, r)),
                    starts(canBeTrue.point()), () -> new BoolExpr[] {f.applies(r), f.not(rf.isTrue())},
                    "sample-other-" + r.ruleId());
            if (canBeOther.sat()) {
                if (!canBeOther.agrees()) {
                    out.add(disagrees(r, "false or failing", canBeOther.witness()));
                    return false;
                }
                ev.otherSample(r, canBeOther.point());
            }
            if (canBeOther.unsat()) {
                out.add(new AnalysisFinding(FindingKind.ALWAYS_TRUE, r, List.of(),
                        "every valid action makes this rule true" + (r.effect() == Effect.DENY
                                ? ": it denies every " + r.action().wireName() + " it targets"
                                : ": it allows every " + r.action().wireName() + " no DENY rule stops"), null));
            } else if (!canBeOther.sat()) {
                unknown++;
                out.add(unknown(r, "whether the rule is always true"));
            }
            List<Probe.Point> samples = new ArrayList<>();
            samples.add(canBeTrue.point());
            if (canBeOther.sat()) {
                samples.add(canBeOther.point());
            }
            unknown += order(f, ev, kept, r, replay, samples, out);
        }
        unknown += mayError(f, ev, kept, r, replay, out);
        return unknown == 0;
    }

    private static List<Probe.Point> starts(Probe.Point... points) {
        List<Probe.Point> out = new ArrayList<>();
        for (Probe.Point p : points) {
            if (p != null) {
                out.add(p);
            }
        }
        return out;
    }

    /** duplicate, shadowed and overridden; returns the number of unknown answers. */
    private int order(Formulas f, Evidence ev, List<AnalyzedRule> kept, AnalyzedRule r, Replay replay,
            List<Probe.Point> samples, List<AnalysisFinding> out) {
        Formulas.RuleFormula rf = f.rule(r);
        int unknown = 0;
        List<AnalyzedRule> earlier = new ArrayList<>();
        for (AnalyzedRule s : kept) {
            if (s == r) {
                break;
            }
            if (s.effect() == r.effect()) {
                earlier.add(s);
            }
        }
        for (AnalyzedRule s : earlier) {
            Formulas.RuleFormula sf = f.rule(s);
            if (sf.reason() != null) {
                continue;
            }
            // an action on which the engine gives the two different results settles it without the solver
            if (ev.differ(r, s) || samples.stream().anyMatch(p -> !p.value(r).equals(p.value(s)))) {
                continue;
            }
            // same value and same failure on every action, targeting aside; the same source text compiles, for
            // the same trigger action, to the same checked expression, so it means the same without the solver
            Found differ = r.condition().source().equals(s.condition().source())
                    ? new Found(com.microsoft.z3.Status.UNSATISFIABLE, null, null, false) : ev.ask(List.of(new Probe.Lit(Probe.Kind.DIFFER, r, s)),
                    starts(samples.get(0), samples.size() > 1 ? samples.get(1) : null, ev.probe.trueOf(s)), () -> {
                        BoolExpr rv = f.ctx.mkAnd(f.not(rf.error()), rf.value());
                        BoolExpr sv = f.ctx.mkAnd(f.not(sf.error()), sf.value());
                        return new BoolExpr[] {
                            f.ctx.mkOr(f.ctx.mkXor(rv, sv), f.ctx.mkXor(rf.error(), sf.error()))};
                    }, "sample-differ-" + r.ruleId());
            // a duplicate must also apply wherever r does (its policy targets every wallet and workspace r's
            // does), or r still decides on the wallets only it targets
            // (a wallet and workspace that r's policy targets and s's does not settles it without the solver)
            // a rule with the same condition as s whose policy targets wallets or workspaces that s's does not is
            // no duplicate of s: that is decided, not unknown
            if (differ.unsat()) {
                if (ev.probe.appliesWithout(r, s) != null) {
                    continue;
                }
                Formulas.Answer wider = f.check(f.applies(r), f.not(f.applies(s)));
                if (wider.unsat()) {
                    out.add(new AnalysisFinding(FindingKind.DUPLICATE, r, List.of(s),
                            "same condition and effect as the earlier rule `" + s.label() + "`", null));
                    return unknown;
                }
                if (!wider.sat()) {
                    unknown++;
                    out.add(unknown(r, "whether the rule applies only where the earlier rule `" + s.label()
                            + "` does"));
                }
            } else if (!differ.sat()) {
                unknown++;
                out.add(unknown(r, "whether the rule has the same condition as the earlier rule `" + s.label()
                        + "`"));
            }
        }
        Cover shadow = earlier.isEmpty() ? null : cover(f, ev, r, ev.mayOverlap(r, earlier), samples);
        Cover override = r.effect() != Effect.ALLOW ? null : cover(f, ev, r,
                ev.mayOverlap(r, kept.stream().filter(d -> d.effect() == Effect.DENY).toList()), samples);
        // an overridden ALLOW rule is true on no action on which no DENY rule is: its shadowed witness need not ask
        boolean denied = override != null && override != Cover.UNKNOWN && override.related() != null;
        if (shadow == Cover.UNKNOWN) {
            unknown++;
            out.add(unknown(r, "whether earlier rules shadow it"));
        } else if (shadow != null && shadow.related() != null) {
            Map<String, Object> witness = coverWitness(f, ev, kept, r, replay, false, denied);
            if (witness == null) {
                unknown++;
                out.add(unreplayed(r, "shadowed"));
            } else {
                out.add(new AnalysisFinding(FindingKind.SHADOWED, r, shadow.related(),
                        "whenever this rule is true, an earlier " + r.effect().name() + " rule ("
                                + labels(shadow.related()) + ") is true for the same wallet: it never gets attribution",
                        witness));
            }
        }
        if (override == Cover.UNKNOWN) {
            unknown++;
            out.add(unknown(r, "whether DENY rules override it"));
        } else if (override != null && override.related() != null) {
            Map<String, Object> witness = coverWitness(f, ev, kept, r, replay, true, false);
            if (witness == null) {
                unknown++;
                out.add(unreplayed(r, "overridden"));
            } else {
                out.add(new AnalysisFinding(FindingKind.OVERRIDDEN, r, override.related(),
                        "whenever this rule is true, a DENY rule (" + labels(override.related())
                                + ") is true for the same wallet: it never allows", witness));
            }
        }
        return unknown;
    }

    /**
     * Whether {@code candidates} cover {@code r}: {@code related} is null when some action makes r true and none
     * of them (found, and replayed through the engine's conditions), and otherwise the rules of the shortest
     * prefix of {@code candidates} that covers r that are true together with r on some action (in declaration
     * order): the solver proved that no action makes r true and every rule of the prefix not true. {@code seen}
     * holds the actions met on the way.
     */
    private record Cover(List<AnalyzedRule> related, List<Probe.Point> seen) {
        static final Cover UNKNOWN = new Cover(null, null);
    }

    /**
     * Walks {@code candidates} in declaration order with an action on which r is true and every candidate so far
     * is not: a candidate not true on it changes nothing; one that is true asks for a new such action, first of
     * the {@link Probe}, then of the solver on r and the candidates that were true on its earlier answers (a
     * subset of the conjunction, so "no such action" for it is "none" for the whole; a model on which another
     * candidate is true adds that candidate and asks again). The first candidate after which no action is left is
     * where r is covered, exactly where the conjunction of r with every candidate's negation up to it becomes
     * unsatisfiable. A candidate outside the fragment (free variables, which the solver sets false) is left out.
     */
    private Cover cover(Formulas f, Evidence ev, AnalyzedRule r, List<AnalyzedRule> candidates,
            List<Probe.Point> samples) {
        List<AnalyzedRule> cands = new ArrayList<>();
        for (AnalyzedRule s : candidates) {
            if (f.rule(s).reason() == null) {
                cands.add(s);
            }
        }
        Probe.Point m = samples.get(0);
        List<Probe.Point> seen = new ArrayList<>(samples);
        List<Probe.Lit> goal = new ArrayList<>();
        goal.add(Probe.Lit.of(Probe.Kind.TRUE, r));
        List<AnalyzedRule> forcing = new ArrayList<>();
        java.util.Set<AnalyzedRule> overlap = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        int covered = -1;
        for (int j = 0; j < cands.size() && covered < 0; j++) {
            AnalyzedRule s = cands.get(j);
            goal.add(Probe.Lit.of(Probe.Kind.NOT_TRUE, s));
            if (!m.isTrue(s)) {
                continue;
            }
            overlap.add(s);
            Probe.Point next = ev.probe.find(goal, starts(m, seen.get(0)));
            if (next == null) {
                forcing.add(s);
                while (next == null) {
                    // an action on which r is true and the forcing candidates are not, from the probe or the solver
                    List<Probe.Lit> sub = new ArrayList<>();
                    sub.add(Probe.Lit.of(Probe.Kind.TRUE, r));
                    for (AnalyzedRule t : forcing) {
                        sub.add(Probe.Lit.of(Probe.Kind.NOT_TRUE, t));
                    }
                    Probe.Point q = ev.probe.find(sub, starts(m, seen.get(0)));
                    if (q == null) {
                    List<BoolExpr> parts = new ArrayList<>();
                    parts.add(f.rule(r).isTrue());
                    for (AnalyzedRule t : forcing) {
                        parts.add(f.not(f.rule(t).isTrue()));
                    }
                    Formulas.Answer a = f.check(parts.toArray(new BoolExpr[0]));
                    if (a.unsat()) {
                        covered = j;
                        break;
                    }
                    if (!a.sat()) {
                        return Cover.UNKNOWN;
                    }
                    q = ev.probe.point(f.space.witness(a.model(), "sample-cover-" + r.ruleId()));
                    if (q == null || !q.isTrue(r) || forcing.stream().anyMatch(q::isTrue)) {
                        return Cover.UNKNOWN; // the engine does not read the model as the encoding does
                    }
                    }
                    List<AnalyzedRule> more = new ArrayList<>();
                    for (int i = 0; i <= j; i++) {
                        if (q.isTrue(cands.get(i))) {
                            more.add(cands.get(i));
                        }
                    }
                    if (more.isEmpty()) {
                        next = q;
                        ev.probe.remember(q);
                    } else {
                        overlap.addAll(more);
                        forcing.addAll(more);
                    }
                }
            }
            if (next != null) {
                m = next;
                seen.add(m);
            }
        }
        if (covered < 0) {
            return new Cover(null, seen);
        }
        List<AnalyzedRule> related = new ArrayList<>();
        BoolExpr rTrue = f.rule(r).isTrue();
        for (int i = 0; i <= covered; i++) {
            AnalyzedRule s = cands.get(i);
            if (overlap.contains(s) || ev.bothTrue(r, s)) {
                related.add(s);
                continue;
            }
            Found both = ev.ask(List.of(Probe.Lit.of(Probe.Kind.TRUE, r), Probe.Lit.of(Probe.Kind.TRUE, s)),
                    starts(seen.get(0), ev.probe.trueOf(s)), () -> new BoolExpr[] {rTrue, f.rule(s).isTrue()},
                    "sample-both-" + r.ruleId());
            if (!both.unsat()) {
                related.add(s);
            }
        }
        return new Cover(related, seen);
    }

    /**
     * An action on which {@code r} is true and the decision goes to another rule: for a shadowed rule, one of the
     * earlier rules of its effect; for an overridden one, a DENY. Null when no replay confirms it.
     */
    private Map<String, Object> coverWitness(Formulas f, Evidence ev, List<AnalyzedRule> kept, AnalyzedRule r,
            Replay replay, boolean overridden, boolean denied) {
        List<BoolExpr> quiet = new ArrayList<>();
        List<Probe.Lit> goal = new ArrayList<>();
        quiet.add(f.rule(r).isTrue());
        goal.add(Probe.Lit.of(Probe.Kind.TRUE, r));
        for (AnalyzedRule k : kept) {
            if (!overridden && r.effect() == Effect.ALLOW && k.effect() == Effect.DENY && !ev.excludes(r, k)) {
                quiet.add(f.not(f.rule(k).isTrue()));
                goal.add(Probe.Lit.of(Probe.Kind.NOT_TRUE, k));
            }
            if (f.rule(k).reason() != null || !f.rule(k).error().isFalse()) {
                quiet.add(f.not(f.rule(k).fails()));
                goal.add(Probe.Lit.of(Probe.Kind.NOT_FAILS, k));
            }
        }
        String id = "witness-" + (overridden ? "overridden" : "shadowed") + "-" + r.ruleId();
        // `denied`: r is overridden, so no action makes r true and every DENY rule not true, and the first
        // question's answer is known to be no
        // the witness is searched from the plainest action with no regard to what this thread met before, so
        // that it does not depend on the jobs or the order the rules were taken in (tidy then rounds it)
        Found a = denied ? new Found(com.microsoft.z3.Status.UNSATISFIABLE, null, null, false)
                : ev.askCanonical(goal, () -> quiet.toArray(new BoolExpr[0]), id);
        if (!a.sat()) {
            a = ev.askCanonical(List.of(Probe.Lit.of(Probe.Kind.TRUE, r)), () -> new BoolExpr[] {f.rule(r).isTrue()},
                    id);
        }
        if (!a.sat()) {
            return null;
        }
        Map<String, Object> w = copy(a.witness());
        w.put("id", id);
        java.util.function.Predicate<Map<String, Object>> shows = x -> {
            // r's policy targets the action and its condition is true, and a decision that is not fail-closed went
            // to another rule (a DENY for overridden): not a NO_MATCH where r does not apply
            Optional<Decision> d = Replay.applies(r, x) ? replay.decideWhenTrue(r, x) : Optional.empty();
            if (d.isEmpty() || d.get().failClosed() || d.get().policyId() == null) {
                return false;
            }
            boolean other = !(r.policyId().equals(d.get().policyId()) && r.ruleId().equals(d.get().ruleId()));
            return overridden ? d.get().outcome() == Outcome.DENY && other : other;
        };
        if (!shows.test(w)) {
            return null;
        }
        // tidy keeps only changes that still show the finding; checked once more all the same, as it is reported
        Map<String, Object> t = tidy(w, ev.literals, f.space.wallets(), f.space.workspaces(), shows);
        return shows.test(t) ? t : w;
    }

    /** Round numbers a witness may take instead of the solver's, tried in order: 0, 1, 10, ..., 10^15. */
    private static final double[] ROUND = {0, 1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13,
            1e14, 1e15};

    /**
     * The witness made canonical, its instant first (the first hour of the week from Monday 2026-11-02 00:00 UTC on
     * which the witness still shows the finding), then field by field in the order the action lists them: each
     * number is replaced by the first round value (0, 1, 10, ..., 10^15) on which the witness still shows the
     * finding (replayed each time), each string by the empty string or else the first of its field's enum values that does, each boolean
     * by false or else true; a field keeps the solver's value where no candidate does. So what is printed does not
     * depend on which model the solver happened to return (with {@code --jobs}, the models of one query differ with
     * the queries a thread asked before it), only on the finding, and it reads plainly. What is reported has been
     * replayed.
     */
    static Map<String, Object> tidy(Map<String, Object> witness, java.util.Collection<String> strings,
            java.util.function.Predicate<Map<String, Object>> shows) {
        return tidy(witness, strings, List.of(), List.of(), shows);
    }

    /**
     * {@link #tidy(Map, java.util.Collection, java.util.function.Predicate)}, the wallet and workspace first: the
     * wallet becomes the first of a wallet no policy names, then {@code wallets} in order, on which the witness
     * shows the finding, and the workspace likewise none, then {@code workspaces} in order (with many wallets
     * the solver's choice among equally good ones differs from thread to thread).
     */
    static Map<String, Object> tidy(Map<String, Object> witness, java.util.Collection<String> strings,
            List<String> wallets, List<String> workspaces, java.util.function.Predicate<Map<String, Object>> shows) {
        Map<String, Object> w = copy(witness);
        TriggerAction action = TriggerAction.fromWireName(String.valueOf(w.get("action"))).orElse(null);
        if (!wallets.isEmpty()) {
            List<Object> c = new ArrayList<>();
            c.add(ActionSpace.OTHER_WALLET);
            c.addAll(wallets);
            first(w, "wallet_id", c, shows);
        }
        if (!workspaces.isEmpty() && w.containsKey("workspace_id")) {
            List<Object> c = new ArrayList<>();
            c.add(ABSENT);
            c.addAll(workspaces);
            first(w, "workspace_id", c, shows);
        }
        // twice: the second pass sees every other field canonical already, so little of the model is left
        for (int pass = 0; pass < 2; pass++) {
            canonical(w, action, strings, shows);
        }
        return w;
    }

    /** Sets a top-level field of the witness to the first candidate on which it shows the finding, if any. */
    private static void first(Map<String, Object> w, String key, List<Object> candidates,
            java.util.function.Predicate<Map<String, Object>> shows) {
        Object v = w.get(key);
        List<String> order = List.copyOf(w.keySet());
        for (Object c : candidates) {
            if (c.equals(v)) {
                break; // the value it came with is the first candidate that shows the finding
            }
            if (c == ABSENT) {
                w.remove(key);
            } else {
                w.put(key, c);
            }
            if (shows.test(w)) {
                return;
            }
        }
        // the value it came with, in its place
        Map<String, Object> back = new java.util.LinkedHashMap<>();
        for (String k : order) {
            back.put(k, k.equals(key) ? v : w.get(k));
        }
        w.clear();
        w.putAll(back);
    }

    private static final java.util.regex.Pattern STRING_LITERAL = java.util.regex.Pattern.compile(
            "'([^'\\\\]*)'|\"([^\"\\\\]*)\"");

    /**
     * The plain string literals of the rules' conditions, sorted: the candidates {@link #tidy} tries for a string
     * field after the empty string and the enum values (a literal it misreads is only a candidate the replay
     * refuses).
     */
    static java.util.SortedSet<String> strings(java.util.Collection<AnalyzedRule> rules) {
        java.util.SortedSet<String> out = new java.util.TreeSet<>();
        for (AnalyzedRule r : rules) {
            java.util.regex.Matcher m = STRING_LITERAL.matcher(r.condition().source());
            while (m.find()) {
                out.add(m.group(1) != null ? m.group(1) : m.group(2));
            }
        }
        return out;
    }

    /** The first instant a witness may take ({@code context.hour} 0 on a Monday); then hour by hour for a week. */
    private static final java.time.Instant FIRST_AT = java.time.Instant.parse("2026-11-02T00:00:00Z");

    @SuppressWarnings("unchecked")
    private static void canonical(Map<String, Object> w, TriggerAction action, java.util.Collection<String> strings,
            java.util.function.Predicate<Map<String, Object>> shows) {
        // the instant gives context.hour and context.day_of_week: the first hour of the week that shows the finding
        if (w.get("at") instanceof String at) {
            for (int h = 0; h < 7 * 24; h++) {
                String c = FIRST_AT.plusSeconds(3600L * h).toString();
                if (c.equals(at)) {
                    break;
                }
                w.put("at", c);
                if (shows.test(w)) {
                    at = null;
                    break;
                }
            }
            if (at != null) {
                w.put("at", at);
            }
        }
        for (Map.Entry<String, Object> section : w.entrySet()) {
            if (!(section.getValue() instanceof Map<?, ?> fields)) {
                continue;
            }
            List<Object> order = List.copyOf(fields.keySet());
            for (Object key : order) {
                Object v = fields.get(key);
                List<Object> candidates = new ArrayList<>();
                if (v instanceof String && action != null && FieldSchema.field(action, section.getKey() + "." + key)
                        .map(spec -> spec.optional()).orElse(false)) {
                    candidates.add(ABSENT); // an optional field: left out where the finding shows without it
                }
                if (v instanceof Double) {
                    for (double c : ROUND) {
                        candidates.add(c);
                    }
                } else if (v instanceof Long) {
                    for (double c : ROUND) {
                        candidates.add((long) c);
                    }
                } else if (v instanceof Integer) {
                    for (double c : ROUND) {
                        if (c <= Integer.MAX_VALUE) {
                            candidates.add((int) c);
                        }
                    }
                } else if (v instanceof String) {
                    candidates.add("");
                    if (action != null) {
                        FieldSchema.field(action, section.getKey() + "." + key)
                                .ifPresent(spec -> candidates.addAll(spec.enumValues()));
                    }
                    candidates.addAll(strings);
                } else if (v instanceof Boolean) {
                    candidates.add(false);
                    candidates.add(true);
                }
                for (Object c : candidates) {
                    if (c.equals(v)) {
                        break; // the solver's value is already the first candidate that can show the finding
                    }
                    if (c == ABSENT) {
                        fields.remove(key);
                    } else {
                        ((Map<Object, Object>) fields).put(key, c);
                    }
                    if (shows.test(w)) {
                        v = null;
                        break;
                    }
                }
                if (v != null) {
                    ((Map<Object, Object>) fields).put(key, v);
                }
            }
            // the fields in the solver's order again (a field left out and put back went to the end)
            Map<Object, Object> ordered = new java.util.LinkedHashMap<>();
            for (Object key : order) {
                if (fields.containsKey(key)) {
                    ordered.put(key, fields.get(key));
                }
            }
            ((Map<Object, Object>) fields).clear();
            ((Map<Object, Object>) fields).putAll(ordered);
        }
    }

    /** The candidate that leaves an optional field out. */
    private static final Object ABSENT = new Object();

    private static Map<String, Object> copy(Map<String, Object> m) {
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, Object> e : m.entrySet()) {
            if (e.getValue() instanceof Map<?, ?> inner) {
                out.put(e.getKey(), new java.util.LinkedHashMap<>(inner));
            } else {
                out.put(e.getKey(), e.getValue());
            }
        }
        return out;
    }

    /** may_error; returns the number of unknown answers. */
    private int mayError(Formulas f, Evidence ev, List<AnalyzedRule> kept, AnalyzedRule r, Replay replay,
            List<AnalysisFinding> out) {
        if (f.rule(r).reason() == null && f.rule(r).error().isFalse()) {
            return 0; // the encoding says the condition never fails: the query below is unsatisfiable
        }
        // the failure alone first: when no action makes the rule fail, the conjunction below has none either
        if (f.check(f.rule(r).fails()).unsat()) {
            return 0;
        }
        List<BoolExpr> parts = new ArrayList<>();
        parts.add(f.rule(r).fails());
        for (AnalyzedRule d : kept) {
            if (d.effect() == Effect.DENY && d != r) {
                parts.add(f.not(f.rule(d).isTrue()));
            }
        }
        Formulas.Answer a = f.check(parts.toArray(new BoolExpr[0]));
        if (a.unsat()) {
            return 0;
        }
        if (!a.sat()) {
            out.add(unknown(r, "whether the rule can fail at run time"));
            return 1;
        }
        java.util.function.Predicate<Map<String, Object>> shows = x -> {
            if (!Replay.applies(r, x)) {
                return false; // a failure of a rule whose policy does not target the action is no failure of r's
            }
            Optional<Decision> y = replay.decide(x);
            return y.isPresent() && y.get().outcome() == Outcome.DENY && y.get().failClosed()
                    && y.get().failure() == FailureKind.RULE_ERROR && Replay.value(r, x).isEmpty();
        };
        Map<String, Object> w = f.space.witness(a.model(), "witness-may_error-" + r.ruleId());
        if (shows.test(w)) {
            w = tidy(w, ev.literals, f.space.wallets(), f.space.workspaces(), shows);
        }
        Optional<Decision> d = replay.decide(w);
        if (shows.test(w)) {
            out.add(new AnalysisFinding(FindingKind.MAY_ERROR, r, List.of(),
                    "some valid actions make this rule fail at run time (" + d.get().error()
                            + "), so they are denied fail-closed; guard the read with has()", w));
            return 0;
        }
        out.add(new AnalysisFinding(FindingKind.UNKNOWN, r, List.of(),
                "the solver found an action on which this rule fails, but replaying it gave "
                        + d.map(x -> x.outcome() + (x.failClosed() ? " (fail_closed)" : "")).orElse("no decision")
                        + "; nothing is claimed", null));
        return 1;
    }

    /** The engine did not give the rule on a solver's action the value the encoding gave it. */
    private static AnalysisFinding disagrees(AnalyzedRule r, String what, Map<String, Object> action) {
        return new AnalysisFinding(FindingKind.UNKNOWN, r, List.of(),
                "the solver's action on which this rule is " + what + " did not replay so (the engine gave "
                        + Replay.value(r, action).map(String::valueOf).orElse("an error") + "); nothing is claimed",
                null);
    }

    /** A proof whose witness did not replay: not reported. */
    private static AnalysisFinding unreplayed(AnalyzedRule r, String kind) {
        return new AnalysisFinding(FindingKind.UNKNOWN, r, List.of(),
                "the solver proved this rule " + kind + ", but no witness of it replayed; nothing is claimed", null);
    }

    private AnalysisFinding unknown(AnalyzedRule r, String what) {
        return new AnalysisFinding(FindingKind.UNKNOWN, r, List.of(),
                "the solver did not decide " + what + " within " + timeoutMs + " ms", null);
    }

    /**
     * An answer to "is there a valid action on which ...": SAT with an action (found by the {@link Probe}, or the
     * solver's model read back as an action), or the solver's UNSAT or UNKNOWN. {@code agrees} says whether the
     * engine's conditions give the literals asked for on that action (always, unless the encoding departs from
     * the engine on the solver's model).
     */
    private record Found(com.microsoft.z3.Status status, Probe.Point point, Map<String, Object> witness,
            boolean agrees) {
        boolean sat() {
            return status == com.microsoft.z3.Status.SATISFIABLE;
        }

        boolean unsat() {
            return status == com.microsoft.z3.Status.UNSATISFIABLE;
        }
    }

    /**
     * Actions met for rules of one thread's {@link Formulas}, each validated once, with what the engine's own
     * evaluation of rules' conditions gives on them. They settle queries of the form "is there a valid action on
     * which ..." when such an action is at hand: the engine's evaluation is the ground truth the encoding must
     * match, and every such action lies in the schema's domains, so a "yes" so shown is what the solver would
     * answer (an exact encoding cannot disagree; an inexact one would only have made a false claim). Never used
     * to answer "no": when no action shows it, the solver is asked as before. Not thread-safe.
     */
    private static final class Evidence {
        private final Formulas f;
        private final Map<AnalyzedRule, FieldBounds> bounds;
        final Probe probe;
        /** The string literals of the rules of the action ({@link #strings}), which {@link #tidy} tries. */
        final java.util.SortedSet<String> literals;
        private final Map<AnalyzedRule, Optional<Probe.Point>> trueSamples = new java.util.IdentityHashMap<>();
        private final Map<AnalyzedRule, Probe.Point> otherSamples = new java.util.IdentityHashMap<>();

        Evidence(Formulas f, Map<AnalyzedRule, FieldBounds> bounds, java.util.SortedSet<String> literals) {
            this.f = f;
            this.literals = literals;
            this.bounds = bounds;
            this.probe = new Probe(f.space.action(), f.space.wallets(), f.space.workspaces(),
                    r -> f.rule(r).reason() != null, bounds::get);
        }

        /**
         * Whether some valid action meets {@code goal}, whose conjunction the solver's formula {@code parts}
         * states: first a search of the {@link Probe} from {@code starts}, then the solver.
         */
        Found ask(List<Probe.Lit> goal, List<Probe.Point> starts,
                java.util.function.Supplier<BoolExpr[]> parts, String id) {
            return ask(probe.find(goal, starts), goal, parts, id);
        }

        /** {@link #ask}, the search made from {@link Probe#zero()} with no regard to earlier searches. */
        Found askCanonical(List<Probe.Lit> goal, java.util.function.Supplier<BoolExpr[]> parts, String id) {
            return ask(probe.findCanonical(goal), goal, parts, id);
        }

        private Found ask(Probe.Point p, List<Probe.Lit> goal, java.util.function.Supplier<BoolExpr[]> parts,
                String id) {
            if (p != null) {
                return new Found(com.microsoft.z3.Status.SATISFIABLE, p, p.witness, true);
            }
            Formulas.Answer a = f.check(parts.get());
            if (!a.sat()) {
                return new Found(a.status(), null, null, false);
            }
            Map<String, Object> w = f.space.witness(a.model(), id);
            Probe.Point q = probe.point(w);
            if (q == null) {
                return new Found(com.microsoft.z3.Status.SATISFIABLE, null, w, false);
            }
            boolean agrees = true;
            for (Probe.Lit l : goal) {
                agrees &= q.holds(l);
            }
            probe.remember(q);
            return new Found(com.microsoft.z3.Status.SATISFIABLE, q, w, agrees);
        }

        /**
         * True only when no action makes both rules true ({@link FieldBounds}); then {@code isTrue(r)} implies
         * {@code !isTrue(s)}, and that part of a conjunction with {@code isTrue(r)} can be left out.
         */
        boolean excludes(AnalyzedRule r, AnalyzedRule s) {
            return bounds.get(r).excludes(bounds.get(s));
        }

        /** The rules of {@code others} that {@link #excludes} does not rule out. */
        List<AnalyzedRule> mayOverlap(AnalyzedRule r, List<AnalyzedRule> others) {
            List<AnalyzedRule> out = new ArrayList<>();
            for (AnalyzedRule s : others) {
                if (!excludes(r, s)) {
                    out.add(s);
                }
            }
            return out;
        }

        void trueSample(AnalyzedRule r, Probe.Point p) {
            trueSamples.put(r, Optional.ofNullable(p));
        }

        void otherSample(AnalyzedRule r, Probe.Point p) {
            if (p != null) {
                otherSamples.put(r, p);
            }
        }

        /** An action on which the rule is true, found on first use; null when there is none at hand. */
        private Probe.Point trueSample(AnalyzedRule s) {
            return trueSamples.computeIfAbsent(s, x -> {
                Formulas.RuleFormula sf = f.rule(x);
                if (sf.reason() != null) {
                    return Optional.empty();
                }
                Found a = ask(List.of(Probe.Lit.of(Probe.Kind.TRUE, x)), starts(probe.trueOf(x)),
                        () -> new BoolExpr[] {sf.isTrue()}, "sample-true-" + x.ruleId());
                return a.sat() && a.agrees() ? Optional.of(a.point()) : Optional.empty();
            }).orElse(null);
        }

        /** Whether some sample shows an action on which the two conditions give different results. */
        boolean differ(AnalyzedRule r, AnalyzedRule s) {
            for (Probe.Point x : new Probe.Point[] {trueSample(r), otherSamples.get(r), trueSample(s),
                    otherSamples.get(s)}) {
                if (x != null && !x.value(r).equals(x.value(s))) {
                    return true;
                }
            }
            return false;
        }

        /** Whether some sample shows an action on which both rules are true (targeting included). */
        boolean bothTrue(AnalyzedRule r, AnalyzedRule s) {
            Probe.Point x = trueSamples.getOrDefault(r, Optional.empty()).orElse(null);
            if (x != null && x.isTrue(r) && x.isTrue(s)) {
                return true;
            }
            Probe.Point y = trueSample(s);
            return y != null && y.isTrue(r) && y.isTrue(s);
        }
    }

    static String labels(List<AnalyzedRule> rules) {
        List<String> out = new ArrayList<>();
        for (AnalyzedRule r : rules) {
            out.add("`" + r.label() + "`");
        }
        return String.join(", ", out);
    }
}
