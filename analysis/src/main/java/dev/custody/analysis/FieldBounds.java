package dev.custody.analysis;

import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import dev.custody.engine.compile.CelSemantics;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.FieldType;
import dev.custody.engine.schema.TriggerAction;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What every action on which a rule is true must have, read off the condition without the solver: the policy's
 * wallets and workspace, and for each field that a top-level conjunct compares with a constant, a closed numeric
 * interval (each end closed, or open where a strict comparison set it) or a set of strings or a boolean. It is an over-approximation (conjuncts of any other form add
 * nothing), used for one decision only: two rules whose bounds exclude each other on some field, wallet or
 * workspace are never true on the same action, so the solver need not be asked.
 *
 * <p>Why the bounds are sound under cel-java's meaning: {@code a && b} is true only when both are (a failure or a
 * false on either side never gives true), so each conjunct is true wherever the condition is; a comparison that
 * reads an absent field fails, so it is never true either. Numbers are bounded by intervals whose ends are open where a strict
 * comparison set them ({@code x > c} gives {@code (c, +inf]}), and two intervals exclude each other only when one
 * ends strictly below where the other starts ({@code <} on doubles, which holds for no pair of zeros), or both
 * end at the same nonzero constant with one of them open there (see {@code below}): this holds
 * whether a comparison orders doubles by value or by {@link Double#compare} (which differ only on {@code -0.0}
 * against {@code 0.0}), and an int constant, converted to a double as cel-java compares an int with a double,
 * is used only when it converts exactly ({@code |c| <= 2^53}). NaN and infinite constants are not used. Immutable
 * and thread-safe.
 */
final class FieldBounds {
    private static final double EXACT = 9007199254740992.0; // 2^53

    private final Set<String> wallets;
    private final String workspace;
    private final Map<String, double[]> intervals = new HashMap<>();
    private final Map<String, Set<String>> strings = new HashMap<>();
    private final Map<String, Boolean> booleans = new HashMap<>();
    /** A conjunct excludes every action (an empty interval or string set, or a field both true and false). */
    private boolean empty;

    private FieldBounds(AnalyzedRule r) {
        wallets = r.walletIds();
        workspace = r.workspaceId();
        conjuncts(r.action(), r.condition().checkedAst().getExpr());
    }

    /** The bounds of a rule's {@code isTrue}: targeting and condition. */
    static FieldBounds of(AnalyzedRule r) {
        return new FieldBounds(r);
    }

