package dev.custody.analysis;

import com.microsoft.z3.BoolExpr;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.eval.Decision;
import dev.custody.engine.eval.FailureKind;
import dev.custody.engine.eval.Outcome;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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
 * <p>Each call builds and closes its own solver context; an instance holds only settings and is thread-safe.
 */
public final class PolicyAnalyzer {
    /** The default time-out of one solver query. */
    public static final long DEFAULT_TIMEOUT_MS = 5_000;

    private final RuleCompiler compiler;
    private final long timeoutMs;

    /**
     * @param compiler the compiler the replayed witnesses are decided with (the one that compiled the set)
     * @param timeoutMs the time-out of one solver query, in milliseconds
     */
    public PolicyAnalyzer(RuleCompiler compiler, long timeoutMs) {
        this.compiler = compiler;
        this.timeoutMs = timeoutMs;
    }

    /** Analyses the rules of {@code action}, or of both actions when it is empty. */
    public AnalysisReport analyze(PolicySet set, Optional<TriggerAction> action) {
        List<AnalysisFinding> findings = new ArrayList<>();
        int rules = 0;
        int analyzed = 0;
        int queries = 0;
        Replay replay = new Replay(set, compiler);
        for (TriggerAction a : TriggerAction.values()) {
            if (action.isPresent() && action.get() != a) {
                continue;
            }
            List<AnalyzedRule> kept = set.rules(a);
            if (kept.isEmpty()) {
                continue;
            }
            try (Formulas f = new Formulas(a, List.of(set), timeoutMs)) {
                for (AnalyzedRule r : kept) {
                    rules++;
                    List<AnalysisFinding> out = new ArrayList<>();
                    if (analyzeRule(f, kept, r, replay, out)) {
                        analyzed++;
                    }
                    findings.addAll(out);
                }
                queries += f.queries();
            }
        }
        findings.sort((x, y) -> {
            int c = Integer.compare(set.rules().indexOf(x.rule()), set.rules().indexOf(y.rule()));
            return c != 0 ? c : x.kind().compareTo(y.kind());
        });
        return new AnalysisReport(rules, analyzed, findings, queries);
    }

    /** Adds the findings of one rule; true when it was analysed completely. */
    private boolean analyzeRule(Formulas f, List<AnalyzedRule> kept, AnalyzedRule r, Replay replay,
            List<AnalysisFinding> out) {
        Formulas.RuleFormula rf = f.rule(r);
        if (rf.reason() != null) {
            out.add(new AnalysisFinding(FindingKind.NOT_ANALYZED, r, List.of(),
                    "not analysed: " + rf.reason() + " is outside the analysed fragment", null));
            return false;
        }
        int unknown = 0;
        Formulas.Answer canBeTrue = f.check(rf.isTrue());
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
            Map<String, Object> sample = f.space.witness(canBeTrue.model(), "sample-true-" + r.ruleId());
            if (!Replay.value(r, sample).equals(Optional.of(true))) {
                out.add(disagrees(r, "true", sample));
                return false;
            }
            Formulas.Answer canBeOther = f.check(f.applies(r), f.not(rf.isTrue()));
            if (canBeOther.sat()) {
                Map<String, Object> other = f.space.witness(canBeOther.model(), "sample-other-" + r.ruleId());
                if (Replay.value(r, other).equals(Optional.of(true))) {
                    out.add(disagrees(r, "false or failing", other));
                    return false;
                }
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
            List<com.microsoft.z3.Model> samples = new ArrayList<>();
            samples.add(canBeTrue.model());
            if (canBeOther.sat()) {
                samples.add(canBeOther.model());
            }
            unknown += order(f, kept, r, replay, samples, out);
        }
        unknown += mayError(f, kept, r, replay, out);
        return unknown == 0;
    }

