package dev.custody.analysis;

import com.microsoft.z3.ArithExpr;
import com.microsoft.z3.BoolExpr;
import com.microsoft.z3.CharSort;
import com.microsoft.z3.Context;
import com.microsoft.z3.Expr;
import com.microsoft.z3.IntExpr;
import com.microsoft.z3.IntNum;
import com.microsoft.z3.Model;
import com.microsoft.z3.RatNum;
import com.microsoft.z3.SeqExpr;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.FieldType;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.TextStyle;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The solver variables of every valid action of one trigger action, with the schema's facts, and the way back
 * from a model to an action in the replay format (docs/design.md §4.2).
 *
 * <p>A valid action here is one the evaluator accepts and that carries every non-optional field of its
 * sections; optional fields ({@code principal.user_email}, {@code resource.method_name}) and the keys of
 * {@code resource.decoded_args} may be absent. Numbers range over the reals (a superset of the doubles the
 * payload holds; every constant is encoded with its exact binary value), so a claim that no action exists is
 * sound; a claim that one exists comes with a witness that is replayed before it is reported.
 *
 * <p>The wallet and the workspace are indices: {@code 0..n-1} are the ids the policy sets name, {@code n} is any
 * other wallet (or workspace, or none). Not thread-safe: it belongs to one analysis and its Z3 context.
 */
final class ActionSpace {
    /** A wallet id no policy names, for a witness whose wallet is "any other". */
    static final String OTHER_WALLET = "00000000-0000-4000-8000-00000000a11e";

    private final Context ctx;
    private final TriggerAction action;
    private final List<String> wallets;
    private final List<String> workspaces;
    private final Map<String, Expr<?>> fields = new LinkedHashMap<>();
    private final Map<String, BoolExpr> present = new LinkedHashMap<>();
    private final Map<String, Arg> args = new TreeMap<>();
    private final IntExpr wallet;
    private final IntExpr workspace;
    private final List<BoolExpr> facts = new ArrayList<>();

    /** One key of {@code resource.decoded_args}: whether it is there, whether its value is a string, which. */
    record Arg(BoolExpr has, BoolExpr isString, SeqExpr<CharSort> value) {}

    ActionSpace(Context ctx, TriggerAction action, List<String> wallets, List<String> workspaces) {
        this.ctx = ctx;
        this.action = action;
        this.wallets = List.copyOf(wallets);
        this.workspaces = List.copyOf(workspaces);
        String p = action.wireName() + "|";
        wallet = ctx.mkIntConst(p + "wallet");
        workspace = ctx.mkIntConst(p + "workspace");
        facts.add(ctx.mkGe(wallet, ctx.mkInt(0)));
        facts.add(ctx.mkLe(wallet, ctx.mkInt(wallets.size())));
        facts.add(ctx.mkGe(workspace, ctx.mkInt(0)));
        facts.add(ctx.mkLe(workspace, ctx.mkInt(workspaces.size())));
        for (FieldSpec f : FieldSchema.fields(action)) {
            if (f.type() == FieldType.MAP) {
                continue;
            }
            String name = p + f.path();
            Expr<?> v = switch (f.type()) {
                case NUMBER -> ctx.mkRealConst(name);
                case INTEGER -> ctx.mkIntConst(name);
                case STRING -> ctx.mkConst(name, ctx.getStringSort());
                case BOOLEAN -> ctx.mkBoolConst(name);
                default -> throw new IllegalStateException(f.path());
            };
            fields.put(f.path(), v);
            if (f.optional()) {
                present.put(f.path(), ctx.mkBoolConst(name + "?"));
            }
            if (f.nonNegative()) {
                facts.add(ctx.mkGe((ArithExpr<?>) v, f.type() == FieldType.INTEGER ? ctx.mkInt(0) : ctx.mkReal(0)));
            }
            if (!f.enumValues().isEmpty()) {
                facts.add(oneOf(v, f.enumValues()));
            }
        }
        if (FieldSchema.hasSection(action, Section.CONTEXT)) {
            IntExpr hour = (IntExpr) fields.get("context.hour");
            facts.add(ctx.mkGe(hour, ctx.mkInt(0)));
            facts.add(ctx.mkLe(hour, ctx.mkInt(23)));
            facts.add(oneOf(fields.get("context.day_of_week"), FieldSchema.DAYS_OF_WEEK));
        }
    }

    private BoolExpr oneOf(Expr<?> v, List<String> values) {
        List<BoolExpr> eq = new ArrayList<>();
        for (String s : values) {
            eq.add(ctx.mkEq(v, ctx.mkString(s)));
        }
        return ctx.mkOr(eq.toArray(new BoolExpr[0]));
    }

    TriggerAction action() {
        return action;
    }

    /** The variable of a schema field (not {@code decoded_args}). */
    Expr<?> field(String path) {
        return fields.get(path);
    }

    /** Whether an optional field is present; null for a field that is always there. */
    BoolExpr present(String path) {
        return present.get(path);
    }

