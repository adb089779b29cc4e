package dev.custody.engine.compile;

import dev.custody.engine.internal.access.ClassPathReads;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.types.CelKind;
import dev.cel.runtime.CelEvaluationListener;
import dev.cel.runtime.CelVariableResolver;
import dev.custody.engine.check.Payload;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The branches of a compiled condition, for coverage: every operand of {@code &&}, {@code ||} and {@code !},
 * the condition of every {@code ?:} and each of its arms that is a boolean, and every comparison
 * ({@code ==}, {@code !=}, {@code <}, {@code <=}, {@code >}, {@code >=}), each once, with where it stands in
 * the condition text. {@link #observe} evaluates the condition once more and reports each branch that
 * evaluated to a boolean.
 *
 * <h2>What is counted</h2>
 * cel-java calls the listener for each sub-expression it evaluated, with its value, so a branch is reported
 * exactly when the interpreter evaluated it: {@code a && b} whose {@code a} is false never evaluates {@code b}
 * (nor {@code a || b} whose {@code a} is true), and {@code c ? x : y} evaluates one arm. When an operand errs
 * ({@code a} reads an absent field) cel-java still evaluates the other operand, and only the one that gave a
 * boolean is reported. A branch inside a comprehension ({@code list.all(x, x > 5)}) is reported once per
 * iteration. The compiled form ({@link ClosureCompiler}) decides exactly as cel-java (a differential property
 * pins it, docs/design.md §10.4), so these are the outcomes of the evaluation that decided; the
 * parts cel-java's macros add (the accumulator of {@code all}/{@code exists}) are not branches.
 *
 * <h2>How it evaluates</h2>
 * Running cel-java under a listener costs several times what the compiled form costs, so a condition inside a
 * small fragment (field reads, {@code has()}, constants, logical operators, comparisons, {@code in} over a
 * constant list, string tests) is evaluated by a {@link BranchProbe} that follows cel-java's order and
 * short-circuits and notes each branch's value; any other condition, and any value the probe was not built for,
 * is evaluated on cel-java under the listener. A differential test holds the two to the same outcomes.
 *
 * <h2>Positions</h2>
 * A branch's span runs from the first to the last token of its sub-expression (parentheses around it are not
 * part of it, a call's closing parenthesis is), in code points of the condition text; its line and column are
 * those of the span's start, 1-based, as {@link SourcePositions} reports them for diagnostics.
 *
 * <p>Immutable and thread-safe. {@link #observe} never throws: a failing evaluation reports what it saw
 * before it failed.
 */
public final class ConditionBranches {
    static {
        ClassPathReads.ensure(); // before this class links any cel-java type (module-info.java)
    }


    /**
     * One branch of a condition.
     *
     * @param offset where its text starts, in code points of the condition (0-based)
     * @param length its text's length, in code points
     * @param line the 1-based line of its start in the condition
     * @param column the 1-based column (in code points) of its start in the condition
     * @param text its source text
     */
    public record Branch(int offset, int length, int line, int column, String text) {
        public Branch {
            Objects.requireNonNull(text, "text");
        }
    }

    /** Told of each branch outcome {@link #observe} sees; called on the observing thread. */
    @FunctionalInterface
    public interface Outcomes {
        /**
         * A branch evaluated to a boolean.
         *
         * @param branch its index in {@link #branches()}
         * @param value what it evaluated to
         */
        void outcome(int branch, boolean value);
    }

    private final CompiledCondition condition;
    private final List<Branch> branches;
    /** Expression ids of the branches, sorted, and the branch index of each. */
    private final long[] ids;
    private final int[] indexOfId;
    /** The fast evaluation of the branches, or null when the condition is outside its fragment. */
    private final BranchProbe probe;

    private ConditionBranches(CompiledCondition condition, List<Branch> branches, long[] ids, int[] indexOfId) {
        this.condition = condition;
        this.branches = branches;
        this.ids = ids;
        this.indexOfId = indexOfId;
        this.probe = BranchProbe.build(condition.ast().getExpr(), this::indexOf);
    }

    /** The branch index of an expression id, or -1. */
    private int indexOf(long id) {
        int i = Arrays.binarySearch(ids, id);
        return i >= 0 ? indexOfId[i] : -1;
    }

    /** Whether the branches are evaluated without cel-java (when the values fit, see {@link BranchProbe}). */
    boolean probed() {
        return probe != null;
    }

    /** The branches of a condition, in order of position (an enclosing branch before the ones inside it). */
    public static ConditionBranches of(CompiledCondition condition) {
        CelAbstractSyntaxTree ast = condition.ast();
        SourcePositions positions = new SourcePositions(condition.source());
        Map<Long, Integer> offsets = ast.getSource().getPositionsMap();
        Map<Long, CelExpr> found = new LinkedHashMap<>();
        ArrayDeque<CelExpr> pending = new ArrayDeque<>();
        pending.push(ast.getExpr());
        while (!pending.isEmpty()) {
            CelExpr e = pending.pop();
            if (e.getKind() == CelExpr.ExprKind.Kind.CALL) {
                CelSemantics.Call f = CelSemantics.call(e.call().function());
                if ((f.isEquality() || f.isOrdering()) && !synthetic(e)) {
                    found.putIfAbsent(e.id(), e);
                }
                List<CelExpr> args = e.call().args();
                if (f.isLogical()) {
                    args.stream().filter(a -> !synthetic(a)).forEach(a -> found.putIfAbsent(a.id(), a));
                } else if (f == CelSemantics.Call.CONDITIONAL && args.size() == 3) {
                    if (!synthetic(args.get(0))) {
                        found.putIfAbsent(args.get(0).id(), args.get(0));
                    }
                    for (CelExpr arm : args.subList(1, 3)) {
                        if (!synthetic(arm) && ast.getType(arm.id()).map(t -> t.kind() == CelKind.BOOL).orElse(false)) {
                            found.putIfAbsent(arm.id(), arm);
                        }
                    }
                }
            }
            children(e).forEach(pending::push);
        }
        record Found(long id, Branch branch) {}
        List<Found> all = new ArrayList<>();
        for (CelExpr e : found.values()) {
            int[] span = span(e, offsets, positions, condition.source());
            if (span == null) {
                continue;
            }
            int[] lc = positions.lineColumn(span[0]);
            all.add(new Found(e.id(), new Branch(span[0], span[1] - span[0], lc[0], lc[1],
                    substring(condition.source(), span[0], span[1]))));
        }
        all.sort(Comparator.comparingInt((Found f) -> f.branch().offset())
                .thenComparing(Comparator.comparingInt((Found f) -> f.branch().length()).reversed())
                .thenComparingLong(Found::id));
        List<Branch> branches = all.stream().map(Found::branch).toList();
        Integer[] order = new Integer[all.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingLong(i -> all.get(i).id()));
        long[] ids = new long[order.length];
        int[] index = new int[order.length];
        for (int i = 0; i < order.length; i++) {
            ids[i] = all.get(order[i]).id();
            index[i] = order[i];
        }
        return new ConditionBranches(condition, branches, ids, index);
    }

    /** The condition these are the branches of. */
    public CompiledCondition condition() {
        return condition;
    }

    /** The branches, in order of position. */
    public List<Branch> branches() {
        return branches;
    }

    /**
     * Evaluates the condition against a payload on cel-java and reports every branch that evaluated to a
     * boolean. Changes nothing and decides nothing; never throws (an evaluation that fails stops the reports).
     *
     * @throws IllegalArgumentException if the payload is of another trigger action
     */
    public void observe(Payload payload, Outcomes outcomes) {
        if (payload.action() != condition.action()) {
            throw new IllegalArgumentException("payload of `" + payload.action() + "` given to a `"
                    + condition.action() + "` condition");
        }
        if (ids.length == 0) {
            return;
        }
        if (!observeProbed(payload, outcomes)) {
            observeInterpreted(payload, outcomes);
        }
    }

    /**
     * {@link #observe} by the probe alone: false (and nothing reported) when there is no probe or it gave up on
     * a value it was not built for.
     */
    boolean observeProbed(Payload payload, Outcomes outcomes) {
        if (probe == null) {
            return false;
        }
        byte[] seen = new byte[ids.length];
        try {
            probe.run(payload.sections(), seen);
        } catch (BranchProbe.Unsure e) {
            return false;
        } catch (RuntimeException | StackOverflowError e) {
            return true; // not expected; the decision has its own result, coverage reports nothing for this one
        }
        for (int i = 0; i < seen.length; i++) {
            if (seen[i] != 0) {
                outcomes.outcome(i, seen[i] == 1);
            }
        }
        return true;
    }

    /** {@link #observe} on cel-java under an evaluation listener, whether or not there is a probe. */
    void observeInterpreted(Payload payload, Outcomes outcomes) {
        Map<String, Map<String, Object>> sections = payload.sections();
        CelVariableResolver resolver = name -> Optional.ofNullable(sections.get(name));
        CelEvaluationListener listener = (expr, result) -> {
            if (result instanceof Boolean b) {
                int i = Arrays.binarySearch(ids, expr.id());
                if (i >= 0) {
                    outcomes.outcome(indexOfId[i], b);
                }
            }
        };
        try {
            condition.program().trace(resolver, listener);
        } catch (Exception | StackOverflowError | CompiledCondition.TooLarge e) {
            // the evaluation that decided has its own result; coverage keeps what it saw
        }
    }

    /** Whether an expression was made up by a macro (it reads a comprehension's accumulator outside a macro). */
    private static boolean synthetic(CelExpr e) {
        ArrayDeque<CelExpr> pending = new ArrayDeque<>();
        pending.push(e);
        while (!pending.isEmpty()) {
            CelExpr x = pending.pop();
            if (x.getKind() == CelExpr.ExprKind.Kind.IDENT) {
                String name = x.ident().name();
                if (name.startsWith("@") || name.equals("__result__")) {
                    return true;
                }
            }
            if (x.getKind() != CelExpr.ExprKind.Kind.COMPREHENSION) {
                // a macro the author wrote is no made-up part, whatever its accumulator
                children(x).forEach(pending::push);
            }
        }
        return false;
    }

    private static List<CelExpr> children(CelExpr e) {
        List<CelExpr> out = new ArrayList<>();
        switch (e.getKind()) {
            case SELECT -> out.add(e.select().operand());
            case CALL -> {
                e.call().target().ifPresent(out::add);
                out.addAll(e.call().args());
            }
            case LIST -> out.addAll(e.list().elements());
            case MAP -> e.map().entries().forEach(x -> {
                out.add(x.key());
                out.add(x.value());
            });
            case STRUCT -> e.struct().entries().forEach(x -> out.add(x.value()));
            case COMPREHENSION -> {
                out.add(e.comprehension().iterRange());
                out.add(e.comprehension().accuInit());
                out.add(e.comprehension().loopCondition());
                out.add(e.comprehension().loopStep());
                out.add(e.comprehension().result());
            }
            default -> {
                // constants and identifiers have no sub-expressions
            }
        }
        return out;
    }

    /**
     * {start, end} in code points of an expression's text: from the earliest to the end of the latest token
     * of its sub-expressions, widened to a call's name and to the brackets its text leaves open; null when
     * cel-java recorded no position for it.
     */
    private static int[] span(CelExpr root, Map<Long, Integer> offsets, SourcePositions text, String source) {
        int start = Integer.MAX_VALUE;
        int end = -1;
        ArrayDeque<CelExpr> pending = new ArrayDeque<>();
        pending.push(root);
        while (!pending.isEmpty()) {
            CelExpr e = pending.pop();
            Integer at = offsets.get(e.id());
            if (at != null && at >= 0 && at < text.length()) {
                start = Math.min(start, at);
                end = Math.max(end, tokenEnd(text, at));
            }
            children(e).forEach(pending::push);
        }
        if (end < 0) {
            return null;
        }
        // a global call (`size(x)`) is recorded at its parenthesis: take its name in
        int s = start;
        if (text.codePointAt(s) == '(') {
            int i = s - 1;
            while (i >= 0 && Character.isWhitespace(text.codePointAt(i))) {
                i--;
            }
            int j = i;
            while (j >= 0 && identifierPart(text.codePointAt(j))) {
                j--;
            }
            if (j < i) {
                s = j + 1;
            }
        }
        int unopened = unopened(text, s, end);
        if (unopened > 0) {
            s = openBrackets(text, s, unopened);
        }
        return new int[] {s, closeBrackets(text, s, end)};
    }

    /** How many closing brackets in {@code [start, end)} have no opening one there (strings skipped). */
    private static int unopened(SourcePositions text, int start, int end) {
        int depth = 0;
        int lowest = 0;
        int i = start;
        while (i < end) {
            int quote = stringStart(text, i);
            if (quote >= 0 && (i == 0 || !identifierPart(text.codePointAt(i - 1)))) {
                i = stringEnd(text, quote);
                continue;
            }
            int c = text.codePointAt(i);
            if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                depth--;
                lowest = Math.min(lowest, depth);
            }
            i++;
        }
        return -lowest;
    }

    /** Moves {@code start} back past {@code count} unmatched opening brackets (a parenthesised operand's own). */
    private static int openBrackets(SourcePositions text, int start, int count) {
        int need = count;
        int i = start - 1;
        int depth = 0;
        while (i >= 0 && need > 0) {
            int c = text.codePointAt(i);
            if (c == ')' || c == ']' || c == '}') {
                depth++;
            } else if (c == '(' || c == '[' || c == '{') {
                if (depth > 0) {
                    depth--;
                } else {
                    need--;
                }
            }
            i--;
        }
        return i + 1;
    }

    /** The end of the token at {@code at}: an identifier, a field after a dot, a number, a string, or one character. */
    private static int tokenEnd(SourcePositions text, int at) {
        int n = text.length();
        int i = at;
        int c = text.codePointAt(i);
        if (c == '.') {
            i = text.fieldNameAfterDot(i);
            if (i >= n || !identifierPart(text.codePointAt(i))) {
                return at + 1;
            }
            c = text.codePointAt(i);
        }
        int quote = stringStart(text, i);
        if (quote >= 0) {
            return stringEnd(text, quote);
        }
        if (identifierPart(c)) {
            while (i < n && (identifierPart(text.codePointAt(i))
                    || (text.codePointAt(i) == '.' && i + 1 < n && Character.isDigit(text.codePointAt(i + 1))
                            && Character.isDigit(c))
                    || ((text.codePointAt(i) == '+' || text.codePointAt(i) == '-') && Character.isDigit(c)
                            && (text.codePointAt(i - 1) == 'e' || text.codePointAt(i - 1) == 'E')))) {
                i++;
            }
            return i;
        }
        return at + 1;
    }

    /** The offset of the opening quote of a string or bytes literal starting at {@code at}, else -1. */
    private static int stringStart(SourcePositions text, int at) {
        int i = at;
        for (int k = 0; k < 2; k++) {
            int c = text.codePointAt(i);
            if (c == '"' || c == '\'') {
                return i;
            }
            if (c == 'r' || c == 'R' || c == 'b' || c == 'B') {
                i++;
            } else {
                return -1;
            }
        }
        int c = text.codePointAt(i);
        return c == '"' || c == '\'' ? i : -1;
    }

    /** The end of a string literal whose opening quote is at {@code quote} (triple quotes and escapes included). */
    private static int stringEnd(SourcePositions text, int quote) {
        int n = text.length();
        int q = text.codePointAt(quote);
        boolean triple = text.codePointAt(quote + 1) == q && text.codePointAt(quote + 2) == q;
        int i = quote + (triple ? 3 : 1);
        while (i < n) {
            int c = text.codePointAt(i);
            if (c == '\\') {
                i += 2;
                continue;
            }
            if (c == q && (!triple || (text.codePointAt(i + 1) == q && text.codePointAt(i + 2) == q))) {
                return i + (triple ? 3 : 1);
            }
            i++;
        }
        return n;
    }

    /** Extends {@code end} past the closing brackets of the brackets {@code [start, end)} leaves open. */
    private static int closeBrackets(SourcePositions text, int start, int end) {
        int depth = 0;
        int i = start;
        int n = text.length();
        while (i < n && (i < end || depth > 0)) {
            int c = text.codePointAt(i);
            int quote = stringStart(text, i);
            if (quote >= 0 && (quote == i || !identifierPart(text.codePointAt(i - 1)))) {
                i = stringEnd(text, quote);
                continue;
            }
            if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                depth--;
                if (depth < 0 && i >= end) {
                    break;
                }
            }
            i++;
        }
        return Math.max(end, i);
    }

    private static boolean identifierPart(int c) {
        return c == '_' || Character.isLetterOrDigit(c);
    }

    private static String substring(String source, int start, int end) {
        int from = source.offsetByCodePoints(0, start);
        int to = source.offsetByCodePoints(from, end - start);
        return source.substring(from, to);
    }
}
