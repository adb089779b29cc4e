package dev.custody.analysis;

import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import dev.custody.engine.check.Payload;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.FieldType;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * Concrete actions tried before the solver: a query "is there a valid action on which these rules are (not)
 * true, fail, or differ" that some concrete action satisfies is answered "yes" with that action, and the solver
 * is not asked. The action is found by a short greedy search that changes one field at a time to values taken
 * from the rules' own constants and their neighbours (and wallets and workspaces the policies name), and every
 * action it looks at is read and validated by the engine's own reader and validator and decided by the engine's
 * compiled conditions. So a "yes" given here is one the exact encoding gives too (the encoding follows the
 * engine, which the differential harness holds it to), and it never claims anything: it can only spare a query
 * whose answer is "yes", and it proves no "no" (when the search fails, the solver is asked as before).
 *
 * <p>The actions stay inside the domains of {@link ActionSpace}: finite doubles, never {@code -0.0}, not negative
 * where the schema says so, enum fields on their values, {@code context.hour} 0 to 23; a witness the engine does
 * not accept is dropped. A rule outside the fragment has free variables in the encoding, so a goal that it be not
 * true or not fail is met by every action (the solver would set them so), and a goal that needs it true, failing
 * or compared is never searched. Not thread-safe: one per analysing thread and trigger action.
 */
final class Probe {
    /** What one literal of a goal asks of a rule on the action. */
    enum Kind {
        /** The rule's policy targets the action and the condition is true. */
        TRUE,
        /** Not {@link #TRUE}. */
        NOT_TRUE,
        /** The rule's policy targets the action. */
        APPLIES,
        /** The rule's policy targets the action and the condition fails. */
        FAILS,
        /** Not {@link #FAILS}. */
        NOT_FAILS,
        /** The two conditions give different results (true, false or a failure), targeting aside. */
        DIFFER
    }

    /** One conjunct of a goal; {@code other} only for {@link Kind#DIFFER}. */
    record Lit(Kind kind, AnalyzedRule rule, AnalyzedRule other) {
        static Lit of(Kind kind, AnalyzedRule rule) {
            return new Lit(kind, rule, null);
        }
    }

    /** How many field changes one search may make. */
    private static final int STEPS = 12;
    /** How many of the recent actions a search starts from besides the ones it is given. */
    private static final int RECENT = 8;
    private static final Object ABSENT = new Object();
    private static final String WALLET = "wallet_id";
    private static final String WORKSPACE = "workspace_id";
    private static final String HOUR = "context.hour";
    private static final String DAY = "context.day_of_week";

    private final TriggerAction action;
    private final List<String> wallets;
    private final List<String> workspaces;
    private final Predicate<AnalyzedRule> opaque;
    private final java.util.function.Function<AnalyzedRule, FieldBounds> bounds;
    private final Map<AnalyzedRule, Reads> reads = new IdentityHashMap<>();
    private final Map<AnalyzedRule, Point> trueOf = new IdentityHashMap<>();
    private final List<Point> recent = new ArrayList<>();
    private int searches;
    private int found;

    /**
     * @param action the trigger action of every rule asked about
     * @param wallets the wallet ids the policies name (lowercase)
     * @param workspaces the workspace ids the policies name (lowercase)
     * @param opaque whether a rule is outside the fragment (free variables in the encoding)
     */
    Probe(TriggerAction action, List<String> wallets, List<String> workspaces, Predicate<AnalyzedRule> opaque) {
        this(action, wallets, workspaces, opaque, null);
    }

    /**
     * @param bounds each rule's {@link FieldBounds}, which guide the {@link #repair} move; null for none
     */
    Probe(TriggerAction action, List<String> wallets, List<String> workspaces, Predicate<AnalyzedRule> opaque,
            java.util.function.Function<AnalyzedRule, FieldBounds> bounds) {
        this.action = action;
        this.wallets = List.copyOf(wallets);
        this.workspaces = List.copyOf(workspaces);
        this.opaque = opaque;
        this.bounds = bounds;
    }