    /** duplicate, shadowed and overridden; returns the number of unknown answers. */
    private int order(Formulas f, List<AnalyzedRule> kept, AnalyzedRule r, Replay replay,
            List<com.microsoft.z3.Model> samples, List<AnalysisFinding> out) {
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
            // same value and same failure on every action, targeting aside
            BoolExpr rv = f.ctx.mkAnd(f.not(rf.error()), rf.value());
            BoolExpr sv = f.ctx.mkAnd(f.not(sf.error()), sf.value());
            BoolExpr same = f.ctx.mkAnd(f.ctx.mkEq(rv, sv), f.ctx.mkEq(rf.error(), sf.error()));
            // a sample action on which the two differ settles it without a query
            if (samples.stream().anyMatch(m -> m.eval(same, true).isFalse())) {
                continue;
            }
            Formulas.Answer differ = f.check(f.ctx.mkOr(f.ctx.mkXor(rv, sv), f.ctx.mkXor(rf.error(), sf.error())));
            // a duplicate must also apply wherever r does (its policy targets every wallet and workspace r's
            // does), or r still decides on the wallets only it targets
            if (differ.unsat() && f.check(f.applies(r), f.not(f.applies(s))).unsat()) {
                out.add(new AnalysisFinding(FindingKind.DUPLICATE, r, List.of(s),
                        "same condition and effect as the earlier rule `" + s.label() + "`", null));
                return unknown;
            }
            if (!differ.sat()) {
                unknown++;
            }
        }
        if (!earlier.isEmpty()) {
            List<BoolExpr> parts = new ArrayList<>();
            parts.add(rf.isTrue());
            for (AnalyzedRule s : earlier) {
                parts.add(f.not(f.rule(s).isTrue()));
            }
            Formulas.Answer alone = f.check(parts.toArray(new BoolExpr[0]));
            if (alone.unsat()) {
                List<AnalyzedRule> related = overlapping(f, r, earlier);
                Map<String, Object> witness = coverWitness(f, kept, r, related, replay, false);
                if (witness == null) {
                    unknown++;
                    out.add(unreplayed(r, "shadowed"));
                } else {
                    out.add(new AnalysisFinding(FindingKind.SHADOWED, r, related,
                            "whenever this rule is true, an earlier " + r.effect().name() + " rule (" + labels(related)
                                    + ") is true for the same wallet: it never gets attribution", witness));
                }
            } else if (!alone.sat()) {
                unknown++;
                out.add(unknown(r, "whether earlier rules shadow it"));
            }
        }
        if (r.effect() == Effect.ALLOW) {
            List<AnalyzedRule> denies = kept.stream().filter(d -> d.effect() == Effect.DENY).toList();
            List<BoolExpr> parts = new ArrayList<>();
            parts.add(rf.isTrue());
            for (AnalyzedRule d : denies) {
                parts.add(f.not(f.rule(d).isTrue()));
            }
            Formulas.Answer alone = f.check(parts.toArray(new BoolExpr[0]));
            if (alone.unsat()) {
                List<AnalyzedRule> related = overlapping(f, r, denies);
                Map<String, Object> witness = coverWitness(f, kept, r, related, replay, true);
                if (witness == null) {
                    unknown++;
                    out.add(unreplayed(r, "overridden"));
                } else {
                    out.add(new AnalysisFinding(FindingKind.OVERRIDDEN, r, related,
                            "whenever this rule is true, a DENY rule (" + labels(related)
                                    + ") is true for the same wallet: it never allows", witness));
                }
            } else if (!alone.sat()) {
                unknown++;
                out.add(unknown(r, "whether DENY rules override it"));
            }
        }
        return unknown;
    }

    /**
     * The rules of {@code candidates} (in declaration order) that are enough to cover {@code r}: each is true
     * together with {@code r} on some action, and together they are true whenever {@code r} is. Rules outside
     * the fragment are never named (the claim was proved without relying on them).
     */
    private static List<AnalyzedRule> overlapping(Formulas f, AnalyzedRule r, List<AnalyzedRule> candidates) {
        List<AnalyzedRule> out = new ArrayList<>();
        List<BoolExpr> uncovered = new ArrayList<>();
        uncovered.add(f.rule(r).isTrue());
        for (AnalyzedRule s : candidates) {
            if (f.rule(s).reason() != null || f.check(f.rule(r).isTrue(), f.rule(s).isTrue()).unsat()) {
                continue;
            }
            out.add(s);
            uncovered.add(f.not(f.rule(s).isTrue()));
            if (f.check(uncovered.toArray(new BoolExpr[0])).unsat()) {
                break;
            }
        }
        return out;
    }

    /**
     * An action on which {@code r} is true and the decision goes to another rule: for a shadowed rule, one of the
     * earlier rules of its effect; for an overridden one, a DENY. Null when no replay confirms it.
     */
    private Map<String, Object> coverWitness(Formulas f, List<AnalyzedRule> kept, AnalyzedRule r,
            List<AnalyzedRule> related, Replay replay, boolean overridden) {
        List<BoolExpr> quiet = new ArrayList<>();
        quiet.add(f.rule(r).isTrue());
        for (AnalyzedRule k : kept) {
            if (!overridden && r.effect() == Effect.ALLOW && k.effect() == Effect.DENY) {
                quiet.add(f.not(f.rule(k).isTrue()));
            }
            quiet.add(f.not(f.rule(k).fails()));
        }
        Formulas.Answer a = f.check(quiet.toArray(new BoolExpr[0]));
        if (!a.sat()) {
            a = f.check(f.rule(r).isTrue());
        }
        if (!a.sat()) {
            return null;
        }
        Map<String, Object> w = f.space.witness(a.model(), "witness-" + (overridden ? "overridden" : "shadowed")
                + "-" + r.ruleId());
        Optional<Decision> d = replay.decide(w);
        if (d.isEmpty() || !Replay.value(r, w).orElse(false)) {
            return null;
        }
        boolean other = !(r.policyId().equals(d.get().policyId()) && r.ruleId().equals(d.get().ruleId()));
        boolean ok = overridden ? d.get().outcome() == Outcome.DENY && other : other;
        return ok ? w : null;
    }

    /** may_error; returns the number of unknown answers. */
    private int mayError(Formulas f, List<AnalyzedRule> kept, AnalyzedRule r, Replay replay,
            List<AnalysisFinding> out) {
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
        Map<String, Object> w = f.space.witness(a.model(), "witness-may_error-" + r.ruleId());
        Optional<Decision> d = replay.decide(w);
        if (d.isPresent() && d.get().outcome() == Outcome.DENY && d.get().failClosed()
                && d.get().failure() == FailureKind.RULE_ERROR && Replay.value(r, w).isEmpty()) {
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

    static String labels(List<AnalyzedRule> rules) {
        List<String> out = new ArrayList<>();
        for (AnalyzedRule r : rules) {
            out.add("`" + r.label() + "`");
        }
        return String.join(", ", out);
    }
}
