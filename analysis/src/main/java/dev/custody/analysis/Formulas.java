package dev.custody.analysis;

import com.microsoft.z3.BoolExpr;
import com.microsoft.z3.Context;
import com.microsoft.z3.Model;
import com.microsoft.z3.Params;
import com.microsoft.z3.Solver;
import com.microsoft.z3.Status;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The solver side of one analysis: a Z3 context, the action space of one trigger action, each rule's
 * {@code true}/{@code fails} formulas (its policy's wallet and workspace targeting included), and queries with
 * a per-query time-out. A rule outside the fragment gets free variables (it may be true, false or fail on any
 * action), which keeps every "no action can" claim about the other rules sound. Not thread-safe.
 */
final class Formulas implements AutoCloseable {
    /** A query's answer: {@code model} is set when {@code status} is SATISFIABLE. */
    record Answer(Status status, Model model) {
        boolean sat() {
            return status == Status.SATISFIABLE;
        }

        boolean unsat() {
            return status == Status.UNSATISFIABLE;
        }
    }

    /**
     * A rule's formulas: {@code isTrue}/{@code fails} include its policy's targeting, {@code value}/{@code error}
     * are the condition's alone; {@code reason} is non-null when the rule is outside the fragment (free variables).
     */
    record RuleFormula(BoolExpr isTrue, BoolExpr fails, BoolExpr value, BoolExpr error, String reason) {}

    final Context ctx;
    final ActionSpace space;
    private final Solver solver;
    private final Map<AnalyzedRule, RuleFormula> rules = new IdentityHashMap<>();
    private final Map<String, BoolExpr[]> opaque = new HashMap<>();
    private int queries;

    Formulas(TriggerAction action, List<PolicySet> sets, long timeoutMs) {
        TreeSet<String> wallets = new TreeSet<>();
        TreeSet<String> workspaces = new TreeSet<>();
        for (PolicySet s : sets) {
            for (AnalyzedRule r : s.rules()) {
                wallets.addAll(r.walletIds());
                if (r.workspaceId() != null) {
                    workspaces.add(r.workspaceId());
                }
            }
        }
        ctx = new Context();
        space = new ActionSpace(ctx, action, new ArrayList<>(wallets), new ArrayList<>(workspaces));
        solver = ctx.mkSolver();
        Params p = ctx.mkParams();
        p.add("timeout", (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeoutMs)));
        solver.setParameters(p);
        solver.add(space.facts());
    }

    /** The formulas of a rule, encoded on first use. */
    RuleFormula rule(AnalyzedRule r) {
        return rules.computeIfAbsent(r, this::build);
    }

    private RuleFormula build(AnalyzedRule r) {
        BoolExpr applies = ctx.mkAnd(space.walletIn(r.walletIds()), space.workspaceIs(r.workspaceId()));
        BoolExpr value;
        BoolExpr error;
        String reason = null;
        try {
            ConditionEncoder.Encoded e = ConditionEncoder.encode(ctx, space, r.condition().checkedAst());
            value = e.value();
            error = e.error();
        } catch (OutsideFragment o) {
            reason = o.getMessage();
            // the same condition text shares its free variables, so an unchanged rule compares equal to itself
            BoolExpr[] free = opaque.computeIfAbsent(r.condition().source(), k -> new BoolExpr[] {
                    ctx.mkBoolConst("opaque" + opaque.size() + "|value"),
                    ctx.mkBoolConst("opaque" + opaque.size() + "|error")});
            value = free[0];
            error = free[1];
        }
        return new RuleFormula(ctx.mkAnd(applies, ctx.mkNot(error), value), ctx.mkAnd(applies, error), value, error,
                reason);
    }

    /** Whether the rule's policy targets the action's wallet and workspace. */
    BoolExpr applies(AnalyzedRule r) {
        return ctx.mkAnd(space.walletIn(r.walletIds()), space.workspaceIs(r.workspaceId()));
    }

    /** Checks the conjunction of {@code parts} under the schema facts. */
    Answer check(BoolExpr... parts) {
        queries++;
        solver.push();
        try {
            for (BoolExpr b : parts) {
                solver.add(b);
            }
            Status s = solver.check();
            return new Answer(s, s == Status.SATISFIABLE ? solver.getModel() : null);
        } finally {
            solver.pop();
        }
    }

    /** How many queries were asked. */
    int queries() {
        return queries;
    }

    BoolExpr not(BoolExpr b) {
        return ctx.mkNot(b);
    }

    BoolExpr and(List<BoolExpr> parts) {
        return ctx.mkAnd(parts.toArray(new BoolExpr[0]));
    }

    BoolExpr or(List<BoolExpr> parts) {
        return ctx.mkOr(parts.toArray(new BoolExpr[0]));
    }

    @Override
    public void close() {
        ctx.close();
    }
}