    /** True only when no action makes both rules true (targeting included); false when unsure. */
    boolean excludes(FieldBounds o) {
        if (empty || o.empty) {
            return true;
        }
        if (!wallets.isEmpty() && !o.wallets.isEmpty() && java.util.Collections.disjoint(wallets, o.wallets)) {
            return true;
        }
        if (workspace != null && o.workspace != null && !workspace.equals(o.workspace)) {
            return true;
        }
        for (Map.Entry<String, double[]> e : intervals.entrySet()) {
            double[] x = e.getValue();
            double[] y = o.intervals.get(e.getKey());
            if (y != null && (below(x, y) || below(y, x))) {
                return true;
            }
        }
        for (Map.Entry<String, Set<String>> e : strings.entrySet()) {
            Set<String> y = o.strings.get(e.getKey());
            if (y != null && java.util.Collections.disjoint(e.getValue(), y)) {
                return true;
            }
        }
        for (Map.Entry<String, Boolean> e : booleans.entrySet()) {
            Boolean y = o.booleans.get(e.getKey());
            if (y != null && !y.equals(e.getValue())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code value} of the field at {@code path} lies within this rule's bounds of it (true for a field
     * the bounds say nothing of). A guide for the {@link Probe}'s choice of values only, never for a claim: an
     * absent value ({@code null}) is outside any bound, as a comparison that reads an absent field fails.
     */
    boolean admits(String path, Object value) {
        double[] x = intervals.get(path);
        if (x != null) {
            if (!(value instanceof Number n)) {
                return false;
            }
            double v = n.doubleValue();
            if (v < x[0] || v == x[0] && x[2] > 0 || v > x[1] || v == x[1] && x[3] > 0) {
                return false;
            }
        }
        Set<String> s = strings.get(path);
        if (s != null && !(value instanceof String str && s.contains(str))) {
            return false;
        }
        Boolean b = booleans.get(path);
        return b == null || b.equals(value);
    }

    /** The wallets the rule's policy targets (empty: every wallet). */
    Set<String> wallets() {
        return wallets;
    }

    /** The workspace the rule's policy targets, or null for every workspace. */
    String workspace() {
        return workspace;
    }

    private void conjuncts(TriggerAction action, CelExpr e) {
        if (e.getKind() != CelExpr.ExprKind.Kind.CALL) {
            FieldSpec f = field(action, e);
            if (f != null && f.type() == FieldType.BOOLEAN) {
                bool(f.path(), true);
            }
            return;
        }
        String fn = e.call().function();
        List<CelExpr> args = e.call().args();
        if (e.call().target().isPresent()) {
            return;
        }
        switch (CelSemantics.call(fn)) {
            case AND -> {
                for (CelExpr a : args) {
                    conjuncts(action, a);
                }
            }
            case NOT -> {
                FieldSpec f = field(action, args.get(0));
                if (f != null && f.type() == FieldType.BOOLEAN) {
                    bool(f.path(), false);
                }
            }
            case EQUALS -> {
                compare(action, args.get(0), args.get(1), "==");
                compare(action, args.get(1), args.get(0), "==");
            }
            case LESS -> {
                compare(action, args.get(0), args.get(1), "<");
                compare(action, args.get(1), args.get(0), ">");
            }
            case LESS_EQUALS -> {
                compare(action, args.get(0), args.get(1), "<=");
                compare(action, args.get(1), args.get(0), ">=");
            }
            case GREATER -> {
                compare(action, args.get(0), args.get(1), ">");
                compare(action, args.get(1), args.get(0), "<");
            }
            case GREATER_EQUALS -> {
                compare(action, args.get(0), args.get(1), ">=");
                compare(action, args.get(1), args.get(0), "<=");
            }
            case IN -> {
                FieldSpec f = field(action, args.get(0));
                CelExpr list = args.get(1);
                if (f == null || f.type() != FieldType.STRING || list.getKind() != CelExpr.ExprKind.Kind.LIST) {
                    return;
                }
                Set<String> values = new HashSet<>();
                for (CelExpr x : list.list().elements()) {
                    if (x.getKind() != CelExpr.ExprKind.Kind.CONSTANT
                            || x.constant().getKind() != CelConstant.Kind.STRING_VALUE) {
                        return;
                    }
                    values.add(x.constant().stringValue());
                }
                string(f.path(), values);
            }
            default -> {
                // adds nothing
            }
        }
    }

    /** {@code field OP constant}, OP one of {@code ==}, {@code <}, {@code <=}, {@code >}, {@code >=}. */
    private void compare(TriggerAction action, CelExpr left, CelExpr right, String op) {
        FieldSpec f = field(action, left);
        if (f == null || right.getKind() != CelExpr.ExprKind.Kind.CONSTANT) {
            return;
        }
        CelConstant c = right.constant();
        if (f.type() == FieldType.STRING && op.equals("==") && c.getKind() == CelConstant.Kind.STRING_VALUE) {
            string(f.path(), Set.of(c.stringValue()));
            return;
        }
        if (f.type() == FieldType.BOOLEAN && op.equals("==") && c.getKind() == CelConstant.Kind.BOOLEAN_VALUE) {
            bool(f.path(), c.booleanValue());
            return;
        }
        if (f.type() != FieldType.NUMBER && f.type() != FieldType.INTEGER) {
            return;
        }
        double v;
        if (c.getKind() == CelConstant.Kind.INT64_VALUE && Math.abs((double) c.int64Value()) <= EXACT) {
            v = c.int64Value();
        } else if (c.getKind() == CelConstant.Kind.DOUBLE_VALUE && f.type() == FieldType.NUMBER
                && Double.isFinite(c.doubleValue())) {
            v = c.doubleValue();
        } else {
            return; // uints, int fields against doubles, huge ints, NaN and infinities: left to the solver
        }
        boolean upper = op.startsWith("<");
        boolean lower = op.startsWith(">");
        double lo = upper ? Double.NEGATIVE_INFINITY : v;
        double hi = lower ? Double.POSITIVE_INFINITY : v;
        double loOpen = op.equals(">") ? 1 : 0;
        double hiOpen = op.equals("<") ? 1 : 0;
        double[] x = intervals.get(f.path());
        if (x == null) {
            intervals.put(f.path(), new double[] {lo, hi, loOpen, hiOpen});
        } else {
            if (lo > x[0] || lo == x[0] && loOpen > 0) {
                x[0] = lo;
                x[2] = loOpen;
            }
            if (hi < x[1] || hi == x[1] && hiOpen > 0) {
                x[1] = hi;
                x[3] = hiOpen;
            }
            if (below(x, x)) {
                empty = true;
            }
        }
    }

    /**
     * Whether every value of interval {@code x} lies below every value of {@code y} ({@code x} = {@code y}: the
     * interval is empty). An interval is {@code {lo, hi, loOpen, hiOpen}}, an open end (1) coming from a strict
     * comparison. Two intervals that meet at a point exclude each other only when one of them is open there and
     * the point is not zero: for a nonzero constant {@code v} and any number {@code a}, "{@code a < v}" and
     * "{@code a > v}" read the same whether the comparison orders by value or by {@link Double#compare}, which
     * differ only on {@code -0.0} against {@code 0.0} (and a JSON number is never NaN).
     */
    private static boolean below(double[] x, double[] y) {
        return x[1] < y[0] || x[1] == y[0] && (x[3] > 0 || y[2] > 0) && x[1] != 0;
    }

    private void string(String path, Set<String> values) {
        Set<String> x = strings.get(path);
        Set<String> out = new HashSet<>(values);
        if (x != null) {
            out.retainAll(x);
        }
        strings.put(path, out);
        if (out.isEmpty()) {
            empty = true;
        }
    }

    private void bool(String path, boolean value) {
        Boolean x = booleans.put(path, value);
        if (x != null && x != value) {
            empty = true;
        }
    }

    /** The schema field a {@code section.field} read names (not a {@code has()} test), or null. */
    private static FieldSpec field(TriggerAction action, CelExpr e) {
        if (e.getKind() != CelExpr.ExprKind.Kind.SELECT || e.select().testOnly()
                || e.select().operand().getKind() != CelExpr.ExprKind.Kind.IDENT) {
            return null;
        }
        return FieldSchema.field(action, e.select().operand().ident().name() + "." + e.select().field()).orElse(null);
    }
}
