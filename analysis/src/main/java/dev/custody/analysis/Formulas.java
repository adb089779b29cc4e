package dev.custody.analysis;

import com.microsoft.z3.BoolExpr;
import com.microsoft.z3.Context;
import com.microsoft.z3.Expr;
import com.microsoft.z3.Model;
import com.microsoft.z3.Params;
import com.microsoft.z3.Solver;
import com.microsoft.z3.Status;
import com.microsoft.z3.Tactic;
import com.microsoft.z3.enumerations.Z3_decl_kind;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.HashSet;
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

    /**
     * How long a query may take on the incremental solver before it goes to the bit-blasting one, in
     * milliseconds (at most half the query's time-out).
     */
    static final long INCREMENTAL_TRY_MS = 150;

    final Context ctx;
    final ActionSpace space;
    private final Solver solver;
    private final long timeoutMs;
    private final long incrementalMs;
    private final Tactic blast;
    private final Map<AnalyzedRule, RuleFormula> rules = new IdentityHashMap<>();
    private final Map<String, BoolExpr[]> opaque = new HashMap<>();
    /** Rules' formulas by AST id: whether they hold terms the incremental solver is slow on. */
    private final Map<Integer, Boolean> heavy = new HashMap<>();
    private final Map<Integer, Boolean> arithmeticMemo = new HashMap<>();
    private int queries;
    private final long deadlineNanos;

    private static boolean prestarted;

    /** See {@link PolicyAnalyzer#prestart()}. */
    static synchronized void prestart() {
        if (prestarted) {
            return;
        }
        prestarted = true;
        Thread t = new Thread(() -> {
            try (Context c = new Context()) {
                c.mkSolver().check(); // loads and links the native library and its solver
            } catch (RuntimeException | Error e) {
                // the analysis creates its own contexts and reports what fails there
            }
        }, "custody-z3-prestart");
        t.setDaemon(true);
        t.start();
    }

    Formulas(TriggerAction action, List<PolicySet> sets, long timeoutMs) {
        this(action, sets, timeoutMs, Long.MAX_VALUE);
    }

    /**
     * @param deadlineNanos a {@link System#nanoTime()} after which every query answers UNKNOWN at once, and before
     *     which no query runs past it; {@link Long#MAX_VALUE} for none
     */
    Formulas(TriggerAction action, List<PolicySet> sets, long timeoutMs, long deadlineNanos) {
        this.deadlineNanos = deadlineNanos;
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
        this.timeoutMs = Math.max(1, timeoutMs);
        incrementalMs = Math.max(1, Math.min(INCREMENTAL_TRY_MS, this.timeoutMs / 2));
        solver = ctx.mkSolver();
        Params p = ctx.mkParams();
        p.add("timeout", (int) Math.min(Integer.MAX_VALUE, incrementalMs));
        solver.setParameters(p);
        solver.add(space.facts());
        blast = ctx.mkTactic("qffp");
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
        RuleFormula f = new RuleFormula(ctx.mkAnd(applies, ctx.mkNot(error), value), ctx.mkAnd(applies, error), value,
                error, reason);
        for (BoolExpr b : List.of(f.isTrue(), f.fails(), ctx.mkNot(f.isTrue()), ctx.mkNot(f.fails()))) {
            recurring.put(b.getId(), b);
        }
        // a rule's failure is often free of the arithmetic its value holds (a has() guard, a missing key)
        boolean slowError = arithmetic(error, arithmeticMemo);
        boolean slow = arithmetic(value, arithmeticMemo) || slowError;
        for (Expr<?> e : List.of(f.isTrue(), value)) {
            heavy.merge(e.getId(), slow, Boolean::logicalOr);
        }
        for (Expr<?> e : List.of(f.fails(), error)) {
            heavy.merge(e.getId(), slowError, Boolean::logicalOr);
        }
        return f;
    }

    /** Whether the rule's policy targets the action's wallet and workspace. */
    BoolExpr applies(AnalyzedRule r) {
        return ctx.mkAnd(space.walletIn(r.walletIds()), space.workspaceIs(r.workspaceId()));
    }

    /**
     * Checks the conjunction of {@code parts} under the schema facts, within the query's time-out (capped by the
     * run's deadline, past which every query is UNKNOWN at once): a query whose rules hold double arithmetic or
     * int-to-double conversions of fields goes to the bit-blasting solver only; any other first on the
     * incremental solver (quick for comparisons with constants, strings, booleans), and when that has not decided
     * within {@link #INCREMENTAL_TRY_MS}, on a solver that bit-blasts the floating-point and bit-vector terms
     * first (Z3's {@code qffp} tactic, then its SMT core for what is left): double arithmetic and int-to-double
     * conversions of fields are far quicker so. Both are exact; only the time differs. A query with such terms
     * is first asked with each of them replaced by a variable ({@link #abstracted}), which settles most
     * "no action" answers (and some "yes" ones, with a model the real query is true on) without bit-blasting.
     */
    Answer check(BoolExpr... parts) {
        queries++;
        long left = timeoutMs;
        if (deadlineNanos != Long.MAX_VALUE) {
            left = Math.min(left, (deadlineNanos - System.nanoTime()) / 1_000_000);
            if (left <= 0) {
                return new Answer(Status.UNKNOWN, null);
            }
        }
        boolean heavy = false;
        for (BoolExpr b : parts) {
            heavy |= heavy(b, new HashSet<>());
        }
        if (heavy) {
            long ta = System.nanoTime();
            Answer abs = abstracted(parts);
            if (abs.status() == Status.UNSATISFIABLE || abs.model() != null) {
                return abs;
            }
            left -= (System.nanoTime() - ta) / 1_000_000;
            if (left <= 0) {
                return new Answer(Status.UNKNOWN, null);
            }
            return blasted(left, parts);
        }
        // a rule's own formulas come back in many queries: asserted once behind a guard literal (at the base
        // level, before the query's scope opens) and assumed; anything else (a pair's formula, asked once) goes
        // into the query's push/pop scope
        List<BoolExpr> lits = new ArrayList<>();
        List<BoolExpr> scoped = new ArrayList<>();
        for (BoolExpr b : parts) {
            BoolExpr lit = literal(b);
            if (lit != null) {
                lits.add(lit);
            } else {
                scoped.add(b);
            }
        }
        solver.push();
        try {
            for (BoolExpr b : scoped) {
                solver.add(b);
            }
            Status s = solver.check(lits.toArray(new BoolExpr[0]));
            if (s != Status.UNKNOWN) {
                return new Answer(s, s == Status.SATISFIABLE ? solver.getModel() : null);
            }
        } finally {
            solver.pop();
        }
        return blasted(left - incrementalMs, parts);
    }

    /**
     * The guard literal of a rule's formula, made and asserted at the base level on first use; null for any
     * other formula. Only called with no scope open.
     */
    private BoolExpr literal(BoolExpr part) {
        int id = part.getId();
        BoolExpr known = recurring.get(id);
        if (known == null || !known.equals(part)) {
            return null;
        }
        BoolExpr g = literals.get(id);
        if (g == null) {
            g = ctx.mkBoolConst("guard|" + literals.size());
            solver.add(ctx.mkImplies(g, part));
            literals.put(id, g);
        }
        return g;
    }

    /** Guard literals by the AST id of the formula they imply. */
    private final Map<Integer, BoolExpr> literals = new HashMap<>();
    /**
     * The rules' formulas that queries use again and again (isTrue, fails, and their negations) by AST id; held
     * here so that Z3 never frees them and gives their ids to other terms.
     */
    private final Map<Integer, BoolExpr> recurring = new HashMap<>();

    /**
     * The query with each floating-point sum, difference, product or quotient and each int-to-double conversion
     * of a field replaced by a fresh variable, under lemmas that the real term keeps (a sum of finite doubles is
     * never NaN, and rounding to nearest is monotone, so {@code y >= 0} gives {@code x + y >= x}, {@code y <= 0}
     * gives {@code x + y <= x}, and likewise for the other operand and for differences). Every model of the real
     * query gives a model of this one, so UNSATISFIABLE here is UNSATISFIABLE there; a model here is returned
     * only when the real query is true on it (Z3 evaluates the real terms on the model's values exactly, as
     * the bit-blasting solver would); any other answer is UNKNOWN, and the caller asks the exact solver. Asked on the incremental solver, which decides comparisons of
     * a variable with constants quickly, within {@link #INCREMENTAL_TRY_MS}.
     */
    private Answer abstracted(BoolExpr... parts) {
        List<Expr<?>> terms = new ArrayList<>();
        Set<Integer> seen = new HashSet<>();
        for (BoolExpr b : parts) {
            collect(b, terms, seen);
        }
        if (terms.isEmpty()) {
            return new Answer(Status.UNKNOWN, null);
        }
        Expr<?>[] from = new Expr<?>[terms.size()];
        Expr<?>[] to = new Expr<?>[terms.size()];
        for (int i = 0; i < from.length; i++) {
            from[i] = terms.get(i);
            to[i] = abstraction(terms.get(i));
        }
        solver.push();
        try {
            for (BoolExpr b : parts) {
                solver.add((BoolExpr) b.substitute(from, to));
            }
            for (int i = 0; i < from.length; i++) {
                for (BoolExpr l : lemmas(terms.get(i))) {
                    solver.add((BoolExpr) l.substitute(from, to));
                }
            }
            Status st = solver.check();
            if (st == Status.SATISFIABLE) {
                // a model of the abstraction whose fields satisfy the real query (the model's own exact evaluation
                // of the real terms) is a model of the real query
                Model m = solver.getModel();
                for (BoolExpr b : parts) {
                    if (!m.eval(b, true).isTrue()) {
                        return new Answer(Status.UNKNOWN, null);
                    }
                }
                return new Answer(st, m);
            }
            return new Answer(st == Status.UNSATISFIABLE ? st : Status.UNKNOWN, null);
        } finally {
            solver.pop();
        }
    }

    /** The terms {@link #arithmetic} looks for in {@code e}, each once. */
    private void collect(Expr<?> e, List<Expr<?>> out, Set<Integer> seen) {
        if (!seen.add(e.getId()) || !e.isApp() || e.isNumeral() || e.isConst()) {
            return;
        }
        for (Expr<?> a : e.getArgs()) {
            collect(a, out, seen);
        }
        if (heavyTerm(e)) {
            out.add(e);
        }
    }

    private static boolean heavyTerm(Expr<?> e) {
        return switch (e.getFuncDecl().getDeclKind()) {
            case Z3_OP_FPA_ADD, Z3_OP_FPA_SUB, Z3_OP_FPA_MUL, Z3_OP_FPA_DIV, Z3_OP_BMUL, Z3_OP_BSDIV, Z3_OP_BUDIV,
                    Z3_OP_BSREM, Z3_OP_BUREM, Z3_OP_FPA_TO_FP, Z3_OP_FPA_TO_FP_UNSIGNED -> !allNumerals(e);
            default -> false;
        };
    }

    /** The fresh variable standing for a term; one per term, so the same sum in two rules is one variable. */
    private Expr<?> abstraction(Expr<?> term) {
        Expr<?>[] known = abstractions.get(term.getId());
        if (known != null && known[0].equals(term)) {
            return known[1];
        }
        Expr<?> v = ctx.mkFreshConst("abstract", term.getSort());
        abstractions.put(term.getId(), new Expr<?>[] {term, v});
        return v;
    }

    /** Terms and their variables by the term's AST id (the term is held so that Z3 never reuses the id). */
    private final Map<Integer, Expr<?>[]> abstractions = new HashMap<>();

    /** What the real term keeps, in terms of the term itself and its operands (substituted by the caller). */
    private List<BoolExpr> lemmas(Expr<?> term) {
        Z3_decl_kind k = term.getFuncDecl().getDeclKind();
        if (k != Z3_decl_kind.Z3_OP_FPA_ADD && k != Z3_decl_kind.Z3_OP_FPA_SUB) {
            return List.of();
        }
        Expr<?>[] args = term.getArgs(); // rounding mode, x, y
        if (args.length != 3 || !args[0].equals(ctx.mkFPRoundNearestTiesToEven())
                || !(args[1] instanceof com.microsoft.z3.FPExpr x) || !(args[2] instanceof com.microsoft.z3.FPExpr y)) {
            return List.of();
        }
        com.microsoft.z3.FPExpr t = (com.microsoft.z3.FPExpr) term;
        com.microsoft.z3.FPExpr zero = ctx.mkFPZero((com.microsoft.z3.FPSort) x.getSort(), false);
        List<BoolExpr> out = new ArrayList<>();
        BoolExpr finite = ctx.mkAnd(ctx.mkNot(ctx.mkFPIsNaN(x)), ctx.mkNot(ctx.mkFPIsInfinite(x)),
                ctx.mkNot(ctx.mkFPIsNaN(y)), ctx.mkNot(ctx.mkFPIsInfinite(y)));
        out.add(ctx.mkImplies(finite, ctx.mkNot(ctx.mkFPIsNaN(t))));
        if (k == Z3_decl_kind.Z3_OP_FPA_ADD) {
            // x + y against x as y's sign says, and against y as x's sign says (x + y is exact before rounding)
            out.add(ctx.mkImplies(ctx.mkAnd(finite, ctx.mkFPGEq(y, zero)), ctx.mkFPGEq(t, x)));
            out.add(ctx.mkImplies(ctx.mkAnd(finite, ctx.mkFPLEq(y, zero)), ctx.mkFPLEq(t, x)));
            out.add(ctx.mkImplies(ctx.mkAnd(finite, ctx.mkFPGEq(x, zero)), ctx.mkFPGEq(t, y)));
            out.add(ctx.mkImplies(ctx.mkAnd(finite, ctx.mkFPLEq(x, zero)), ctx.mkFPLEq(t, y)));
        } else {
            // x - y against x as y's sign says
            out.add(ctx.mkImplies(ctx.mkAnd(finite, ctx.mkFPGEq(y, zero)), ctx.mkFPLEq(t, x)));
            out.add(ctx.mkImplies(ctx.mkAnd(finite, ctx.mkFPLEq(y, zero)), ctx.mkFPGEq(t, x)));
        }
        return out;
    }

    private Answer blasted(long ms, BoolExpr... parts) {
        Solver blasting = ctx.mkSolver(ctx.tryFor(blast, (int) Math.min(Integer.MAX_VALUE, Math.max(1, ms))));
        blasting.add(space.facts());
        blasting.add(parts);
        Status s = blasting.check();
        return new Answer(s, s == Status.SATISFIABLE ? blasting.getModel() : null);
    }

    /**
     * Whether a query part holds a rule whose formulas have double arithmetic, an int-to-double conversion of a
     * field or an int product or quotient of fields (terms the incremental solver is slow on): the part's boolean
     * structure is followed down to the rules' formulas. A guess at speed only; both solvers are exact.
     */
    private boolean heavy(Expr<?> e, Set<Integer> seen) {
        int id = e.getId();
        Boolean known = heavy.get(id);
        if (known != null) {
            return known;
        }
        if (!seen.add(id) || !e.isBool() || !e.isApp() || e.isConst()) {
            return false;
        }
        for (Expr<?> a : e.getArgs()) {
            if (heavy(a, seen)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a formula (a rule's) holds one of the terms {@link #heavy(Expr, Set)} looks for. */
    private static boolean arithmetic(Expr<?> e, Map<Integer, Boolean> memo) {
        int id = e.getId();
        Boolean known = memo.get(id);
        if (known != null) {
            return known;
        }
        boolean out = false;
        if (e.isApp() && !e.isNumeral() && !e.isConst()) {
            Z3_decl_kind k = e.getFuncDecl().getDeclKind();
            switch (k) {
                case Z3_OP_FPA_ADD, Z3_OP_FPA_SUB, Z3_OP_FPA_MUL, Z3_OP_FPA_DIV, Z3_OP_BMUL, Z3_OP_BSDIV,
                        Z3_OP_BUDIV, Z3_OP_BSREM, Z3_OP_BUREM, Z3_OP_BSMUL_NO_OVFL, Z3_OP_BUMUL_NO_OVFL,
                        Z3_OP_BSMUL_NO_UDFL -> out = !allNumerals(e);
                case Z3_OP_FPA_TO_FP, Z3_OP_FPA_TO_FP_UNSIGNED -> out = !allNumerals(e);
                default -> {
                    for (Expr<?> a : e.getArgs()) {
                        if (arithmetic(a, memo)) {
                            out = true;
                            break;
                        }
                    }
                }
            }
        }
        memo.put(id, out);
        return out;
    }

    private static boolean allNumerals(Expr<?> e) {
        for (Expr<?> a : e.getArgs()) {
            if (!(a.isNumeral() || a instanceof com.microsoft.z3.FPRMExpr)) {
                return false;
            }
        }
        return true;
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
