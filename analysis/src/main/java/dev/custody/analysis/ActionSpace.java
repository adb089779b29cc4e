package dev.custody.analysis;

import com.microsoft.z3.BitVecExpr;
import com.microsoft.z3.BitVecNum;
import com.microsoft.z3.BoolExpr;
import com.microsoft.z3.CharSort;
import com.microsoft.z3.Context;
import com.microsoft.z3.Expr;
import com.microsoft.z3.FPExpr;
import com.microsoft.z3.IntExpr;
import com.microsoft.z3.IntNum;
import com.microsoft.z3.Model;
import com.microsoft.z3.SeqExpr;
import dev.custody.engine.check.ActionReader;
import dev.custody.engine.check.PayloadResult;
import dev.custody.engine.check.PayloadValidator;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.FieldType;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.time.DayOfWeek;
import java.time.Instant;
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
 * {@code resource.decoded_args} may be absent. A number field holds what a payload can: a {@code NUMBER} field a
 * finite IEEE-754 double ({@code FPSort(11, 53)}; JSON carries no NaN or infinity), never {@code -0.0} when the
 * engine reads a payload's {@code -0.0} as {@code 0.0} ({@link #PAYLOADS_KEEP_NEGATIVE_ZERO}), not negative
 * where the schema says so; an {@code INTEGER} field a 64-bit two's-complement bit-vector, not negative where
 * the schema says so, {@code context.hour} 0 to 23. So a model is always an action the engine accepts, and
 * {@link #witness} gives its values exactly (a double bit for bit, a long), never out of range. A claim that no
 * action exists is sound over these domains; a claim that one exists comes with a witness that is replayed
 * before it is reported.
 *
 * <p>The wallet and the workspace are indices: {@code 0..n-1} are the ids the policy sets name, {@code n} is any
 * other wallet (or workspace, or none). Not thread-safe: it belongs to one analysis and its Z3 context.
 */
final class ActionSpace {
    /** A wallet id no policy names, for a witness whose wallet is "any other". */
    static final String OTHER_WALLET = "00000000-0000-4000-8000-00000000a11e";

    /**
     * Whether a payload's {@code -0.0} reaches conditions as {@code -0.0} (cel-java orders it below int
     * {@code 0}), asked of the engine's own readers (an action line read as text, and one given as a map) rather
     * than assumed: when both read it as {@code 0.0}, no field of a valid action holds {@code -0.0}, and the
     * domains exclude it; otherwise they include it, so no claim rests on an assumption the engine does not keep.
     */
    static final boolean PAYLOADS_KEEP_NEGATIVE_ZERO = keepsNegativeZero();

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
                case NUMBER -> ctx.mkConst(name, ConditionEncoder.doubleSort(ctx));
                case INTEGER -> ctx.mkBVConst(name, 64);
                case STRING -> ctx.mkConst(name, ctx.getStringSort());
                case BOOLEAN -> ctx.mkBoolConst(name);
                default -> throw new IllegalStateException(f.path());
            };
            fields.put(f.path(), v);
            if (f.optional()) {
                present.put(f.path(), ctx.mkBoolConst(name + "?"));
            }
            if (f.type() == FieldType.NUMBER) {
                FPExpr d = (FPExpr) v;
                facts.add(ctx.mkNot(ctx.mkFPIsNaN(d)));
                facts.add(ctx.mkNot(ctx.mkFPIsInfinite(d)));
                if (!PAYLOADS_KEEP_NEGATIVE_ZERO) {
                    facts.add(ctx.mkNot(ctx.mkAnd(ctx.mkFPIsZero(d), ctx.mkFPIsNegative(d))));
                }
                if (f.nonNegative()) {
                    // what the validator checks (`d >= 0`, which -0.0 passes)
                    facts.add(ctx.mkFPGEq(d, ctx.mkFPZero(ConditionEncoder.doubleSort(ctx), false)));
                }
            } else if (f.type() == FieldType.INTEGER && f.nonNegative()) {
                facts.add(ctx.mkBVSGE((BitVecExpr) v, ctx.mkBV(0, 64)));
            }
            if (!f.enumValues().isEmpty()) {
                facts.add(oneOf(v, f.enumValues()));
            }
        }
        if (FieldSchema.hasSection(action, Section.CONTEXT)) {
            BitVecExpr hour = (BitVecExpr) fields.get("context.hour");
            facts.add(ctx.mkBVSGE(hour, ctx.mkBV(0, 64)));
            facts.add(ctx.mkBVSLE(hour, ctx.mkBV(23, 64)));
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

    /**
     * The variable of a schema field (not {@code decoded_args}): of sort {@code FPSort(11, 53)} for a
     * {@code NUMBER} field, a 64-bit bit-vector for an {@code INTEGER} one, the string sort for a {@code STRING}
     * one, bool for a {@code BOOLEAN} one.
     */
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

    /**
     * Whether a policy with these wallet ids and workspace targets the model's action: what
     * {@code walletIn(walletIds) && workspaceIs(workspaceId)} gives on the model, computed without the solver.
     */
    boolean applies(Model m, java.util.Set<String> walletIds, String workspaceId) {
        if (!walletIds.isEmpty()) {
            int w = ((IntNum) m.eval(wallet, true)).getInt();
            if (w >= wallets.size() || !walletIds.contains(wallets.get(w))) {
                return false;
            }
        }
        if (workspaceId != null) {
            int s = ((IntNum) m.eval(workspace, true)).getInt();
            return s < workspaces.size() && workspaces.get(s).equals(workspaceId);
        }
        return true;
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
            Object value = value(m, fields.get(f.path()), f.type());
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
                    ? value(m, a.value(), FieldType.STRING) : 0);
        }
        return out;
    }

    private static boolean keepsNegativeZero() {
        String line = "{\"id\":\"z\",\"action\":\"withdrawal.create\",\"wallet_id\":\"" + OTHER_WALLET + "\","
                + "\"at\":\"2026-11-02T12:00:00Z\",\"principal\":{\"role\":\"owner\"},"
                + "\"withdrawal\":{\"amount\":-0.0,\"value_usd\":-0.0,\"asset_symbol\":\"BTC\","
                + "\"asset_is_native\":true,\"destination_address\":\"0xabc\",\"network_code\":\"N\","
                + "\"is_whitelisted\":true,\"address_age_sec\":-0.0},"
                + "\"wallet\":{\"outflow_1h\":-0.0,\"outflow_6h\":0,\"outflow_24h\":0,\"withdrawal_count_1h\":0},"
                + "\"workspace\":{\"outflow_1h\":0,\"outflow_6h\":0,\"outflow_24h\":0,\"withdrawal_count_1h\":0,"
                + "\"network_outflow_1h\":0,\"network_outflow_6h\":0,\"network_outflow_24h\":0,"
                + "\"network_withdrawal_count_1h\":0}}";
        ActionReader.Result text = ActionReader.read(line);
        if (!(text instanceof ActionReader.Read read)) {
            return true;
        }
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("id", "z");
        map.put("action", "withdrawal.create");
        map.put("wallet_id", OTHER_WALLET);
        map.put("at", "2026-11-02T12:00:00Z");
        map.put("principal", Map.of("role", "owner"));
        Map<String, Object> w = new LinkedHashMap<>();
        w.put("amount", -0.0);
        w.put("value_usd", -0.0);
        w.put("asset_symbol", "BTC");
        w.put("asset_is_native", true);
        w.put("destination_address", "0xabc");
        w.put("network_code", "N");
        w.put("is_whitelisted", true);
        w.put("address_age_sec", -0.0);
        map.put("withdrawal", w);
        map.put("wallet", Map.of("outflow_1h", -0.0, "outflow_6h", 0, "outflow_24h", 0, "withdrawal_count_1h", 0));
        map.put("workspace", Map.of("outflow_1h", 0, "outflow_6h", 0, "outflow_24h", 0, "withdrawal_count_1h", 0,
                "network_outflow_1h", 0, "network_outflow_6h", 0, "network_outflow_24h", 0,
                "network_withdrawal_count_1h", 0));
        if (!(ActionReader.fromMap(map) instanceof ActionReader.Read fromMap)) {
            return true;
        }
        for (ActionReader.Read r : List.of(read, fromMap)) {
            PayloadResult p = PayloadValidator.validate(r.action(), Instant.parse("2026-11-02T12:00:00Z"));
            if (!(p instanceof PayloadResult.Valid v)) {
                return true;
            }
            Object outflow = v.payload().sections().get("wallet").get("outflow_1h");
            if (!(outflow instanceof Double d) || Double.doubleToRawLongBits(d) != 0L) {
                return true;
            }
        }
        return false;
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

    private Object value(Model m, Expr<?> variable, FieldType type) {
        Expr<?> v = m.eval(variable, true);
        switch (type) {
            case BOOLEAN:
                return v.isTrue();
            case INTEGER:
                return longValue(v);
            case NUMBER:
                return doubleValue(m, (FPExpr) variable);
            case STRING:
                return unescape(((SeqExpr<?>) v).getString());
            default:
                throw new IllegalStateException(type.toString());
        }
    }

    /** A 64-bit bit-vector value as the long of the same bits. */
    static long longValue(Expr<?> v) {
        return ((BitVecNum) v).getBigInteger().longValue();
    }

    /** The double a model gives a floating-point term, bit for bit (NaN as Java's canonical NaN). */
    double doubleValue(Model m, FPExpr term) {
        Expr<?> bits = m.eval(ctx.mkFPToIEEEBV(term), true);
        if (!(bits instanceof BitVecNum)) {
            // only NaN has no single IEEE bit pattern
            return Double.NaN;
        }
        return Double.longBitsToDouble(longValue(bits));
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
