package dev.custody.analysis;

import com.microsoft.z3.BitVecExpr;
import com.microsoft.z3.BoolExpr;
import com.microsoft.z3.CharSort;
import com.microsoft.z3.Context;
import com.microsoft.z3.Expr;
import com.microsoft.z3.FPExpr;
import com.microsoft.z3.FPSort;
import com.microsoft.z3.SeqExpr;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.Operator;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.FieldType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Translates a checked CEL condition into a pair of solver formulas: {@code value} (what it evaluates to when it
 * does not fail) and {@code error} (whether it fails at run time), with the meaning cel-java gives it at every
 * value (docs/design.md §3, §13): {@code &&}/{@code ||} absorb an error on either side when the other side
 * decides, {@code !} and {@code ?:} pass errors on, a read of an absent optional field or {@code decoded_args} key
 * fails.
 *
 * <p>Numbers are the machine numbers cel-java computes with, not reals: a double is an IEEE-754 binary64
 * ({@code FPSort(11, 53)}; arithmetic rounds to nearest even, overflows to ±Infinity, {@code 0.0/0.0} is NaN, all
 * without error), an int a 64-bit two's-complement bit-vector (overflow of {@code + - *}, unary {@code -} of the
 * least int, division or modulo by zero and the least int divided by -1 are errors, as cel-java raises them), a
 * uint a 64-bit unsigned bit-vector (overflow, a negative difference and division by zero are errors). Doubles
 * compare with each other as IEEE does ({@code ==}: NaN equals nothing, {@code -0.0 == 0.0}); a double and an int
 * (or uint) compare as cel-java's {@code ComparisonFunctions.compareDoubleInt} does, which is
 * {@code Double.compare(d, (double) i)} with the integer rounded to the nearest double: so {@code -0.0} is below
 * int {@code 0}, NaN above every integer, and {@code 9007199254740993 == 9007199254740992.0}; an int and a uint
 * compare by value, except that cel-java puts every uint from {@code 2^63-1} up above every int. This is also what the compiled path does ({@code ClosureCompiler.compareDoubleLong}).
 *
 * <p>The fragment: bool, int, uint and double constants and fields; string constants (printable ASCII) and
 * fields; {@code ==}, {@code !=} on numbers, strings and bools; {@code <}, {@code <=}, {@code >}, {@code >=} on
 * numbers; {@code + - * /} on two numbers of one type, {@code %} on ints and uints, unary {@code -} on ints and
 * doubles; {@code in} over a list literal; {@code startsWith}, {@code endsWith}, {@code contains} on strings;
 * {@code has()} on optional fields and on {@code decoded_args} keys; reads of {@code decoded_args} keys compared
 * with strings; {@code &&}, {@code ||}, {@code !}, {@code ?:}. Anything else throws {@link OutsideFragment}: the
 * rule is then not analysed, never guessed at. Operators are recognised by cel-java's {@link Operator} table.
 *
 * <p>Not thread-safe (one Z3 context).
 */
final class ConditionEncoder {
    private final Context ctx;
    private final ActionSpace space;

    /** DBL a double, INT an int, UINT a uint; DYN a {@code decoded_args} value. */
    private enum Kind { BOOL, DBL, INT, UINT, STR, DYN, MAP, LIST }

    /** cel-java's operators by function name ({@code _&&_} → LOGICAL_AND, ...). */
    private static final Map<String, Operator> OPERATORS = new HashMap<>();

    static {
        for (Operator o : Operator.values()) {
            OPERATORS.putIfAbsent(o.getFunction(), o);
        }
    }

    /** An encoded sub-expression: its value (sort by kind), whether it fails, and for a list its elements. */
    private record Val(Kind kind, Expr<?> value, BoolExpr error, ActionSpace.Arg arg, List<Val> elements) {
        static Val of(Kind kind, Expr<?> value, BoolExpr error) {
            return new Val(kind, value, error, null, List.of());
        }
    }

    /** The two formulas of a condition. */
    record Encoded(BoolExpr value, BoolExpr error) {}

    private ConditionEncoder(Context ctx, ActionSpace space) {
        this.ctx = ctx;
        this.space = space;
    }

