package dev.custody.engine.compile;

import dev.custody.engine.internal.access.ClassPathReads;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelExpr;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelEvaluationListener;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelVariableResolver;
import dev.custody.engine.check.Payload;
import dev.custody.engine.schema.TriggerAction;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A condition that compiled: its type-checked syntax tree, the cel-java program that evaluates it, and, when
 * it has one, its compiled form.
 *
 * <h2>Compiled form</h2>
 * Most conditions ({@link #compiled()}) are evaluated by a tree of Java closures that {@link ClosureCompiler}
 * translated from the checked syntax tree, several times faster than cel-java's interpreter and with the same
 * result for every payload: the same boolean, or a {@link ConditionResult.Failure} with the same message.
 * When the compiled form meets an error it leaves cel-java to word, or a value it was not built for, the
 * condition is evaluated again on cel-java, as every condition without a compiled form is. Comprehensions (the
 * {@code all}, {@code exists}, {@code exists_one}, {@code map} and {@code filter} macros) have a compiled form
 * too; one whose step fails, or that runs past the compiler's iteration limit, hands the whole condition to
 * cel-java. A compiled form runs without a listener: outside comprehensions it takes a fixed number of steps,
 * and a compiled comprehension charges the cost meter for each node of its loop each time it runs and reads the
 * thread's CPU clock every {@value ClosureCompiler#CLOCK_EVERY} iterations itself. {@link #mayRunLong()} is
 * unchanged by it (a condition with a comprehension or of more than {@value #WATCH_ABOVE_NODES}
 * sub-expressions still has the evaluator read the clock around it, which costs little and keeps the
 * guarantee when such a condition falls back on cel-java).
 *
 * <h2>Time budget inside one condition</h2>
 * cel-java has no cancellation, so a condition that can run long is evaluated under an evaluation
 * listener that cel-java calls after each sub-expression; every {@value #CHECK_EVERY}th call it asks
 * {@link ThreadClock#passed} whether the thread's CPU time is past the deadline and, past it, throws a private
 * {@link Error} subtype (a compiled comprehension checks every {@value ClosureCompiler#CLOCK_EVERY} iterations
 * the same way). cel-java's
 * {@code &&}/{@code ||} absorb exceptions, not errors, so the error unwinds the whole evaluation and is
 * reported as a {@link ConditionResult.Failure} with {@code budgetExceeded}. Comprehension iterations and
 * regex program size are also bounded by the compiler's options, so a runaway rule is stopped twice over.
 *
 * <p>A condition can run long when it has a comprehension (its work grows with the data it iterates) or more
 * than {@value #WATCH_ABOVE_NODES} sub-expressions. Any other condition does a small, fixed number of steps,
 * so a listener could stop it at most a few steps early, while evaluating under it costs some 15 to 20 %
 * more (see {@code engine-core/BENCHMARKS.md}): it runs without one ({@link #mayRunLong()} is false),
 * and the deadline is checked before it starts ({@link #evaluate}) or by the caller between conditions
 * ({@link #evaluateWithoutStartCheck}).
 *
 * <p>Immutable and thread-safe: one instance may be evaluated by many threads at once.
 */
public final class CompiledCondition {
    static {
        ClassPathReads.ensure(); // before this class links any cel-java type (module-info.java)
    }

    static final int CHECK_EVERY = 256;
    /** The longest string a watched condition may build while it runs, in characters. */
    static final int MAX_BUILT_STRING = 256 * 1024;
    /** The most elements a list or map built by a watched condition may hold. */
    static final int MAX_BUILT_ELEMENTS = 100_000;
    /** Conditions with more sub-expressions than this are evaluated under the deadline listener. */
    static final int WATCH_ABOVE_NODES = 64;
    private static final Pattern RUNTIME_ERROR = Pattern.compile("evaluation error(?: at [^:]*:(\\d+))?: (.*)",
            Pattern.DOTALL);
    private static final Pattern ABSENT_KEY = Pattern.compile("key '([^']*)' is not present in map\\.?");

    private final TriggerAction action;
    private final String source;
    private final CelAbstractSyntaxTree ast;
    private final CelRuntime.Program program;
    private final SourcePositions positions;
    private final boolean watched;
    /** The compiled form ({@link ClosureCompiler}), or null when the condition runs on cel-java only. */
    private final ClosureCompiler.Node compiled;
    /** The number of nodes of the checked tree. */
    private final long nodes;
    /**
     * What the compiled form is charged when it starts: every node outside a comprehension's loop (those inside are
     * charged each time they run, ClosureCompiler.Counted).
     */
    private final long upFront;
    /** What the cost meter charges, beyond one unit, for the value of each sub-expression (by expression id). */
    private final CostRoles roles;
    /** The worst-case cost over every valid payload, or -1 when it is not bounded. */
    private final long costEstimate;

    CompiledCondition(TriggerAction action, String source, CelAbstractSyntaxTree ast, CelRuntime.Program program,
            ClosureCompiler.Node compiled, int maxRegexProgramSize, int comprehensionMaxIterations) {
        this.action = action;
        this.source = source;
        this.ast = ast;
        this.program = program;
        this.positions = new SourcePositions(source);
        this.watched = mayRunLong(ast.getExpr());
        this.compiled = compiled;
        this.nodes = CostRoles.count(ast.getExpr());
        this.upFront = nodes - CostRoles.loopNodes(ast.getExpr());
        this.roles = CostRoles.of(ast.getExpr(), maxRegexProgramSize);
        this.costEstimate = new CostEstimator(ast, action, maxRegexProgramSize, comprehensionMaxIterations)
                .estimate();
    }

    /** Whether the expression has a comprehension or more than {@link #WATCH_ABOVE_NODES} sub-expressions. */
    static boolean mayRunLong(CelExpr root) {
        long[] nodes = {0};
        boolean[] comprehension = {false};
        CostRoles.walk(root, e -> {
            nodes[0]++;
            comprehension[0] |= e.getKind() == CelExpr.ExprKind.Kind.COMPREHENSION;
        });
        return comprehension[0] || nodes[0] > WATCH_ABOVE_NODES;
    }

    /** The trigger action whose fields the condition reads. */
    public TriggerAction action() {
        return action;
    }

    /**
     * The number of nodes of the checked tree: what the compiled form may be charged above cel-java's figure (the
     * differential property's bound). When it starts it is charged only the nodes outside a comprehension's loop.
     */
    long nodes() {
        return nodes;
    }

    /** The cel-java program, for the benchmarks (src/jmh) that compare {@link #evaluate} with it. */
    CelRuntime.Program program() {
        return program;
    }

    /** The checked syntax tree, for {@link ConditionBranches}. */
    CelAbstractSyntaxTree ast() {
        return ast;
    }

    /**
     * Whether the condition has a compiled form: it is evaluated by a tree of Java closures translated from
     * its checked syntax tree rather than by cel-java's interpreter, with the same result (see the class
     * comment). False for conditions with a comprehension or another construct the translation does not
     * cover, and for every condition of a compiler built with {@code compiledEvaluation(false)}.
     */
    public boolean compiled() {
        return compiled != null;
    }

    /**
     * The checked syntax tree the condition was compiled from (types and references resolved), for tools that
     * reason about conditions without evaluating them, such as the SMT analysis of module {@code custody-analysis}.
     * Immutable.
     */
    public CelAbstractSyntaxTree checkedAst() {
        return ast;
    }

    /** The condition text. */
    public String source() {
        return source;
    }

    /**
     * Evaluates the condition against a payload, without a cost limit. Never throws: errors, non-boolean
     * results and running past {@code deadlineNanos} (a {@link ThreadClock#now()} value) are returned as a
     * {@link ConditionResult.Failure}.
     *
     * @throws IllegalArgumentException if the payload is of another trigger action
     */
    public ConditionResult evaluate(Payload payload, long deadlineNanos) {
        return evaluate(payload, deadlineNanos, CostMeter.unlimited());
    }

    /**
     * Evaluates the condition against a payload, charging {@code cost} as it runs ({@link CostMeter}). Never
     * throws: errors, non-boolean results, passing the meter's limit ({@link ConditionResult.Failure#costExceeded})
     * and running past {@code deadlineNanos} ({@link ConditionResult.Failure#budgetExceeded}) are returned as a
     * {@link ConditionResult.Failure}.
     *
     * @throws IllegalArgumentException if the payload is of another trigger action
     */
    public ConditionResult evaluate(Payload payload, long deadlineNanos, CostMeter cost) {
        checkAction(payload);
        if (ThreadClock.passed(deadlineNanos)) {
            return new ConditionResult.Failure("time budget exceeded before the rule ran", true);
        }
        return run(payload, deadlineNanos, cost);
    }

    /**
     * {@link #evaluate(Payload, long, CostMeter)}, without the deadline check before the condition starts: for a
     * caller that checks the deadline itself between conditions, as the evaluator does (reading the clock costs
     * about as much as evaluating a small condition). A condition that {@link #mayRunLong() may run long} is
     * still stopped past {@code deadlineNanos} while it runs.
     *
     * @throws IllegalArgumentException if the payload is of another trigger action
     */
    public ConditionResult evaluateWithoutStartCheck(Payload payload, long deadlineNanos, CostMeter cost) {
        checkAction(payload);
        return run(payload, deadlineNanos, cost);
    }

    /** {@link #evaluateWithoutStartCheck(Payload, long, CostMeter)} without a cost limit. */
    public ConditionResult evaluateWithoutStartCheck(Payload payload, long deadlineNanos) {
        return evaluateWithoutStartCheck(payload, deadlineNanos, CostMeter.unlimited());
    }

    /**
     * The most this condition can be charged ({@link CostMeter}) on any payload the payload check accepts, or
     * -1 when that is not bounded by the payload limits (docs/design.md §3.15). Computed once, from the checked
     * tree and the limits of docs/design.md §3.14, as cel-go's {@code EstimateCost} does; an over-estimate,
     * never an under-estimate.
     */
    public long costEstimate() {
        return costEstimate;
    }

    /**
     * Whether the condition can run long: it has a comprehension or more than {@value #WATCH_ABOVE_NODES}
     * sub-expressions, so it runs under the deadline listener (see the class comment). Any other condition
     * takes a small, fixed number of steps.
     */
    public boolean mayRunLong() {
        return watched;
    }

    private void checkAction(Payload payload) {
        if (payload.action() != action) {
            throw new IllegalArgumentException("payload of `" + payload.action() + "` given to a `" + action + "` condition");
        }
    }

    private ConditionResult run(Payload payload, long deadlineNanos, CostMeter cost) {
        if (compiled != null) {
            long before = cost.used();
            ConditionResult r = runCompiled(payload, cost, false, deadlineNanos);
            if (r != null) {
                return r;
            }
            cost.rewind(before); // cel-java evaluates it again and is charged instead
        }
        return interpret(payload, deadlineNanos, cost);
    }

    /**
     * The compiled form's result, or null when cel-java must evaluate the condition: the compiled form
     * deferred, or erred with an error it leaves to cel-java to word. With {@code raw} (for the differential
     * tests), never null: a deferral and an unworded error are failures with placeholder messages.
     */
    private ConditionResult runCompiled(Payload payload, CostMeter cost, boolean raw, long deadlineNanos) {
        try {
            cost.charge(upFront);
            ClosureCompiler.Frame frame = cost.frame(payload);
            frame.deadline = deadlineNanos;
            frame.iterations = 0;
            return result(compiled.eval(frame));
        } catch (EvalError e) {
            if (e.detail == null) {
                return raw ? new ConditionResult.Failure(WORDED_BY_CEL, false) : null;
            }
            Integer offset = ast.getSource().getPositionsMap().get(e.exprId);
            return new ConditionResult.Failure(runtimeMessage(offset, e.detail), false);
        } catch (EvalError.Defer e) {
            return raw ? new ConditionResult.Failure(DEFERRED, false) : null;
        } catch (CostMeter.Exceeded e) {
            return COST_EXCEEDED;
        } catch (BudgetExceeded e) {
            return TIME_EXCEEDED;
        } catch (TooLarge e) {
            return new ConditionResult.Failure(e.getMessage(), false);
        } catch (RuntimeException | StackOverflowError e) {
            // not expected: cel-java answers instead
            return raw ? new ConditionResult.Failure("compiled form threw " + e, false) : null;
        }
    }

    private static final ConditionResult.Failure TIME_EXCEEDED =
            new ConditionResult.Failure("time budget exceeded while the rule ran", true);
    private static final ConditionResult.Failure COST_EXCEEDED =
            new ConditionResult.Failure("cost budget exceeded while the rule ran", false, true);

    /** The placeholder message of {@link #evaluateCompiledOnly} for an error cel-java words. */
    static final String WORDED_BY_CEL = "<an error worded by cel-java>";
    /** The placeholder message of {@link #evaluateCompiledOnly} for a deferral to cel-java. */
    static final String DEFERRED = "<deferred to cel-java>";

    /**
     * For the differential tests: the compiled form's own result, without falling back on cel-java
     * ({@link #WORDED_BY_CEL} and {@link #DEFERRED} where {@link #evaluate} would ask cel-java).
     *
     * @throws IllegalStateException if the condition has no compiled form
     */
    ConditionResult evaluateCompiledOnly(Payload payload) {
        checkAction(payload);
        if (compiled == null) {
            throw new IllegalStateException("no compiled form: " + source);
        }
        return runCompiled(payload, CostMeter.unlimited(), true, Long.MAX_VALUE);
    }

    /** For the differential tests: the compiled form's result and the cost it was charged. */
    ConditionResult evaluateCompiledOnly(Payload payload, CostMeter cost) {
        checkAction(payload);
        if (compiled == null) {
            throw new IllegalStateException("no compiled form: " + source);
        }
        return runCompiled(payload, cost, true, Long.MAX_VALUE);
    }

    /** For the differential tests and benchmarks: the condition on cel-java, as if it had no compiled form. */
    ConditionResult evaluateInterpreted(Payload payload, long deadlineNanos) {
        return evaluateInterpreted(payload, deadlineNanos, CostMeter.unlimited());
    }

    /** For the differential tests: the condition on cel-java, charging {@code cost}. */
    ConditionResult evaluateInterpreted(Payload payload, long deadlineNanos, CostMeter cost) {
        checkAction(payload);
        return interpret(payload, deadlineNanos, cost);
    }

    private ConditionResult result(Object result) {
        if (result instanceof Boolean b) {
            return ConditionResult.of(b);
        }
        return new ConditionResult.Failure("condition returned " + describe(result) + ", not a boolean", false);
    }

    private ConditionResult interpret(Payload payload, long deadlineNanos, CostMeter cost) {
        Map<String, Map<String, Object>> sections = payload.sections();
        try {
            CelVariableResolver resolver = name -> Optional.ofNullable(sections.get(name));
            if (!CostMeter.COUNTING && !watched) {
                return result(program.eval(resolver)); // the benchmark of what counting costs only
            }
            return result(program.trace(resolver, new Watch(deadlineNanos, watched, cost, roles)));
        } catch (BudgetExceeded e) {
            return TIME_EXCEEDED;
        } catch (CostMeter.Exceeded e) {
            return COST_EXCEEDED;
        } catch (TooLarge e) {
            return new ConditionResult.Failure(e.getMessage(), false);
        } catch (CelEvaluationException e) {
            return new ConditionResult.Failure(runtimeMessage(e.getMessage()), false);
        } catch (RuntimeException | StackOverflowError e) {
            return new ConditionResult.Failure("internal error while evaluating: " + e.getClass().getSimpleName(), false);
        }
    }

    /** cel-java's runtime message, with the absent field named and the position as line:column. */
    String runtimeMessage(String raw) {
        if (raw == null) {
            return "evaluation failed";
        }
        Matcher m = RUNTIME_ERROR.matcher(raw);
        if (!m.matches()) {
            return IssueTranslator.style(raw);
        }
        return runtimeMessage(m.group(1) == null ? null : Integer.valueOf(m.group(1)), m.group(2));
    }

    /** cel-java's error detail at a code-point offset (null if unknown), worded as {@link #runtimeMessage(String)}. */
    String runtimeMessage(Integer offset, String rawDetail) {
        String detail = rawDetail.trim();
        String where = "";
        if (offset != null) {
            int[] lc = positions.lineColumn(positions.fieldNameAfterDot(offset));
            where = " (at " + lc[0] + ":" + lc[1] + ")";
        }
        Matcher absent = ABSENT_KEY.matcher(detail);
        if (absent.matches()) {
            String path = offset == null ? null : selectPathAt(offset, absent.group(1));
            if (path != null) {
                return "`" + path + "` is absent from the payload" + where;
            }
            return "key `" + absent.group(1) + "` is absent" + where;
        }
        Optional<CelExpr> index = offset == null ? Optional.empty() : indexAt(offset);
        if (index.isPresent() && !detail.startsWith("Index out of bounds")) {
            // cel-java words a key missing from a map (a literal, or a value of the payload) as the bare key:
            // `{'a': 1}['b']` fails with `b`, `{0: 1}[dyn(b'')]` with nothing at all
            return "key " + keyText(index.get().call().args().get(1), detail) + " is not in the map" + where;
        }
        return IssueTranslator.style(detail) + where;
    }

    /** The index expression ({@code m[k]}) cel-java reports an error at, if the error is at one. */
    private Optional<CelExpr> indexAt(int offset) {
        for (Map.Entry<Long, Integer> e : ast.getSource().getPositionsMap().entrySet()) {
            if (e.getValue() == offset) {
                Optional<CelExpr> expr = IssueTranslator.find(ast.getExpr(), e.getKey());
                if (expr.isPresent() && expr.get().getKind() == CelExpr.ExprKind.Kind.CALL
                        && expr.get().call().function().equals(CelSemantics.INDEX)
                        && expr.get().call().args().size() == 2) {
                    return expr;
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The key of an index as the condition wrote it, when it is a constant (possibly in {@code dyn(...)}):
     * {@code `'b'`}, {@code `1`}, {@code `b''`}; else cel-java's wording of the key value.
     */
    private static String keyText(CelExpr key, String detail) {
        CelExpr k = key;
        if (k.getKind() == CelExpr.ExprKind.Kind.CALL && k.call().function().equals("dyn")
                && k.call().args().size() == 1) {
            k = k.call().args().get(0);
        }
        if (k.getKind() == CelExpr.ExprKind.Kind.CONSTANT) {
            dev.cel.common.ast.CelConstant c = k.constant();
            switch (c.getKind()) {
                case STRING_VALUE -> {
                    return "`'" + c.stringValue() + "'`";
                }
                case INT64_VALUE -> {
                    return "`" + c.int64Value() + "`";
                }
                case UINT64_VALUE -> {
                    return "`" + c.uint64Value() + "u`";
                }
                case BOOLEAN_VALUE -> {
                    return "`" + c.booleanValue() + "`";
                }
                case DOUBLE_VALUE -> {
                    return "`" + c.doubleValue() + "`";
                }
                case BYTES_VALUE -> {
                    String text = c.bytesValue().toStringUtf8();
                    return text.isEmpty() ? "`b''` (empty bytes)" : "`b'" + text + "'` (bytes)";
                }
                default -> {
                }
            }
        }
        return detail.isEmpty() ? "(an empty value)" : "`" + detail + "`";
    }

    private String selectPathAt(int offset, String field) {
        for (Map.Entry<Long, Integer> e : ast.getSource().getPositionsMap().entrySet()) {
            if (e.getValue() == offset) {
                Optional<CelExpr> expr = IssueTranslator.find(ast.getExpr(), e.getKey());
                if (expr.isPresent() && expr.get().getKind() == CelExpr.ExprKind.Kind.SELECT
                        && expr.get().select().field().equals(field)) {
                    return ConditionAnalyzer.path(expr.get());
                }
            }
        }
        return null;
    }

    private static String describe(Object o) {
        if (o == null) {
            return "null";
        }
        if (o instanceof String) {
            return "a string";
        }
        if (o instanceof Long) {
            return "an integer";
        }
        if (o instanceof Double) {
            return "a number";
        }
        if (o instanceof Map) {
            return "a map";
        }
        if (o instanceof java.util.List) {
            return "a list";
        }
        return "a value of another type";
    }

    @Override
    public String toString() {
        return "CompiledCondition[" + action + ": " + source + "]";
    }

    /** Stops evaluation past the deadline; thrown as an {@link Error} so CEL's logical operators cannot absorb it. */
    static final class BudgetExceeded extends Error {
        static final BudgetExceeded INSTANCE = new BudgetExceeded();

        private BudgetExceeded() {
            super("time budget exceeded", null, false, false);
        }
    }

    /**
     * A value built during evaluation grew past its cap: an error of the rule (so fail-closed), thrown as an
     * {@link Error} for the same reason as {@link BudgetExceeded}.
     */
    static final class TooLarge extends Error {
        TooLarge(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Watches cel-java as it evaluates: charges the cost meter for every sub-expression it reports (see
     * {@link CostMeter} for what each is charged), stops a condition that may run long past the deadline (reading
     * the clock every {@value #CHECK_EVERY}th report), and stops as an error a string, list or map built along the
     * way that grows past {@value #MAX_BUILT_STRING} characters or {@value #MAX_BUILT_ELEMENTS} elements. Payload
     * fields are bounded when the payload is checked; this bounds what a rule builds from them (concatenations,
     * {@code map}/{@code filter} results), so no single step, a regex included, works on more than that. Each value
     * is checked when it is produced, so nothing larger than twice the cap is ever built. One per evaluation.
     */
    private static final class Watch implements CelEvaluationListener {
        private final long deadlineNanos;
        private final boolean clock;
        private final CostMeter cost;
        private final CostRoles roles;
        private int calls;
        private final long[] stash = new long[1];

        Watch(long deadlineNanos, boolean clock, CostMeter cost, CostRoles roles) {
            this.deadlineNanos = deadlineNanos;
            this.clock = clock;
            this.cost = cost;
            this.roles = roles;
        }

        @Override
        public void callback(CelExpr expr, Object result) {
            if (result instanceof String s && s.length() > MAX_BUILT_STRING) {
                throw new TooLarge("a string grew to " + s.length() + " characters, more than " + MAX_BUILT_STRING);
            }
            if (result instanceof java.util.Collection<?> c && c.size() > MAX_BUILT_ELEMENTS) {
                throw new TooLarge("a list grew to " + c.size() + " elements, more than " + MAX_BUILT_ELEMENTS);
            }
            if (result instanceof Map<?, ?> m && m.size() > MAX_BUILT_ELEMENTS) {
                throw new TooLarge("a map grew to " + m.size() + " entries, more than " + MAX_BUILT_ELEMENTS);
            }
            cost.charge(1 + roles.charge(expr.id(), result, stash));
            if (clock && ++calls % CHECK_EVERY == 0 && ThreadClock.passed(deadlineNanos)) {
                throw BudgetExceeded.INSTANCE;
            }
        }
    }
}
