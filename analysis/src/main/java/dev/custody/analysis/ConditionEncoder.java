package dev.custody.analysis;

import com.microsoft.z3.ArithExpr;
import com.microsoft.z3.BoolExpr;
import com.microsoft.z3.CharSort;
import com.microsoft.z3.Context;
import com.microsoft.z3.Expr;
import com.microsoft.z3.IntExpr;
import com.microsoft.z3.SeqExpr;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.FieldType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * Translates a checked CEL condition into a pair of solver formulas: {@code value} (what it evaluates to when it
 * does not fail) and {@code error} (whether it fails at run time), following CEL's semantics as the engine runs
 * it (docs/design.md §3): {@code &&}/{@code ||} absorb an error on either side when the other side decides,
 * {@code !} and {@code ?:} pass errors on, a read of an absent optional field or {@code decoded_args} key fails,
 * numbers compare by value across int and double.
 *
 * <p>The fragment: bool, int, uint and double constants and fields; string constants (printable ASCII) and
 * fields; {@code ==}, {@code !=} on numbers, strings and bools; {@code <}, {@code <=}, {@code >}, {@code >=} on
 * numbers; {@code in} over a list literal; {@code startsWith}, {@code endsWith}, {@code contains} on strings;
 * {@code has()} on optional fields and on {@code decoded_args} keys; reads of {@code decoded_args} keys compared
 * with strings; {@code &&}, {@code ||}, {@code !}, {@code ?:}. Anything else throws {@link OutsideFragment}.
 *
 * <p>Not thread-safe (one Z3 context).
 */
final class ConditionEncoder {
    private final Context ctx;
    private final ActionSpace space;
    private final CelAbstractSyntaxTree ast;

    /** NUM is a double, INT an int or uint (both as reals: CEL compares numbers by value). */
    private enum Kind { BOOL, NUM, INT, STR, DYN, MAP, LIST }

    private static final java.math.BigInteger MIN = java.math.BigInteger.valueOf(Long.MIN_VALUE);
    private static final java.math.BigInteger MAX = java.math.BigInteger.valueOf(Long.MAX_VALUE);

    /** An encoded sub-expression: its value (sort by kind), whether it fails, and for a list its elements. */
    private record Val(Kind kind, Expr<?> value, BoolExpr error, ActionSpace.Arg arg, List<Val> elements) {
        static Val of(Kind kind, Expr<?> value, BoolExpr error) {
            return new Val(kind, value, error, null, List.of());
        }
    }

    /** The two formulas of a condition. */
    record Encoded(BoolExpr value, BoolExpr error) {}

    private ConditionEncoder(Context ctx, ActionSpace space, CelAbstractSyntaxTree ast) {
        this.ctx = ctx;
        this.space = space;
        this.ast = ast;
    }