    /** A valid action, with what the engine's compiled conditions give on it (asked on first use). */
    final class Point {
        final Map<String, Object> witness;
        private final Payload payload;
        private final Map<AnalyzedRule, Optional<Boolean>> values = new IdentityHashMap<>();

        private Point(Map<String, Object> witness, Payload payload) {
            this.witness = witness;
            this.payload = payload;
        }

        /** The condition's result, targeting aside: TRUE, FALSE, or empty when it fails. */
        Optional<Boolean> value(AnalyzedRule r) {
            Optional<Boolean> v = values.get(r);
            if (v == null) {
                v = Replay.value(r, payload);
                values.put(r, v);
                if (v.orElse(false) && applies(r)) {
                    trueOf.putIfAbsent(r, this);
                }
            }
            return v;
        }

        /** Whether the rule's policy targets the action's wallet and workspace. */
        boolean applies(AnalyzedRule r) {
            return Replay.applies(r, witness);
        }

        boolean isTrue(AnalyzedRule r) {
            return applies(r) && value(r).orElse(false);
        }

        boolean fails(AnalyzedRule r) {
            return applies(r) && value(r).isEmpty();
        }

        boolean holds(Lit l) {
            return switch (l.kind()) {
                case TRUE -> isTrue(l.rule());
                case NOT_TRUE -> opaque.test(l.rule()) || !isTrue(l.rule());
                case APPLIES -> applies(l.rule());
                case FAILS -> fails(l.rule());
                case NOT_FAILS -> opaque.test(l.rule()) || !fails(l.rule());
                case DIFFER -> !value(l.rule()).equals(value(l.other()));
            };
        }

        private boolean all(List<Lit> goal) {
            for (Lit l : goal) {
                if (!holds(l)) {
                    return false;
                }
            }
            return true;
        }

        /** How many literals fail, counting no further than {@code cap}. */
        private int violated(List<Lit> goal, int cap) {
            int n = 0;
            for (Lit l : goal) {
                if (!holds(l) && ++n >= cap) {
                    return n;
                }
            }
            return n;
        }
    }

    /**
     * A wallet and workspace (each one the policies name, or any other) on which {@code r}'s policy targets the
     * action and {@code s}'s does not, as {@code [wallet index, workspace index]} in the indices of
     * {@link ActionSpace}; null when there is none. Every pair is tried.
     */
    int[] appliesWithout(AnalyzedRule r, AnalyzedRule s) {
        for (int w = 0; w <= wallets.size(); w++) {
            String wallet = w < wallets.size() ? wallets.get(w) : ActionSpace.OTHER_WALLET;
            for (int k = 0; k <= workspaces.size(); k++) {
                String workspace = k < workspaces.size() ? workspaces.get(k) : null;
                if (r.targets(wallet, workspace) && !s.targets(wallet, workspace)) {
                    return new int[] {w, k};
                }
            }
        }
        return null;
    }

    /** The action of a witness (a solver's model or a replay record) as a point; null when the engine refuses it. */
    Point point(Map<String, Object> witness) {
        return Replay.payload(witness).map(p -> new Point(witness, p)).orElse(null);
    }

    /** Keeps a point as a start for later searches. */
    void remember(Point p) {
        if (p == null) {
            return;
        }
        recent.add(p);
        if (recent.size() > RECENT) {
            recent.remove(0);
        }
    }

    /** An action on which the rule is true that a search or a query has met, or null. */
    Point trueOf(AnalyzedRule r) {
        return trueOf.get(r);
    }

    /** How many searches were made, and how many found an action. */
    int searches() {
        return searches;
    }

    int found() {
        return found;
    }

    /**
     * An action on which every literal holds, searched from {@code starts} and the recent points; null when none
     * was found (which proves nothing).
     */
    Point find(List<Lit> goal, List<Point> starts) {
        return find(goal, starts, true);
    }

    /**
     * An action every literal holds on, searched from {@link #zero()} alone, with no move that depends on what
     * this probe met before: the same goal gives the same action whichever thread asks and whatever it asked
     * before (what a reported witness starts from); null when none was found.
     */
    Point findCanonical(List<Lit> goal) {
        Point z = zero();
        return z == null ? null : find(goal, List.of(z), false);
    }