    /** The variables of a {@code decoded_args} key, made on first use. */
    Arg arg(String key) {
        return args.computeIfAbsent(key, k -> {
            String n = action.wireName() + "|decoded_args[" + k + "]";
            return new Arg(ctx.mkBoolConst(n + "?"), ctx.mkBoolConst(n + ":string"),
                    (SeqExpr<CharSort>) ctx.mkConst(n, ctx.getStringSort()));
        });
    }

    /** True when the action's wallet is one of {@code ids} (lowercase); true for an empty set. */
    BoolExpr walletIn(java.util.Set<String> ids) {
        if (ids.isEmpty()) {
            return ctx.mkTrue();
        }
        List<BoolExpr> or = new ArrayList<>();
        for (String id : ids) {
            int i = wallets.indexOf(id);
            if (i >= 0) {
                or.add(ctx.mkEq(wallet, ctx.mkInt(i)));
            }
        }
        return ctx.mkOr(or.toArray(new BoolExpr[0]));
    }

    /** True when the action's workspace is {@code id} (lowercase); true for null (a policy of every workspace). */
    BoolExpr workspaceIs(String id) {
        if (id == null) {
            return ctx.mkTrue();
        }
        return ctx.mkEq(workspace, ctx.mkInt(workspaces.indexOf(id)));
    }

    BoolExpr facts() {
        return ctx.mkAnd(facts.toArray(new BoolExpr[0]));
    }

    /**
     * The action a model describes, as a replay record: every field of the action's sections, the optional
     * ones and the {@code decoded_args} keys when the model has them present, {@code at} on a day and hour
     * that give the model's {@code context} (the context section is never sent).
     */
    Map<String, Object> witness(Model m, String id) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", id);
        out.put("action", action.wireName());
        int w = ((IntNum) m.eval(wallet, true)).getInt();
        out.put("wallet_id", w < wallets.size() ? wallets.get(w) : OTHER_WALLET);
        int s = ((IntNum) m.eval(workspace, true)).getInt();
        if (s < workspaces.size()) {
            out.put("workspace_id", workspaces.get(s));
        }
        int hour = 12;
        String day = "Monday";
        Map<String, Map<String, Object>> sections = new LinkedHashMap<>();
        for (Section sec : FieldSchema.sections(action)) {
            if (sec != Section.CONTEXT) {
                sections.put(sec.wireName(), new LinkedHashMap<>());
            }
        }
        for (FieldSpec f : FieldSchema.fields(action)) {
            if (f.type() == FieldType.MAP) {
                sections.get(f.section().wireName()).put(f.name(), decodedArgs(m));
                continue;
            }
            BoolExpr p = present.get(f.path());
            if (p != null && !m.eval(p, true).isTrue()) {
                continue;
            }
            Object value = value(m.eval(fields.get(f.path()), true), f.type());
            if (f.path().equals("context.hour")) {
                hour = ((Number) value).intValue();
            } else if (f.path().equals("context.day_of_week")) {
                day = (String) value;
            } else {
                sections.get(f.section().wireName()).put(f.name(), value);
            }
        }
        out.put("at", instant(day, hour));
        out.putAll(sections);
        return out;
    }

    private Map<String, Object> decodedArgs(Model m) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, Arg> e : args.entrySet()) {
            Arg a = e.getValue();
            if (!m.eval(a.has(), true).isTrue()) {
                continue;
            }
            out.put(e.getKey(), m.eval(a.isString(), true).isTrue()
                    ? value(m.eval(a.value(), true), FieldType.STRING) : 0);
        }
        return out;
    }

    /** A UTC instant in the week of 2026-11-02 (a Monday) on {@code day} at {@code hour}:00. */
    static String instant(String day, int hour) {
        LocalDate monday = LocalDate.of(2026, 11, 2);
        for (DayOfWeek d : DayOfWeek.values()) {
            if (d.getDisplayName(TextStyle.FULL, Locale.ENGLISH).equals(day)) {
                return monday.plusDays(d.getValue() - 1L).atTime(hour, 0).toInstant(ZoneOffset.UTC).toString();
            }
        }
        throw new IllegalArgumentException(day);
    }

    private static Object value(Expr<?> v, FieldType type) {
        switch (type) {
            case BOOLEAN:
                return v.isTrue();
            case INTEGER:
                return ((IntNum) v).getBigInteger().longValueExact();
            case NUMBER: {
                BigDecimal d = v instanceof IntNum i ? new BigDecimal(i.getBigInteger()) : rational((RatNum) v);
                return d.doubleValue();
            }
            case STRING:
                return unescape(((SeqExpr<?>) v).getString());
            default:
                throw new IllegalStateException(type.toString());
        }
    }

    private static BigDecimal rational(RatNum r) {
        BigInteger n = r.getBigIntNumerator();
        BigInteger d = r.getBigIntDenominator();
        return new BigDecimal(n).divide(new BigDecimal(d), MathContext.DECIMAL64);
    }

    /** Z3 prints characters outside printable ASCII as {@code \\u{hex}}. */
    static String unescape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        int i = 0;
        while (i < s.length()) {
            if (s.startsWith("\\u{", i)) {
                int end = s.indexOf('}', i);
                out.appendCodePoint(Integer.parseInt(s.substring(i + 3, end), 16));
                i = end + 1;
            } else {
                out.append(s.charAt(i++));
            }
        }
        return out.toString();
    }
}