    static Encoded encode(Context ctx, ActionSpace space, CelAbstractSyntaxTree ast) throws OutsideFragment {
        Val v = new ConditionEncoder(ctx, space, ast).enc(ast.getExpr());
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
            default -> throw new OutsideFragment("a " + e.getKind().name().toLowerCase(java.util.Locale.ROOT)
                    + " expression");
        };
    }

    private Val constant(CelConstant c) throws OutsideFragment {
        BoolExpr ok = ctx.mkFalse();
        return switch (c.getKind()) {
            case BOOLEAN_VALUE -> Val.of(Kind.BOOL, ctx.mkBool(c.booleanValue()), ok);
            case INT64_VALUE -> Val.of(Kind.INT, ctx.mkReal(Long.toString(c.int64Value())), ok);
            case UINT64_VALUE -> Val.of(Kind.INT, ctx.mkReal(c.uint64Value().toString()), ok);
            case DOUBLE_VALUE -> {
                double d = c.doubleValue();
                if (!Double.isFinite(d)) {
                    throw new OutsideFragment("a non-finite double constant");
                }
                yield Val.of(Kind.NUM, ctx.mkReal(new BigDecimal(d).toPlainString()), ok);
            }
            case STRING_VALUE -> Val.of(Kind.STR, string(c.stringValue()), ok);
            default -> throw new OutsideFragment("a constant of kind " + c.getKind().name().toLowerCase(
                    java.util.Locale.ROOT));
        };
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
                case NUMBER -> Val.of(Kind.NUM, v, error);
                case INTEGER -> Val.of(Kind.INT, ctx.mkInt2Real((IntExpr) v), error);
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
        List<CelExpr> raw = new ArrayList<>();
        e.call().target().ifPresent(raw::add);
        raw.addAll(e.call().args());
        if (fn.equals("_[_]") && raw.size() == 2) {
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
        switch (fn) {
            case "_&&_": {
                bools(fn, a);
                BoolExpr f0 = isFalse(a.get(0));
                BoolExpr f1 = isFalse(a.get(1));
                BoolExpr decided = ctx.mkOr(f0, f1);
                BoolExpr error = ctx.mkAnd(ctx.mkNot(decided), ctx.mkOr(a.get(0).error(), a.get(1).error()));
                return Val.of(Kind.BOOL, ctx.mkAnd(isTrue(a.get(0)), isTrue(a.get(1))), error);
            }
            case "_||_": {
                bools(fn, a);
                BoolExpr decided = ctx.mkOr(isTrue(a.get(0)), isTrue(a.get(1)));
                BoolExpr error = ctx.mkAnd(ctx.mkNot(decided), ctx.mkOr(a.get(0).error(), a.get(1).error()));
                return Val.of(Kind.BOOL, decided, error);
            }
            case "!_": {
                bools(fn, a);
                return Val.of(Kind.BOOL, ctx.mkNot((BoolExpr) a.get(0).value()), a.get(0).error());
            }
            case "_?_:_": {
                Val c = a.get(0);
                Val t = a.get(1);
                Val f = a.get(2);
                if (c.kind() != Kind.BOOL || t.kind() != f.kind()
                        || !(t.kind() == Kind.BOOL || number(t) || t.kind() == Kind.STR)) {
                    throw new OutsideFragment("a `?:` whose branches are not both booleans, numbers or strings");
                }
                BoolExpr cv = (BoolExpr) c.value();
                BoolExpr error = ctx.mkOr(c.error(), (BoolExpr) ctx.mkITE(cv, t.error(), f.error()));
                return Val.of(t.kind(), ctx.mkITE(cv, t.value(), f.value()), error);
            }
            case "_==_":
                return Val.of(Kind.BOOL, equal(a.get(0), a.get(1)), errors(a));
            case "_!=_":
                return Val.of(Kind.BOOL, ctx.mkNot(equal(a.get(0), a.get(1))), errors(a));
            case "_<_", "_<=_", "_>_", "_>=_": {
                if (!number(a.get(0)) || !number(a.get(1))) {
                    throw new OutsideFragment("an ordering (`" + fn.replace("_", "") + "`) of values that are not "
                            + "both numbers");
                }
                ArithExpr<?> x = (ArithExpr<?>) a.get(0).value();
                ArithExpr<?> y = (ArithExpr<?>) a.get(1).value();
                BoolExpr v = switch (fn) {
                    case "_<_" -> ctx.mkLt(x, y);
                    case "_<=_" -> ctx.mkLe(x, y);
                    case "_>_" -> ctx.mkGt(x, y);
                    default -> ctx.mkGe(x, y);
                };
                return Val.of(Kind.BOOL, v, errors(a));
            }
            case "_+_", "_-_", "_*_": {
                Val x = a.get(0);
                Val y = a.get(1);
                if (!number(x) || x.kind() != y.kind()) {
                    throw new OutsideFragment("arithmetic (`" + display(fn) + "`) on values that are not both ints "
                            + "or both doubles");
                }
                ArithExpr<?> u = (ArithExpr<?>) x.value();
                ArithExpr<?> w = (ArithExpr<?>) y.value();
                @SuppressWarnings("unchecked")
                ArithExpr<?> v = switch (fn) {
                    case "_+_" -> ctx.mkAdd((ArithExpr) u, (ArithExpr) w);
                    case "_-_" -> ctx.mkSub((ArithExpr) u, (ArithExpr) w);
                    default -> ctx.mkMul((ArithExpr) u, (ArithExpr) w);
                };
                return Val.of(x.kind(), v, overflow(x.kind(), v, errors(a)));
            }
            case "-_": {
                Val x = a.get(0);
                if (!number(x)) {
                    throw new OutsideFragment("`-` on a value that is not a number");
                }
                @SuppressWarnings("unchecked")
                ArithExpr<?> v = ctx.mkUnaryMinus((ArithExpr) x.value());
                return Val.of(x.kind(), v, overflow(x.kind(), v, x.error()));
            }
            case "@in": {
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
            case "startsWith", "endsWith", "contains": {
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
            default:
                throw new OutsideFragment("function `" + display(fn) + "`");
        }
    }

    private static String display(String fn) {
        return fn.startsWith("_") || fn.endsWith("_") ? fn.replace("_", "").replace("[", "[]").replace("]]", "]") : fn;
    }

    private static boolean number(Val v) {
        return v.kind() == Kind.NUM || v.kind() == Kind.INT;
    }

    /**
     * Int arithmetic fails outside the 64-bit range (CEL's overflow error). Double arithmetic is taken over the
     * reals: IEEE rounding is not modelled (a witness is replayed before it is reported).
     */
    @SuppressWarnings("unchecked")
    private BoolExpr overflow(Kind kind, ArithExpr<?> v, BoolExpr error) {
        if (kind != Kind.INT) {
            return error;
        }
        BoolExpr out = ctx.mkOr(ctx.mkLt((ArithExpr) v, ctx.mkReal(MIN.toString())),
                ctx.mkGt((ArithExpr) v, ctx.mkReal(MAX.toString())));
        return ctx.mkOr(error, out);
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

    /** CEL equality of two encoded values; a decoded argument equals a string only when it is a string. */
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
            return ctx.mkEq(x.value(), y.value());
        }
        if (x.kind() != y.kind() || !(x.kind() == Kind.STR || x.kind() == Kind.BOOL)) {
            throw new OutsideFragment("an equality of values that are not both numbers, strings or booleans");
        }
        return ctx.mkEq(x.value(), y.value());
    }
}