    /**
     * The plainest action: the first wallet and workspace of none the policies name, Monday 2026-11-02 00:00
     * UTC, every number 0, every string empty (an enum field its first value), every boolean false, optional
     * fields and {@code decoded_args} keys absent.
     */
    Point zero() {
        Map<String, Object> w = new LinkedHashMap<>();
        w.put("id", "canonical");
        w.put("action", action.wireName());
        w.put(WALLET, ActionSpace.OTHER_WALLET);
        w.put("at", ActionSpace.instant("Monday", 0));
        for (dev.custody.engine.schema.Section sec : FieldSchema.sections(action)) {
            if (sec != dev.custody.engine.schema.Section.CONTEXT) {
                w.put(sec.wireName(), new LinkedHashMap<String, Object>());
            }
        }
        for (FieldSpec f : FieldSchema.fields(action)) {
            if (f.section() == dev.custody.engine.schema.Section.CONTEXT || f.optional()) {
                continue;
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> sec = (Map<String, Object>) w.get(f.section().wireName());
            Object v = switch (f.type()) {
                case NUMBER -> 0.0;
                case INTEGER -> 0L;
                case STRING -> f.enumValues().isEmpty() ? "" : f.enumValues().get(0);
                case BOOLEAN -> false;
                case MAP -> new LinkedHashMap<String, Object>();
                default -> null;
            };
            if (v != null) {
                sec.put(f.name(), v);
            }
        }
        return point(w);
    }

    private Point find(List<Lit> goal, List<Point> starts, boolean history) {
        for (Lit l : goal) {
            if (opaque.test(l.rule()) && l.kind() != Kind.NOT_TRUE && l.kind() != Kind.NOT_FAILS
                    || l.other() != null && opaque.test(l.other())) {
                return null;
            }
        }
        searches++;
        Set<Point> seen = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        List<Point> from = new ArrayList<>();
        for (Point p : starts) {
            if (p != null && seen.add(p)) {
                from.add(p);
            }
        }
        for (int i = recent.size() - 1; history && i >= 0; i--) {
            if (seen.add(recent.get(i))) {
                from.add(recent.get(i));
            }
        }
        for (Point p : from) {
            if (p.all(goal)) {
                found++;
                return p;
            }
        }
        // greedy descent from the start that violates fewest literals
        Point cur = null;
        int cost = Integer.MAX_VALUE;
        for (Point p : from) {
            int c = p.violated(goal, cost);
            if (c < cost) {
                cost = c;
                cur = p;
            }
        }
        if (cur == null) {
            return null;
        }
        for (int step = 0; step < STEPS && cost > 0; step++) {
            Point best = null;
            int bestCost = cost;
            List<AnalyzedRule> wanted = new ArrayList<>();
            for (Lit l : goal) {
                if (l.kind() == Kind.TRUE && wanted.size() < 4) {
                    wanted.add(l.rule());
                }
            }
            for (int round = 0; round < 4 && best == null; round++) {
            for (Lit target : goal) {
                if (cur.holds(target)) {
                    continue;
                }
                List<Point> moves = switch (round) {
                    case 0 -> moves(cur, target, wanted, history);
                    case 1 -> combos(cur, target, wanted);
                    case 2 -> twoSteps(cur, goal, target, wanted, history);
                    default -> plateau(cur, goal, target, wanted, history, cost);
                };
                for (Point next : moves) {
                    if (!next.holds(target)) {
                        continue;
                    }
                    int c = next.violated(goal, bestCost);
                    if (c < bestCost) {
                        bestCost = c;
                        best = next;
                        if (c == 0) {
                            break;
                        }
                    }
                }
                if (best != null) {
                    break; // the first violated literal that some move meets without losing ground
                }
            }
            }
            if (best == null) {
                return null;
            }
            cur = best;
            cost = bestCost;
        }
        if (cost == 0) {
            found++;
            if (history) {
                remember(cur);
            }
            return cur;
        }
        return null;
    }

    /**
     * Points two changes away from {@code p}: the {@link #repair} of {@code target}'s rule (with the other rules
     * the goal wants true), then each one-change move that meets a literal the repair left unmet. For goals whose
     * rules share a field that must move together with one only one of them reads (a sum of two fields against
     * a ceiling on one of them).
     */
    private List<Point> twoSteps(Point p, List<Lit> goal, Lit target, List<AnalyzedRule> wanted, boolean history) {
        if (target.kind() != Kind.TRUE) {
            return List.of();
        }
        Point q = repair(p, with(wanted, target.rule()));
        if (q == null) {
            return List.of();
        }
        List<Point> out = new ArrayList<>();
        for (Lit l : goal) {
            if (!q.holds(l)) {
                out.addAll(moves(q, l, wanted, history));
            }
        }
        return out;
    }

    /** How many sideways first steps {@link #plateau} follows at most. */
    private static final int PLATEAU = 8;

    /**
     * Points two changes away from {@code p} through a sideways step: a one-change move that meets
     * {@code target} but breaks another literal (as many unmet as before), then each one-change move that meets
     * a literal that step left unmet. For goals where two fields must change together and neither change alone
     * gains (a value above one rule's ceiling makes a night rule true, unless the hour moves too). At most
     * {@link #PLATEAU} first steps are followed.
     */
    private List<Point> plateau(Point p, List<Lit> goal, Lit target, List<AnalyzedRule> wanted, boolean history,
            int cost) {
        List<Point> out = new ArrayList<>();
        int followed = 0;
        for (Point q : moves(p, target, wanted, history)) {
            if (followed == PLATEAU) {
                break;
            }
            if (!q.holds(target) || q.violated(goal, cost + 1) != cost) {
                continue;
            }
            followed++;
            for (Lit l : goal) {
                if (!q.holds(l)) {
                    out.addAll(moves(q, l, wanted, history));
                }
            }
        }
        return out;
    }

    private static List<AnalyzedRule> with(List<AnalyzedRule> rules, AnalyzedRule r) {
        if (rules.contains(r)) {
            return rules;
        }
        List<AnalyzedRule> out = new ArrayList<>(rules);
        out.add(0, r);
        return out;
    }

    /**
     * The point with every field that the {@link FieldBounds} of {@code rules} constrain moved, where its value is
     * outside them, to the first candidate value that all of them admit, and the wallet and workspace to ones all
     * the rules' policies target; null when there are no bounds or no such wallet or workspace. A field no
     * candidate fits keeps its value (the engine's evaluation of the point decides anyway).
     */
    private Point repair(Point p, List<AnalyzedRule> rules) {
        if (bounds == null || rules.isEmpty()) {
            return null;
        }
        Map<String, Object> w = copy(p.witness);
        Set<String> targeted = null;
        String workspace = null;
        for (AnalyzedRule r : rules) {
            if (!r.walletIds().isEmpty()) {
                if (targeted == null) {
                    targeted = new TreeSet<>(r.walletIds());
                } else {
                    targeted.retainAll(r.walletIds());
                }
            }
            if (r.workspaceId() != null) {
                if (workspace != null && !workspace.equals(r.workspaceId())) {
                    return null;
                }
                workspace = r.workspaceId();
            }
        }
        if (targeted != null && !targeted.contains(String.valueOf(w.get(WALLET)))) {
            String pick = null;
            for (String x : targeted) {
                if (wallets.contains(x)) {
                    pick = x;
                    break;
                }
            }
            if (pick == null) {
                return null;
            }
            w.put(WALLET, pick);
        }
        if (workspace != null) {
            w.put(WORKSPACE, workspace);
        }
        Set<String> paths = new LinkedHashSet<>();
        for (AnalyzedRule r : rules) {
            paths.addAll(reads(r).paths);
        }
        for (String path : paths) {
            if (admitted(rules, path, get(w, path))) {
                continue;
            }
            for (Object c : candidates(path, reads(rules.get(0)), rules)) {
                if (admitted(rules, path, c)) {
                    put(w, path, c);
                    break;
                }
            }
        }
        return point(w);
    }

    private boolean admitted(List<AnalyzedRule> rules, String path, Object v) {
        Object x = v == ABSENT ? null : v;
        for (AnalyzedRule r : rules) {
            FieldBounds b = bounds.apply(r);
            if (b != null && !b.admits(path, x)) {
                return false;
            }
        }
        return true;
    }

    /** How many points one combined move may make at most. */
    private static final int COMBOS = 512;

    /**
     * Points that change every field the target's rule reads at once, each to one of its candidates (or keep
     * it): for a condition that only turns true when several fields change together. Empty when there would be
     * more than {@link #COMBOS}.
     */
    private List<Point> combos(Point p, Lit target, List<AnalyzedRule> wanted) {
        if (target.kind() == Kind.APPLIES) {
            return List.of();
        }
        AnalyzedRule r = target.rule();
        Reads x = reads(r);
        List<String> paths = new ArrayList<>(x.paths);
        List<List<Object>> values = new ArrayList<>();
        // a rule that must apply (TRUE, FAILS) changes its wallet and workspace with its fields
        boolean applies = target.kind() == Kind.TRUE || target.kind() == Kind.FAILS;
        if (applies && !r.walletIds().isEmpty()) {
            paths.add(WALLET);
        }
        if (applies && r.workspaceId() != null) {
            paths.add(WORKSPACE);
        }
        long size = 1;
        for (String path : paths) {
            List<Object> c = new ArrayList<>();
            if (path.equals(WALLET)) {
                for (String w : new TreeSet<>(r.walletIds())) {
                    if (wallets.contains(w)) {
                        c.add(w);
                    }
                }
            } else if (path.equals(WORKSPACE)) {
                c.add(r.workspaceId());
            } else {
                c.addAll(candidates(path, x, wanted));
            }
            Object now = get(p.witness, path);
            c.remove(now);
            c.add(0, now);
            values.add(c);
            size *= c.size();
            if (size > COMBOS) {
                return List.of();
            }
        }
        List<Point> out = new ArrayList<>();
        int[] at = new int[paths.size()];
        while (true) {
            int i = 0;
            while (i < at.length && ++at[i] == values.get(i).size()) {
                at[i++] = 0;
            }
            if (i == at.length) {
                return out;
            }
            Map<String, Object> w = copy(p.witness);
            for (int k = 0; k < at.length; k++) {
                put(w, paths.get(k), values.get(k).get(at[k]));
            }
            add(out, w);
        }
    }

    /** Points one change away from {@code p} that may meet {@code target}. */
    private List<Point> moves(Point p, Lit target, List<AnalyzedRule> wanted, boolean history) {
        List<Point> out = new ArrayList<>();
        List<AnalyzedRule> rules = target.other() == null ? List.of(target.rule())
                : List.of(target.rule(), target.other());
        // a graft: the fields of the rule from an action on which it is true
        if (history && target.kind() == Kind.TRUE) {
            Point t = trueOf.get(target.rule());
            if (t != null && t != p) {
                Map<String, Object> w = copy(p.witness);
                for (String path : reads(target.rule()).paths) {
                    put(w, path, get(t.witness, path));
                }
                put(w, WALLET, t.witness.get(WALLET));
                put(w, WORKSPACE, t.witness.containsKey(WORKSPACE) ? t.witness.get(WORKSPACE) : ABSENT);
                add(out, w);
            }
        }
        if (target.kind() == Kind.TRUE) {
            Point q = repair(p, List.of(target.rule()));
            if (q != null) {
                out.add(q);
            }
            if (!wanted.isEmpty() && !(wanted.size() == 1 && wanted.get(0) == target.rule())) {
                q = repair(p, with(wanted, target.rule()));
                if (q != null) {
                    out.add(q);
                }
            }
        }
        for (AnalyzedRule r : rules) {
            if (target.kind() != Kind.DIFFER) {
                if (!r.walletIds().isEmpty()) {
                    for (String w : new TreeSet<>(r.walletIds())) {
                        if (wallets.contains(w)) {
                            add(out, with(p, WALLET, w));
                        }
                    }
                    add(out, with(p, WALLET, ActionSpace.OTHER_WALLET));
                }
                if (r.workspaceId() != null) {
                    add(out, with(p, WORKSPACE, r.workspaceId()));
                    add(out, with(p, WORKSPACE, ABSENT));
                }
            }
            Reads x = reads(r);
            for (String path : x.paths) {
                for (Object v : candidates(path, x, wanted)) {
                    if (!v.equals(get(p.witness, path))) {
                        add(out, with(p, path, v));
                    }
                }
            }
        }
        return out;
    }

    private void add(List<Point> out, Map<String, Object> w) {
        if (w != null) {
            Point q = point(w);
            if (q != null) {
                out.add(q);
            }
        }
    }

    private Map<String, Object> with(Point p, String path, Object v) {
        Map<String, Object> w = copy(p.witness);
        put(w, path, v);
        return w;
    }

    /**
     * The values a field may take in a move: the constants (and their neighbours) of the rule and of the rules the
     * goal wants true that read the field, within the field's domain.
     */
    private List<Object> candidates(String path, Reads rule, List<AnalyzedRule> wanted) {
        Reads x = rule;
        if (!wanted.isEmpty()) {
            x = new Reads();
            x.numbers.addAll(rule.numbers);
            x.strings.addAll(rule.strings);
            for (AnalyzedRule w : wanted) {
                Reads y = reads(w);
                if (y.paths.contains(path)) {
                    x.numbers.addAll(y.numbers);
                    x.strings.addAll(y.strings);
                }
            }
        }
        FieldSpec f = FieldSchema.field(action, path).orElse(null);
        List<Object> out = new ArrayList<>();
        if (path.equals(HOUR)) {
            for (long h = 0; h < 24; h++) {
                out.add(h);
            }
            return out;
        }
        if (path.equals(DAY)) {
            out.addAll(FieldSchema.DAYS_OF_WEEK);
            return out;
        }
        if (f == null) {
            return out;
        }
        if (f.optional()) {
            out.add(ABSENT);
        }
        switch (f.type()) {
            case BOOLEAN -> {
                out.add(false);
                out.add(true);
            }
            case STRING -> {
                if (!f.enumValues().isEmpty()) {
                    out.addAll(f.enumValues());
                } else {
                    Set<String> s = new LinkedHashSet<>();
                    s.add("");
                    for (String c : x.strings) {
                        s.add(c);
                        s.add("x" + c);
                        s.add(c + "x");
                    }
                    out.addAll(s);
                }
            }
            case NUMBER -> {
                Set<Double> s = new LinkedHashSet<>();
                s.add(0.0);
                s.add(1.0);
                for (double c : x.numbers) {
                    for (double v : new double[] {c, Math.nextUp(c), Math.nextDown(c), c + 1, c - 1}) {
                        if (Double.isFinite(v) && !(v == 0 && Double.doubleToRawLongBits(v) != 0)
                                && (!f.nonNegative() || v >= 0)) {
                            s.add(v);
                        }
                    }
                }
                out.addAll(s);
            }
            case INTEGER -> {
                Set<Long> s = new LinkedHashSet<>();
                s.add(0L);
                s.add(1L);
                for (double c : x.numbers) {
                    if (Math.abs(c) < 0x1p62) {
                        long l = (long) Math.floor(c);
                        for (long v : new long[] {l, l + 1, l - 1}) {
                            if (!f.nonNegative() || v >= 0) {
                                s.add(v);
                            }
                        }
                    }
                }
                out.addAll(s);
            }
            default -> {
                // maps (decoded_args) are left as the start has them
            }
        }
        return out;
    }

    /** The fields a rule's condition reads and the constants it holds. */
    private static final class Reads {
        final Set<String> paths = new LinkedHashSet<>();
        final Set<Double> numbers = new LinkedHashSet<>();
        final Set<String> strings = new LinkedHashSet<>();
    }

    private Reads reads(AnalyzedRule r) {
        return reads.computeIfAbsent(r, x -> {
            Reads out = new Reads();
            walk(x.condition().checkedAst().getExpr(), out);
            return out;
        });
    }

    private void walk(CelExpr e, Reads out) {
        switch (e.getKind()) {
            case CONSTANT -> {
                CelConstant c = e.constant();
                switch (c.getKind()) {
                    case INT64_VALUE -> out.numbers.add((double) c.int64Value());
                    case UINT64_VALUE -> out.numbers.add(c.uint64Value().doubleValue());
                    case DOUBLE_VALUE -> out.numbers.add(c.doubleValue());
                    case STRING_VALUE -> out.strings.add(c.stringValue());
                    default -> { }
                }
            }
            case SELECT -> {
                CelExpr operand = e.select().operand();
                if (operand.getKind() == CelExpr.ExprKind.Kind.IDENT) {
                    String path = operand.ident().name() + "." + e.select().field();
                    if (FieldSchema.field(action, path).filter(f -> f.type() != FieldType.MAP).isPresent()) {
                        out.paths.add(path);
                    }
                } else {
                    walk(operand, out);
                }
            }
            case CALL -> {
                e.call().target().ifPresent(t -> walk(t, out));
                for (CelExpr a : e.call().args()) {
                    walk(a, out);
                }
            }
            case LIST -> {
                for (CelExpr a : e.list().elements()) {
                    walk(a, out);
                }
            }
            default -> {
                // comprehensions, maps, structs: their fields are not changed by moves
            }
        }
    }

    private static Object get(Map<String, Object> w, String path) {
        if (path.equals(WALLET) || path.equals(WORKSPACE)) {
            return w.containsKey(path) ? w.get(path) : ABSENT;
        }
        if (path.equals(HOUR) || path.equals(DAY)) {
            java.time.ZonedDateTime at = java.time.Instant.parse((String) w.get("at")).atZone(java.time.ZoneOffset.UTC);
            return path.equals(HOUR) ? (Object) (long) at.getHour()
                    : at.getDayOfWeek().getDisplayName(java.time.format.TextStyle.FULL, java.util.Locale.ENGLISH);
        }
        int dot = path.indexOf('.');
        Object section = w.get(path.substring(0, dot));
        if (!(section instanceof Map<?, ?> m) || !m.containsKey(path.substring(dot + 1))) {
            return ABSENT;
        }
        return m.get(path.substring(dot + 1));
    }

    @SuppressWarnings("unchecked")
    private void put(Map<String, Object> w, String path, Object v) {
        if (path.equals(WALLET) || path.equals(WORKSPACE)) {
            if (v == ABSENT) {
                w.remove(path);
            } else {
                w.put(path, v);
            }
            return;
        }
        if (path.equals(HOUR) || path.equals(DAY)) {
            long hour = (Long) (path.equals(HOUR) ? v : get(w, HOUR));
            String day = (String) (path.equals(DAY) ? v : get(w, DAY));
            w.put("at", ActionSpace.instant(day, (int) hour));
            return;
        }
        int dot = path.indexOf('.');
        Map<String, Object> section = (Map<String, Object>) w.get(path.substring(0, dot));
        if (section == null) {
            return;
        }
        String name = path.substring(dot + 1);
        if (v == ABSENT) {
            section.remove(name);
        } else if (section.containsKey(name)) {
            section.put(name, v);
        } else {
            // a field put back goes where the solver's witnesses have it: in the schema's order
            section.put(name, v);
            Map<String, Object> ordered = new LinkedHashMap<>();
            for (FieldSpec f : FieldSchema.fields(action)) {
                if (f.section().wireName().equals(path.substring(0, dot)) && section.containsKey(f.name())) {
                    ordered.put(f.name(), section.get(f.name()));
                }
            }
            for (Map.Entry<String, Object> e : section.entrySet()) {
                ordered.putIfAbsent(e.getKey(), e.getValue());
            }
            section.clear();
            section.putAll(ordered);
        }
    }

    private static Map<String, Object> copy(Map<String, Object> m) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : m.entrySet()) {
            out.put(e.getKey(), e.getValue() instanceof Map<?, ?> inner ? new LinkedHashMap<>(inner) : e.getValue());
        }
        return out;
    }
}