    static Encoded encode(Context ctx, ActionSpace space, CelAbstractSyntaxTree ast) throws OutsideFragment {
        Val v = new ConditionEncoder(ctx, space).enc(ast.getExpr());
        if (v.kind() != Kind.BOOL) {
            throw new OutsideFragment("the condition's value is not a plain boolean");
        }
        return new Encoded((BoolExpr) v.value(), v.error());
    }

    private Val enc(CelExpr e) throws OutsideFragment {
        return switch (e.getKind()) {
            case CONSTANT -> constant(e.constant());
            case SELECT -> select(e);
            case CALL -> call(e);
            case LIST -> {
                List<Val> elements = new ArrayList<>();
                for (CelExpr x : e.list().elements()) {
                    elements.add(enc(x));
                }
                yield new Val(Kind.LIST, null, ctx.mkFalse(), null, elements);
            }
            case IDENT -> throw new OutsideFragment("a whole section (`" + e.ident().name() + "`) is used as a value");
            case COMPREHENSION -> throw new OutsideFragment("a comprehension (`all`, `exists`, `map`, `filter`)");
            default -> throw new OutsideFragment("a " + e.getKind().name().toLowerCase(Locale.ROOT) + " expression");
        };
    }

    private Val constant(CelConstant c) throws OutsideFragment {
        BoolExpr ok = ctx.mkFalse();
        return switch (c.getKind()) {
            case BOOLEAN_VALUE -> Val.of(Kind.BOOL, ctx.mkBool(c.booleanValue()), ok);
            case INT64_VALUE -> Val.of(Kind.INT, ctx.mkBV(c.int64Value(), 64), ok);
            case UINT64_VALUE -> Val.of(Kind.UINT, ctx.mkBV(c.uint64Value().longValue(), 64), ok);
            case DOUBLE_VALUE -> Val.of(Kind.DBL, doubleConstant(ctx, c.doubleValue()), ok);
            case STRING_VALUE -> Val.of(Kind.STR, string(c.stringValue()), ok);
            default -> throw new OutsideFragment("a constant of kind " + c.getKind().name().toLowerCase(Locale.ROOT));
        };
    }

    /** The double sort: IEEE-754 binary64. */
    static FPSort doubleSort(Context ctx) {
        return ctx.mkFPSortDouble();
    }

    /** A double as a solver constant, bit for bit (signed zeros, infinities and NaN included). */
    static FPExpr doubleConstant(Context ctx, double d) {
        FPSort s = doubleSort(ctx);
        if (Double.isNaN(d)) {
            return ctx.mkFPNaN(s);
        }
        if (Double.isInfinite(d)) {
            return ctx.mkFPInf(s, d < 0);
        }
        if (d == 0) {
            return ctx.mkFPZero(s, Double.doubleToRawLongBits(d) != 0);
        }
        return ctx.mkFPToFP(ctx.mkBV(Double.doubleToRawLongBits(d), 64), s);
    }

