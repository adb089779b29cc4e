package dev.custody.analysis;

import com.microsoft.z3.BitVecSort;
import com.microsoft.z3.BoolExpr;
import com.microsoft.z3.BoolSort;
import com.microsoft.z3.Context;
import com.microsoft.z3.Expr;
import com.microsoft.z3.FPSort;
import com.microsoft.z3.IntSort;
import com.microsoft.z3.RealSort;
import com.microsoft.z3.SeqSort;
import com.microsoft.z3.Solver;
import com.microsoft.z3.Sort;
import com.microsoft.z3.Status;
import dev.custody.engine.compile.CompiledCondition;
import dev.custody.engine.compile.ConditionResult;
import dev.custody.engine.check.Payload;
import dev.custody.engine.properties.DifferentialHarness;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.FieldType;
import dev.custody.engine.schema.TriggerAction;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The solver's part of the differential harness ({@link DifferentialHarness}): a condition's formulas
 * ({@link ConditionEncoder#encode}: its value and whether it fails) evaluated under an action taken as a model.
 * Every variable of the {@link ActionSpace} is pinned to the action's value: each schema field
 * ({@link ActionSpace#field}), whether an optional one is present ({@link ActionSpace#present}), and each
 * {@code decoded_args} key the action or the generators name ({@link ActionSpace#arg}: whether it is there,
 * whether it is a string, which). The value of a variable is made by the variable's sort (bool, int, real,
 * floating point, bit vector, string), so the part keeps working whatever sorts the encoding chooses; then the
 * formulas are substituted and simplified, and where that leaves a formula that is not a constant, a solver is
 * asked whether the pins force it one way. The formulas' verdict (fails, or true, or false) must be cel-java's.
 * A condition outside the encoding's fragment ({@link OutsideFragment}) is skipped with the reason.
 *
 * <p>Not thread-safe: one Z3 context, renewed every {@value #RENEW_AFTER} conditions to bound its memory.
 */
class Z3Part implements DifferentialHarness.Part, AutoCloseable {
    static final String NAME = "z3";
    private static final int RENEW_AFTER = 400;
    /** The {@code decoded_args} keys the generators use (DifferentialConditions), pinned absent when the action lacks them. */
    private static final List<String> DECODED_KEYS = List.of("to", "value", "spender", "from", "amount");

    private Context ctx;
    private final Map<TriggerAction, ActionSpace> spaces = new EnumMap<>(TriggerAction.class);
    private int encodedConditions;
    private CompiledCondition last;
    private ConditionEncoder.Encoded encoded;
    private String outside;

    @Override
    public String name() {
        return NAME;
    }

    /** The formulas of a condition; planted variants override it. */
    protected ConditionEncoder.Encoded encode(Context ctx, ActionSpace space, CompiledCondition c) throws OutsideFragment {
        return ConditionEncoder.encode(ctx, space, c.checkedAst());
    }

    @Override
    public DifferentialHarness.Verdict check(DifferentialHarness.Pair pair) {
        if (pair.compiled() != last) {
            if (ctx == null || ++encodedConditions % RENEW_AFTER == 0) {
                close();
                ctx = new Context();
            }
            last = pair.compiled();
            ActionSpace space = spaces.computeIfAbsent(pair.action(), a -> new ActionSpace(ctx, a, List.of(), List.of()));
            try {
                encoded = encode(ctx, space, last);
                outside = null;
            } catch (OutsideFragment e) {
                encoded = null;
                outside = e.getMessage();
            } catch (RuntimeException e) {
                // the encoder must not throw on a condition that compiles: a crash of `analyze`
                encoded = null;
                outside = null;
                return DifferentialHarness.Verdict.disagree("the encoder threw " + e, String.valueOf(pair.reference()), null);
            }
        }
        if (encoded == null) {
            return outside == null
                    ? DifferentialHarness.Verdict.disagree("the encoder threw", String.valueOf(pair.reference()), null)
                    : DifferentialHarness.Verdict.skipped("outside the encoding: " + generic(outside));
        }
        ActionSpace space = spaces.get(pair.action());
        String missing = missingRequired(space.action(), pair);
        if (missing != null) {
            return DifferentialHarness.Verdict.skipped("the condition reads a required field the action lacks (the "
                    + "analysis speaks of actions with every required field)");
        }
        List<Expr<?>> from = new ArrayList<>();
        List<Expr<?>> to = new ArrayList<>();
        pin(space, pair.payload(), from, to);
        Expr<?>[] f = from.toArray(new Expr<?>[0]);
        Expr<?>[] t = to.toArray(new Expr<?>[0]);
        Boolean error = evaluate(encoded.error(), f, t);
        Boolean value = evaluate(encoded.value(), f, t);
        if (error == null || (!error && value == null)) {
            return DifferentialHarness.Verdict.disagree("formula not decided by the action (error " + error + ", value "
                    + value + ")", String.valueOf(pair.reference()), null);
        }
        ConditionResult ours = error ? new ConditionResult.Failure("an error", false) : ConditionResult.of(value);
        ConditionResult cel = pair.reference();
        boolean same = cel instanceof ConditionResult.Value v ? !error && v.value() == value : error;
        return same ? DifferentialHarness.Verdict.agree(ours)
                : DifferentialHarness.Verdict.disagree(error ? "fails" : "is " + value, String.valueOf(cel), ours);
    }

    /**
     * A non-optional field the condition names and the action lacks, or null. The analysis speaks of the actions
     * that carry every non-optional field ({@link ActionSpace}); on others a read of such a field fails, which the
     * formulas do not model.
     */
    private static String missingRequired(TriggerAction action, DifferentialHarness.Pair pair) {
        for (FieldSpec f : FieldSchema.fields(action)) {
            if (f.optional() || !pair.condition().contains(f.path())) {
                continue;
            }
            Map<String, Object> section = pair.payload().sections().get(f.section().wireName());
            if (section == null || !section.containsKey(f.name())) {
                return f.path();
            }
        }
        return null;
    }

    /** The reason of a skip without the names of fields and functions in it, so that skips count by kind. */
    private static String generic(String reason) {
        return reason.replaceAll("`[^`]*`", "`…`");
    }

    /** True or false when the pins decide the formula; null when they do not. */
    private Boolean evaluate(BoolExpr formula, Expr<?>[] from, Expr<?>[] to) {
        Expr<?> r = formula.substitute(from, to).simplify();
        if (r.isTrue()) {
            return true;
        }
        if (r.isFalse()) {
            return false;
        }
        // what simplification leaves (auxiliary variables of the encoding): ask whether the pins force it
        Solver s = ctx.mkSolver();
        for (int i = 0; i < from.length; i++) {
            s.add(ctx.mkEq(from[i], to[i]));
        }
        boolean canBeTrue = s.check(formula) == Status.SATISFIABLE;
        boolean canBeFalse = s.check(ctx.mkNot(formula)) == Status.SATISFIABLE;
        return canBeTrue == canBeFalse ? null : canBeTrue;
    }

    /** Every variable of the action space and its value in the payload. */
    private void pin(ActionSpace space, Payload p, List<Expr<?>> from, List<Expr<?>> to) {
        for (FieldSpec f : FieldSchema.fields(space.action())) {
            if (f.type() == FieldType.MAP) {
                continue;
            }
            Map<String, Object> section = p.sections().get(f.section().wireName());
            Object v = section == null ? null : section.get(f.name());
            Expr<?> var = space.field(f.path());
            if (var != null) {
                Expr<?> value = value(var.getSort(), v);
                if (value != null) {
                    from.add(var);
                    to.add(value);
                }
            }
            BoolExpr present = space.present(f.path());
            if (present != null) {
                from.add(present);
                to.add(ctx.mkBool(v != null));
            }
        }
        if (!FieldSchema.field(space.action(), "resource.decoded_args").isPresent()) {
            return;
        }
        Map<String, Object> resource = p.sections().get("resource");
        Object raw = resource == null ? null : resource.get("decoded_args");
        Map<?, ?> args = raw instanceof Map<?, ?> m ? m : Map.of();
        TreeSet<String> keys = new TreeSet<>(DECODED_KEYS);
        args.keySet().forEach(k -> keys.add(String.valueOf(k)));
        for (String k : keys) {
            ActionSpace.Arg a = space.arg(k);
            Object v = args.get(k);
            for (RecordComponent c : ActionSpace.Arg.class.getRecordComponents()) {
                Expr<?> var;
                try {
                    var = (Expr<?>) c.getAccessor().invoke(a);
                } catch (ReflectiveOperationException | ClassCastException e) {
                    continue;
                }
                Expr<?> value = switch (c.getName()) {
                    case "has" -> ctx.mkBool(args.containsKey(k));
                    case "isString" -> ctx.mkBool(v instanceof String);
                    case "value" -> v instanceof String s ? value(var.getSort(), s) : value(var.getSort(), "");
                    // an encoding that adds variables of its own (a number's value, whether it is one) gets them
                    // pinned by their sort when the name says what they are; others are left to the solver
                    case "isNumber", "isDouble" -> ctx.mkBool(c.getName().equals("isNumber") ? v instanceof Number
                            : v instanceof Double);
                    case "isInt" -> ctx.mkBool(v instanceof Long);
                    case "number", "num", "intValue", "doubleValue" -> v instanceof Number n ? value(var.getSort(), n) : null;
                    default -> null;
                };
                if (value != null) {
                    from.add(var);
                    to.add(value);
                }
            }
        }
    }

    /** A value of {@code sort} for a payload value (a default of the sort for an absent one); null when it has none. */
    private Expr<?> value(Sort sort, Object v) {
        if (sort instanceof BoolSort) {
            return ctx.mkBool(Boolean.TRUE.equals(v));
        }
        if (sort instanceof IntSort) {
            return ctx.mkInt(exact(v).toBigInteger().toString());
        }
        if (sort instanceof RealSort) {
            return ctx.mkReal(exact(v).toPlainString());
        }
        if (sort instanceof FPSort fp) {
            return ctx.mkFP(v instanceof Number n ? n.doubleValue() : 0.0, fp);
        }
        if (sort instanceof BitVecSort bv) {
            // two's complement: a negative value as the unsigned number of the same bits
            BigInteger n = exact(v).toBigInteger();
            return ctx.mkBV((n.signum() < 0 ? n.add(BigInteger.ONE.shiftLeft(bv.getSize())) : n).toString(), bv.getSize());
        }
        if (sort instanceof SeqSort<?>) {
            return ctx.mkString(escape(v instanceof String s ? s : ""));
        }
        return null;
    }

    /** A number's exact value (0 for an absent one). */
    private static BigDecimal exact(Object v) {
        if (v instanceof Long l) {
            return BigDecimal.valueOf(l);
        }
        if (v instanceof Double d && Double.isFinite(d)) {
            return new BigDecimal(d);
        }
        if (v instanceof BigInteger b) {
            return new BigDecimal(b);
        }
        if (v instanceof Number n) {
            return new BigDecimal(n.toString());
        }
        return BigDecimal.ZERO;
    }

    /** A string as Z3 reads a string literal: code points outside printable ASCII (and the backslash) as escapes. */
    static String escape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        s.codePoints().forEach(c -> {
            if (c < 0x20 || c > 0x7e || c == '\\') {
                out.append("\\u{").append(Integer.toHexString(c)).append('}');
            } else {
                out.appendCodePoint(c);
            }
        });
        return out.toString();
    }

    @Override
    public void close() {
        spaces.clear();
        last = null;
        encoded = null;
        if (ctx != null) {
            ctx.close();
            ctx = null;
        }
    }
}
