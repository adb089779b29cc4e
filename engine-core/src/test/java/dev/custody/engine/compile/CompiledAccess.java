package dev.custody.engine.compile;

import dev.cel.common.ast.CelExpr;
import dev.cel.runtime.CelVariableResolver;
import dev.custody.engine.check.Payload;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Test access to {@link CompiledCondition}'s two evaluation paths, for the differential properties in
 * {@code dev.custody.engine.properties}: the compiled form alone (no fallback on cel-java) and cel-java alone;
 * and for the differential harness ({@code DifferentialHarness}), the boolean value of every sub-expression as
 * cel-java evaluates it and as the branch probe of coverage ({@link BranchProbe}) evaluates it.
 */
public final class CompiledAccess {
    /** The placeholder message of the compiled form's result for an error it leaves cel-java to word. */
    public static final String WORDED_BY_CEL = CompiledCondition.WORDED_BY_CEL;
    /** The placeholder message of the compiled form's result when it defers to cel-java. */
    public static final String DEFERRED = CompiledCondition.DEFERRED;

    private CompiledAccess() {}

    /** The compiled form's own result; the condition must have one. */
    public static ConditionResult compiledOnly(CompiledCondition c, Payload p) {
        return c.evaluateCompiledOnly(p);
    }

    /** The compiled form's own result, charging {@code cost}; the condition must have one. */
    public static ConditionResult compiledOnly(CompiledCondition c, Payload p, CostMeter cost) {
        return c.evaluateCompiledOnly(p, cost);
    }

    /** cel-java's result, charging {@code cost}. */
    public static ConditionResult interpreted(CompiledCondition c, Payload p, long deadlineNanos, CostMeter cost) {
        return c.evaluateInterpreted(p, deadlineNanos, cost);
    }

    /** The number of nodes of the condition's checked tree: what its compiled form is charged up front. */
    public static long nodes(CompiledCondition c) {
        return c.nodes();
    }

    /** cel-java's result. */
    public static ConditionResult interpreted(CompiledCondition c, Payload p, long deadlineNanos) {
        return c.evaluateInterpreted(p, deadlineNanos);
    }

    /**
     * The booleans cel-java gives each sub-expression it evaluates on this payload (by expression id, each
     * value in the order it was reported; a sub-expression inside a comprehension may be reported many times).
     * Sub-expressions that fail or give another type are not reported, as with coverage's listener.
     */
    public static Map<Long, List<Boolean>> celBooleans(CompiledCondition c, Payload p) {
        Map<String, Map<String, Object>> sections = p.sections();
        CelVariableResolver resolver = name -> Optional.ofNullable(sections.get(name));
        Map<Long, List<Boolean>> out = new HashMap<>();
        try {
            c.program().trace(resolver, (expr, result) -> {
                if (result instanceof Boolean b) {
                    out.computeIfAbsent(expr.id(), k -> new ArrayList<>(1)).add(b);
                }
            });
        } catch (Exception | StackOverflowError e) {
            // the evaluation failed; what was reported before stands, as for coverage
        }
        return out;
    }

    /** The checked tree's root expression. */
    public static CelExpr root(CompiledCondition c) {
        return c.ast().getExpr();
    }

    /** The expression ids of the checked tree that are not constants, sorted. */
    public static long[] nonConstantIds(CompiledCondition c) {
        List<Long> ids = new ArrayList<>();
        CostRoles.walk(c.ast().getExpr(), e -> {
            if (e.getKind() != CelExpr.ExprKind.Kind.CONSTANT) {
                ids.add(e.id());
            }
        });
        return ids.stream().mapToLong(Long::longValue).sorted().distinct().toArray();
    }

    /**
     * The branch probe of coverage ({@link BranchProbe}, the evaluator {@link ConditionBranches} uses when a
     * condition is inside its fragment) built to note the boolean value of every sub-expression in {@code ids}
     * (sorted; constants must not be among them: the probe takes a noted constant in an {@code in} list for a
     * computed one), or empty when the condition is outside the probe's fragment.
     */
    public static Optional<Probe> probe(CompiledCondition c, long[] ids) {
        BranchProbe probe = BranchProbe.build(c.ast().getExpr(), id -> {
            int i = Arrays.binarySearch(ids, id);
            return i >= 0 ? i : -1;
        });
        return probe == null ? Optional.empty() : Optional.of(new Probe(probe, ids.length));
    }

    /** A built branch probe; see {@link #probe}. */
    public static final class Probe {
        private final BranchProbe probe;
        private final int size;

        private Probe(BranchProbe probe, int size) {
            this.probe = probe;
            this.size = size;
        }

        /**
         * The probe's outcomes on a payload, one byte per id given to {@link #probe}: 0 not evaluated (or not a
         * boolean: an error), 1 true, 2 false; empty when the probe gave up on a value it was not built for.
         */
        public Optional<byte[]> run(Payload p) {
            byte[] outcomes = new byte[size];
            try {
                probe.run(p.sections(), outcomes);
            } catch (BranchProbe.Unsure e) {
                return Optional.empty();
            }
            return Optional.of(outcomes);
        }
    }

    /** A sub-expression's text, unparsed from the checked tree (for messages), or its id when it cannot be. */
    public static String text(CompiledCondition c, long id) {
        Optional<CelExpr> e = IssueTranslator.find(c.ast().getExpr(), id);
        if (e.isEmpty()) {
            return "#" + id;
        }
        try {
            return dev.cel.parser.CelUnparserFactory.newUnparser().unparse(
                    dev.cel.common.CelAbstractSyntaxTree.newParsedAst(e.get(), c.ast().getSource()));
        } catch (RuntimeException ex) {
            return "#" + id;
        }
    }

    /**
     * Every value cel-java reports for each sub-expression it evaluates on this payload (by expression id, in the
     * order reported), for planted divergences that need the operands of a comparison.
     */
    public static Map<Long, List<Object>> celValues(CompiledCondition c, Payload p) {
        Map<String, Map<String, Object>> sections = p.sections();
        CelVariableResolver resolver = name -> Optional.ofNullable(sections.get(name));
        Map<Long, List<Object>> out = new HashMap<>();
        try {
            c.program().trace(resolver, (expr, result) -> out.computeIfAbsent(expr.id(), k -> new ArrayList<>(1)).add(result));
        } catch (Exception | StackOverflowError e) {
            // the evaluation failed; what was reported before stands
        }
        return out;
    }
}