    private SeqExpr<CharSort> string(String s) throws OutsideFragment {
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch < 0x20 || ch > 0x7e || ch == '\\') {
                throw new OutsideFragment("a string constant with characters outside printable ASCII");
            }
        }
        return ctx.mkString(s);
    }

    private Val select(CelExpr e) throws OutsideFragment {
        CelExpr operand = e.select().operand();
        String field = e.select().field();
        boolean test = e.select().testOnly();
        if (operand.getKind() == CelExpr.ExprKind.Kind.IDENT) {
            String path = operand.ident().name() + "." + field;
            FieldSpec spec = FieldSchema.field(space.action(), path)
                    .orElseThrow(() -> new OutsideFragment("unknown field `" + path + "`"));
            BoolExpr present = space.present(path);
            if (test) {
                return Val.of(Kind.BOOL, present == null ? ctx.mkTrue() : present, ctx.mkFalse());
            }
            BoolExpr error = present == null ? ctx.mkFalse() : ctx.mkNot(present);
            if (spec.type() == FieldType.MAP) {
                return Val.of(Kind.MAP, null, error);
            }
            Expr<?> v = space.field(path);
            return switch (spec.type()) {
                case NUMBER -> Val.of(Kind.DBL, v, error);
                case INTEGER -> Val.of(Kind.INT, v, error);
                case STRING -> Val.of(Kind.STR, v, error);
                case BOOLEAN -> Val.of(Kind.BOOL, v, error);
                default -> throw new OutsideFragment("field `" + path + "`");
            };
        }
        Val map = enc(operand);
        if (map.kind() != Kind.MAP) {
            throw new OutsideFragment("a field selected from a value that is not `resource.decoded_args`");
        }
        return argument(map, field, test);
    }

    private Val argument(Val map, String key, boolean test) {
        ActionSpace.Arg a = space.arg(key);
        if (test) {
            return Val.of(Kind.BOOL, a.has(), map.error());
        }
        return new Val(Kind.DYN, a.value(), ctx.mkOr(map.error(), ctx.mkNot(a.has())), a, List.of());
    }

    private Val call(CelExpr e) throws OutsideFragment {
        String fn = e.call().function();
        Operator op = OPERATORS.get(fn);
        List<CelExpr> raw = new ArrayList<>();
        e.call().target().ifPresent(raw::add);
        raw.addAll(e.call().args());
        if (op == Operator.INDEX && raw.size() == 2) {
            CelExpr k = raw.get(1);
            Val map = enc(raw.get(0));
            if (map.kind() == Kind.MAP && k.getKind() == CelExpr.ExprKind.Kind.CONSTANT
                    && k.constant().getKind() == CelConstant.Kind.STRING_VALUE) {
                return argument(map, k.constant().stringValue(), false);
            }
            throw new OutsideFragment("an index other than `resource.decoded_args[\"key\"]`");
        }
        List<Val> a = new ArrayList<>();
        for (CelExpr x : raw) {
            a.add(enc(x));
        }
        if (op == null) {
            return function(e, fn, a);
        }
        switch (op) {
            case LOGICAL_AND: {
                bools(fn, a);
                BoolExpr decided = ctx.mkOr(isFalse(a.get(0)), isFalse(a.get(1)));
                BoolExpr error = ctx.mkAnd(ctx.mkNot(decided), ctx.mkOr(a.get(0).error(), a.get(1).error()));
                return Val.of(Kind.BOOL, ctx.mkAnd(isTrue(a.get(0)), isTrue(a.get(1))), error);
            }
            case LOGICAL_OR: {
                bools(fn, a);
                BoolExpr decided = ctx.mkOr(isTrue(a.get(0)), isTrue(a.get(1)));
                BoolExpr error = ctx.mkAnd(ctx.mkNot(decided), ctx.mkOr(a.get(0).error(), a.get(1).error()));
                return Val.of(Kind.BOOL, decided, error);
            }
            case LOGICAL_NOT: {
                bools(fn, a);
                return Val.of(Kind.BOOL, ctx.mkNot((BoolExpr) a.get(0).value()), a.get(0).error());
            }
            case CONDITIONAL: {
                Val c = a.get(0);
                Val t = a.get(1);
                Val f = a.get(2);
                if (c.kind() != Kind.BOOL || t.kind() != f.kind()
                        || !(t.kind() == Kind.BOOL || number(t) || t.kind() == Kind.STR)) {
                    throw new OutsideFragment("a `?:` whose branches are not both booleans, numbers of one type or "
                            + "strings");
                }
                BoolExpr cv = (BoolExpr) c.value();
                BoolExpr error = ctx.mkOr(c.error(), (BoolExpr) ctx.mkITE(cv, t.error(), f.error()));
                return Val.of(t.kind(), ctx.mkITE(cv, t.value(), f.value()), error);
            }
            case EQUALS:
                return Val.of(Kind.BOOL, equal(a.get(0), a.get(1)), errors(a));
            case NOT_EQUALS:
                return Val.of(Kind.BOOL, ctx.mkNot(equal(a.get(0), a.get(1))), errors(a));
            case LESS, LESS_EQUALS, GREATER, GREATER_EQUALS: {
                if (!number(a.get(0)) || !number(a.get(1))) {
                    throw new OutsideFragment("an ordering (`" + display(fn) + "`) of values that are not both "
                            + "numbers");
                }
                return Val.of(Kind.BOOL, order(op, a.get(0), a.get(1)), errors(a));
            }
            case ADD, SUBTRACT, MULTIPLY, DIVIDE, MODULO:
                return arithmetic(op, fn, a.get(0), a.get(1));
            case NEGATE: {
                Val x = a.get(0);
                if (x.kind() == Kind.DBL) {
                    return Val.of(Kind.DBL, ctx.mkFPNeg(fp(x)), x.error());
                }
                if (x.kind() == Kind.INT) {
                    // -(least int) does not fit: cel-java's overflow error
                    return Val.of(Kind.INT, ctx.mkBVNeg(bv(x)),
                            ctx.mkOr(x.error(), ctx.mkEq(bv(x), ctx.mkBV(Long.MIN_VALUE, 64))));
                }
                throw new OutsideFragment("`-` on a value that is not an int or a double");
            }
            case IN, OLD_IN: {
                Val list = a.get(1);
                if (list.kind() != Kind.LIST) {
                    throw new OutsideFragment("`in` over something other than a list literal");
                }
                List<BoolExpr> or = new ArrayList<>();
                List<BoolExpr> err = new ArrayList<>();
                err.add(a.get(0).error());
                for (Val x : list.elements()) {
                    or.add(equal(a.get(0), x));
                    err.add(x.error());
                }
                return Val.of(Kind.BOOL, ctx.mkOr(or.toArray(new BoolExpr[0])), ctx.mkOr(err.toArray(new BoolExpr[0])));
            }
            default:
                throw new OutsideFragment("operator `" + display(fn) + "`");
        }
    }

    /** The string functions of the fragment. */
    private Val function(CelExpr e, String fn, List<Val> a) throws OutsideFragment {
        if (!(fn.equals("startsWith") || fn.equals("endsWith") || fn.equals("contains"))) {
            throw new OutsideFragment("function `" + fn + "`");
        }
        if (e.call().target().isEmpty() || a.size() != 2 || a.get(1).kind() != Kind.STR
                || !(a.get(0).kind() == Kind.STR || a.get(0).kind() == Kind.DYN)) {
            throw new OutsideFragment("`" + fn + "` on values that are not strings");
        }
        @SuppressWarnings("unchecked")
        SeqExpr<CharSort> s = (SeqExpr<CharSort>) a.get(0).value();
        @SuppressWarnings("unchecked")
        SeqExpr<CharSort> t = (SeqExpr<CharSort>) a.get(1).value();
        BoolExpr v = switch (fn) {
            case "startsWith" -> ctx.mkPrefixOf(t, s);
            case "endsWith" -> ctx.mkSuffixOf(t, s);
            default -> ctx.mkContains(s, t);
        };
        BoolExpr error = errors(a);
        if (a.get(0).kind() == Kind.DYN) {
            // a decoded argument that is not a string has no such function: a run-time error
            error = ctx.mkOr(error, ctx.mkNot(a.get(0).arg().isString()));
        }
        return Val.of(Kind.BOOL, v, error);
    }

    /**
     * {@code + - * / %} on two numbers of one type, as cel-java computes them: doubles rounded to nearest even
     * (never an error), ints and uints in 64 bits with an error where the exact result does not fit, on division or
     * modulo by zero, and on the least int divided by -1. (Mixed types do not pass the checker.)
     */
    private Val arithmetic(Operator op, String fn, Val x, Val y) throws OutsideFragment {
        if (!number(x) || x.kind() != y.kind()) {
            throw new OutsideFragment("arithmetic (`" + display(fn) + "`) on values that are not both ints, both uints "
                    + "or both doubles");
        }
        BoolExpr in = ctx.mkOr(x.error(), y.error());
        if (x.kind() == Kind.DBL) {
            FPExpr u = fp(x);
            FPExpr w = fp(y);
            var rne = ctx.mkFPRoundNearestTiesToEven();
            FPExpr v = switch (op) {
                case ADD -> ctx.mkFPAdd(rne, u, w);
                case SUBTRACT -> ctx.mkFPSub(rne, u, w);
                case MULTIPLY -> ctx.mkFPMul(rne, u, w);
                case DIVIDE -> ctx.mkFPDiv(rne, u, w);
                default -> throw new OutsideFragment("`%` on doubles");
            };
            return Val.of(Kind.DBL, v, in);
        }
        BitVecExpr u = bv(x);
        BitVecExpr w = bv(y);
        boolean signed = x.kind() == Kind.INT;
        BitVecExpr zero = ctx.mkBV(0, 64);
        BitVecExpr v;
        BoolExpr fails;
        switch (op) {
            case ADD -> {
                v = ctx.mkBVAdd(u, w);
                fails = signed ? ctx.mkNot(ctx.mkAnd(ctx.mkBVAddNoOverflow(u, w, true), ctx.mkBVAddNoUnderflow(u, w)))
                        : ctx.mkNot(ctx.mkBVAddNoOverflow(u, w, false));
            }
            case SUBTRACT -> {
                v = ctx.mkBVSub(u, w);
                fails = signed ? ctx.mkNot(ctx.mkAnd(ctx.mkBVSubNoOverflow(u, w), ctx.mkBVSubNoUnderflow(u, w, true)))
                        : ctx.mkBVULT(u, w);
            }
            case MULTIPLY -> {
                v = ctx.mkBVMul(u, w);
                fails = signed ? ctx.mkNot(ctx.mkAnd(ctx.mkBVMulNoOverflow(u, w, true), ctx.mkBVMulNoUnderflow(u, w)))
                        : ctx.mkNot(ctx.mkBVMulNoOverflow(u, w, false));
            }
            case DIVIDE -> {
                v = signed ? ctx.mkBVSDiv(u, w) : ctx.mkBVUDiv(u, w);
                fails = ctx.mkEq(w, zero);
                if (signed) {
                    fails = ctx.mkOr(fails, ctx.mkAnd(ctx.mkEq(u, ctx.mkBV(Long.MIN_VALUE, 64)),
                            ctx.mkEq(w, ctx.mkBV(-1, 64))));
                }
            }
            default -> {
                // Java's remainder: the sign of the dividend, as bvsrem; the least int % -1 is 0
                v = signed ? ctx.mkBVSRem(u, w) : ctx.mkBVURem(u, w);
                fails = ctx.mkEq(w, zero);
            }
        }
        return Val.of(x.kind(), v, ctx.mkOr(in, fails));
    }

    private static String display(String fn) {
        return fn.startsWith("_") || fn.endsWith("_") ? fn.replace("_", "").replace("[", "[]").replace("]]", "]") : fn;
    }

    private static boolean number(Val v) {
        return v.kind() == Kind.DBL || v.kind() == Kind.INT || v.kind() == Kind.UINT;
    }

    private static FPExpr fp(Val v) {
        return (FPExpr) v.value();
    }

    private static BitVecExpr bv(Val v) {
        return (BitVecExpr) v.value();
    }

    /**
     * The ordering {@code op} of two numbers. Doubles with each other: IEEE ({@code -0.0} and {@code 0.0} equal,
     * NaN unordered); ints and uints: by value; a double with an int or uint: {@link Cmp} of the double and the
     * integer rounded to a double.
     */
    private BoolExpr order(Operator op, Val x, Val y) {
        if (x.kind() == Kind.DBL && y.kind() == Kind.DBL) {
            return switch (op) {
                case LESS -> ctx.mkFPLt(fp(x), fp(y));
                case LESS_EQUALS -> ctx.mkFPLEq(fp(x), fp(y));
                case GREATER -> ctx.mkFPGt(fp(x), fp(y));
                default -> ctx.mkFPGEq(fp(x), fp(y));
            };
        }
        Cmp c = compare(x, y);
        return switch (op) {
            case LESS -> c.lt();
            case LESS_EQUALS -> ctx.mkOr(c.lt(), c.eq());
            case GREATER -> ctx.mkNot(ctx.mkOr(c.lt(), c.eq()));
            default -> ctx.mkNot(c.lt());
        };
    }

    /** A three-way comparison: less, equal, else greater. */
    private record Cmp(BoolExpr lt, BoolExpr eq) {}

    /** cel-java's three-way comparison of two numbers of which at most one is a double. */
    private Cmp compare(Val x, Val y) {
        Kind a = x.kind();
        Kind b = y.kind();
        if (a == Kind.DBL || b == Kind.DBL) {
            boolean flip = b == Kind.DBL;
            Val d = flip ? y : x;
            Val i = flip ? x : y;
            Cmp c = compareDoubleInteger(fp(d), toDouble(i));
            // compare(i, d) = -compare(d, i)
            return flip ? new Cmp(ctx.mkNot(ctx.mkOr(c.lt(), c.eq())), c.eq()) : c;
        }
        BitVecExpr u = bv(x);
        BitVecExpr w = bv(y);
        if (a == b) {
            return new Cmp(a == Kind.INT ? ctx.mkBVSLT(u, w) : ctx.mkBVULT(u, w), ctx.mkEq(u, w));
        }
        // an int and a uint, as cel-java's compareIntUint: a negative int, or a uint of at least the largest int
        // (sic: 2^63-1u is above the int 2^63-1), puts the int below; else by value
        boolean flip = a == Kind.UINT;
        BitVecExpr i = flip ? w : u;
        BitVecExpr n = flip ? u : w;
        BoolExpr settled = ctx.mkOr(ctx.mkBVSLT(i, ctx.mkBV(0, 64)), ctx.mkBVUGE(n, ctx.mkBV(Long.MAX_VALUE, 64)));
        BoolExpr below = ctx.mkOr(settled, ctx.mkBVSLT(i, n));
        BoolExpr eq = ctx.mkAnd(ctx.mkNot(settled), ctx.mkEq(i, n));
        return flip ? new Cmp(ctx.mkNot(ctx.mkOr(below, eq)), eq) : new Cmp(below, eq);
    }

    /** An int or uint rounded to the nearest double, as Java's {@code (double) l} and Guava's uint do. */
    private FPExpr toDouble(Val i) {
        return ctx.mkFPToFP(ctx.mkFPRoundNearestTiesToEven(), bv(i), doubleSort(ctx), i.kind() == Kind.INT);
    }

    /**
     * {@code Double.compare(d, e)} where {@code e} is an integer converted to a double (never NaN, never
     * {@code -0.0}): NaN is above everything and {@code -0.0} below {@code 0.0}. cel-java's
     * {@code compareDoubleInt} first settles doubles outside the int range, which this already orders the same.
     */
    private Cmp compareDoubleInteger(FPExpr d, FPExpr e) {
        BoolExpr negativeZero = ctx.mkAnd(ctx.mkFPIsZero(d), ctx.mkFPIsNegative(d));
        BoolExpr lt = ctx.mkOr(ctx.mkFPLt(d, e), ctx.mkAnd(negativeZero, ctx.mkFPIsZero(e)));
        BoolExpr eq = ctx.mkAnd(ctx.mkFPEq(d, e), ctx.mkNot(negativeZero));
        return new Cmp(lt, eq);
    }

    private void bools(String fn, List<Val> a) throws OutsideFragment {
        for (Val v : a) {
            if (v.kind() != Kind.BOOL) {
                throw new OutsideFragment("`" + display(fn) + "` over a value that is not a plain boolean");
            }
        }
    }

    private BoolExpr isTrue(Val v) {
        return ctx.mkAnd(ctx.mkNot(v.error()), (BoolExpr) v.value());
    }

    private BoolExpr isFalse(Val v) {
        return ctx.mkAnd(ctx.mkNot(v.error()), ctx.mkNot((BoolExpr) v.value()));
    }

    private BoolExpr errors(List<Val> a) {
        List<BoolExpr> e = new ArrayList<>();
        for (Val v : a) {
            e.add(v.error());
        }
        return ctx.mkOr(e.toArray(new BoolExpr[0]));
    }

    /**
     * CEL equality of two encoded values: numbers by value (doubles with each other as IEEE {@code ==}, with an
     * integer as {@link #compare}); a decoded argument equals a string only when it is a string.
     */
    private BoolExpr equal(Val x, Val y) throws OutsideFragment {
        if (x.kind() == Kind.DYN || y.kind() == Kind.DYN) {
            Val d = x.kind() == Kind.DYN ? x : y;
            Val o = x.kind() == Kind.DYN ? y : x;
            if (o.kind() != Kind.STR) {
                throw new OutsideFragment("a decoded argument compared with something other than a string");
            }
            return ctx.mkAnd(d.arg().isString(), ctx.mkEq(d.value(), o.value()));
        }
        if (number(x) && number(y)) {
            if (x.kind() == Kind.DBL && y.kind() == Kind.DBL) {
                return ctx.mkFPEq(fp(x), fp(y));
            }
            return compare(x, y).eq();
        }
        if (x.kind() != y.kind() || !(x.kind() == Kind.STR || x.kind() == Kind.BOOL)) {
            throw new OutsideFragment("an equality of values that are not both numbers, strings or booleans");
        }
        return ctx.mkEq(x.value(), y.value());
    }
}
