package dev.custody.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.z3.Context;
import dev.cel.common.Operator;
import dev.cel.common.ast.CelExpr;
import dev.custody.engine.compile.CompiledAccess;
import dev.custody.engine.compile.CompiledCondition;
import dev.custody.engine.compile.ConditionResult;
import dev.custody.engine.properties.DifferentialHarness;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;
import net.jqwik.api.RandomGenerator;
import net.jqwik.api.Example;

/**
 * The differential harness catches a divergence planted in each of its parts (the five of docs/design.md §10.2 and the
 * guard analysis): a wrong variant of the part
 * replaces the real one, the harness runs on generated pairs (a fixed seed) until it reports a disagreement, and
 * the disagreement must name the planted part, with the condition, the action and both values, on a pair where
 * the real parts do not give that disagreement. Each caught divergence is printed.
 */
class PlantedDivergenceTest {
    /** Conditions tried before giving up on finding the planted divergence. */
    private static final int MAX_CONDITIONS = 1_000;
    private static final double TWO_53 = 9007199254740992.0;

    /** cel-java's result negated when the action holds a number whose magnitude is 2^53. */
    @Example
    void aReferenceThatFlipsAtTwoToThe53IsNamed() {
        DifferentialHarness.Reference real = DifferentialHarness.celJava();
        DifferentialHarness.Reference planted = (c, p) -> {
            ConditionResult r = real.evaluate(c, p);
            return holdsTwoTo53(p.sections()) && r instanceof ConditionResult.Value v ? ConditionResult.of(!v.value()) : r;
        };
        DifferentialHarness.Disagreement d = caught(DifferentialHarness.CEL_JAVA,
                z3 -> new DifferentialHarness(planted, parts(z3, null)));
        assertTrue(holdsTwoTo53(d.payload()), d::toString);
    }

    /** The compiled path comparing an int with a double as exact values, not as cel-java does. */
    @Example
    void aCompiledPathComparingIntAndDoubleExactlyIsNamed() {
        DifferentialHarness.Part planted = new DifferentialHarness.CompiledPart() {
            @Override
            protected ConditionResult compiledOnly(DifferentialHarness.Pair pair) {
                return exactly(pair, super.compiledOnly(pair));
            }

            @Override
            protected ConditionResult withFallback(DifferentialHarness.Pair pair) {
                return exactly(pair, super.withFallback(pair));
            }
        };
        DifferentialHarness.Disagreement d = caught(DifferentialHarness.COMPILED,
                z3 -> new DifferentialHarness(DifferentialHarness.celJava(), parts(z3, planted)));
        assertTrue(d.condition().matches("(?s).*[<>].*"), d::toString);
    }

    /** A probe that reports the outcome of every operand of `?:` inverted. */
    @Example
    void aProbeInvertingTheOperandsOfTheConditionalIsNamed() {
        DifferentialHarness.Part planted = new DifferentialHarness.ProbePart() {
            @Override
            protected Optional<byte[]> outcomes(DifferentialHarness.Pair pair, long[] ids, CompiledAccess.Probe probe) {
                Optional<byte[]> real = super.outcomes(pair, ids, probe);
                Set<Long> operands = conditionalOperands(pair.compiled());
                real.ifPresent(o -> {
                    for (int i = 0; i < ids.length; i++) {
                        if (operands.contains(ids[i]) && o[i] != 0) {
                            o[i] = (byte) (3 - o[i]);
                        }
                    }
                });
                return real;
            }
        };
        DifferentialHarness.Disagreement d = caught(DifferentialHarness.PROBE,
                z3 -> new DifferentialHarness(DifferentialHarness.celJava(), parts(z3, planted)));
        assertTrue(d.condition().contains("?"), d::toString);
    }

    /**
     * A formula that drops its error: an unguarded read of an absent optional field or a missing decoded argument,
     * an int overflow, all taken as never failing.
     */
    @Example
    void aFormulaWithoutTheErrorOfAnUnguardedReadIsNamed() {
        DifferentialHarness.Disagreement d = caught(Z3Part.NAME, z3 -> null, () -> new Z3Part() {
            @Override
            protected ConditionEncoder.Encoded encode(Context ctx, ActionSpace space, CompiledCondition c) throws OutsideFragment {
                return new ConditionEncoder.Encoded(super.encode(ctx, space, c).value(), ctx.mkFalse());
            }
        });
        assertTrue(d.reference().startsWith("Failure"), d::toString);
    }

    /** A cost estimate lowered to the node count: it forgets what strings and lists are charged. */
    @Example
    void aLoweredCostEstimateIsNamed() {
        DifferentialHarness.Part planted = new DifferentialHarness.CostPart() {
            @Override
            protected long estimate(DifferentialHarness.Pair pair) {
                return CompiledAccess.nodes(pair.compiled());
            }
        };
        caught(DifferentialHarness.COST, z3 -> new DifferentialHarness(DifferentialHarness.celJava(), parts(z3, planted)));
    }

    /** A guard analysis that calls every read guarded (it never warns). */
    @Example
    void aGuardAnalysisThatNeverWarnsIsNamed() {
        DifferentialHarness.Part planted = new DifferentialHarness.GuardPart() {
            @Override
            protected Set<String> unguarded(DifferentialHarness.Pair pair) {
                return Set.of();
            }
        };
        DifferentialHarness.Disagreement d = caught(DifferentialHarness.GUARDS,
                z3 -> new DifferentialHarness(DifferentialHarness.celJava(), parts(z3, planted)));
        assertTrue(d.reference().contains("is absent from the payload"), d::toString);
    }

    // ---- the search ----

    /** The real parts with the solver's part {@code z3}, one replaced by {@code planted} (same name) when given. */
    private static List<DifferentialHarness.Part> parts(DifferentialHarness.Part z3, DifferentialHarness.Part planted) {
        List<DifferentialHarness.Part> out = new ArrayList<>();
        for (DifferentialHarness.Part p : DifferentialHarnessProperties.harnessParts(z3)) {
            out.add(planted != null && planted.name().equals(p.name()) ? planted : p);
        }
        return out;
    }

    private static DifferentialHarness.Disagreement caught(String part,
            java.util.function.Function<DifferentialHarness.Part, DifferentialHarness> plantedHarness) {
        return caught(part, plantedHarness, null);
    }

    /**
     * Runs generated cases through the planted harness (or the real parts with {@code plantedZ3} as the solver's
     * part) until a disagreement names {@code part}; checks it and that the real parts do not give it.
     */
    private static DifferentialHarness.Disagreement caught(String part,
            java.util.function.Function<DifferentialHarness.Part, DifferentialHarness> plantedHarness,
            java.util.function.Supplier<Z3Part> plantedZ3) {
        RandomGenerator<DifferentialHarness.Case> cases = DifferentialHarness.cases().generator(1000);
        Random random = new Random(23);
        try (Z3Part z3 = plantedZ3 != null ? plantedZ3.get() : new Z3Part(); Z3Part realZ3 = new Z3Part()) {
            DifferentialHarness planted = plantedZ3 != null ? DifferentialHarnessProperties.harness(z3) : plantedHarness.apply(z3);
            DifferentialHarness real = DifferentialHarnessProperties.harness(realZ3);
            for (int i = 0; i < MAX_CONDITIONS; i++) {
                DifferentialHarness.Case c = cases.next(random).value();
                Optional<DifferentialHarness.Disagreement> d = planted.check(c).stream()
                        .filter(x -> x.part().equals(part)).findFirst();
                if (d.isEmpty()) {
                    continue;
                }
                DifferentialHarness.Disagreement found = d.get();
                // the same pairs through the real parts: a pair where the real part disagrees too shows nothing
                List<DifferentialHarness.Disagreement> again = real.check(c);
                if (again.stream().anyMatch(x -> x.part().equals(part) && x.payload().equals(found.payload()))) {
                    continue;
                }
                assertEquals(c.condition(), found.condition());
                assertEquals(c.action(), found.action());
                assertNotNull(found.payload());
                assertNotEquals(found.ours(), found.reference(), found::toString);
                assertTrue(found.toString().startsWith(part + " disagrees with ") && found.toString().contains(" on "
                        + c.action().wireName() + " `" + c.condition() + "` with "), found::toString);
                System.out.println("planted divergence caught after " + (i + 1) + " conditions (" + planted.pairs()
                        + " pairs): " + found);
                return found;
            }
        }
        throw new AssertionError("no disagreement named " + part + " in " + MAX_CONDITIONS + " conditions");
    }

    // ---- what the planted parts need ----

    private static boolean holdsTwoTo53(Map<String, Map<String, Object>> sections) {
        for (Map<String, Object> s : sections.values()) {
            for (Object v : s.values()) {
                if (v instanceof Number n && !(v instanceof Double d && d.isNaN())
                        && Math.abs(n.doubleValue()) == TWO_53 && (v instanceof Double || Math.abs(n.longValue()) == (long) TWO_53)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * {@code result} negated when a comparison of an int with a double that cel-java evaluated once on this pair
     * comes out the other way compared exactly (as rationals): what a compiled path comparing them exactly gives
     * where that comparison decides.
     */
    private static ConditionResult exactly(DifferentialHarness.Pair pair, ConditionResult result) {
        if (!(result instanceof ConditionResult.Value v)) {
            return result;
        }
        Map<Long, List<Object>> values = CompiledAccess.celValues(pair.compiled(), pair.payload());
        boolean[] differs = {false};
        walk(CompiledAccess.root(pair.compiled()), e -> {
            if (e.getKind() != CelExpr.ExprKind.Kind.CALL || e.call().args().size() != 2) {
                return;
            }
            Optional<Operator> op = Operator.findReverse(e.call().function());
            if (op.isEmpty() || !List.of(Operator.LESS, Operator.LESS_EQUALS, Operator.GREATER, Operator.GREATER_EQUALS)
                    .contains(op.get())) {
                return;
            }
            List<Object> l = values.get(e.call().args().get(0).id());
            List<Object> r = values.get(e.call().args().get(1).id());
            List<Object> cel = values.get(e.id());
            if (l == null || r == null || cel == null || l.size() != 1 || r.size() != 1 || cel.size() != 1
                    || !(cel.get(0) instanceof Boolean celSays)) {
                return;
            }
            BigDecimal x = exact(l.get(0));
            BigDecimal y = exact(r.get(0));
            if (x == null || y == null || (l.get(0) instanceof Long) == (r.get(0) instanceof Long)) {
                return;
            }
            int c = x.compareTo(y);
            boolean exactSays = switch (op.get()) {
                case LESS -> c < 0;
                case LESS_EQUALS -> c <= 0;
                case GREATER -> c > 0;
                default -> c >= 0;
            };
            differs[0] |= exactSays != celSays;
        });
        return differs[0] ? ConditionResult.of(!v.value()) : result;
    }

    private static BigDecimal exact(Object o) {
        if (o instanceof Long l) {
            return BigDecimal.valueOf(l);
        }
        if (o instanceof Double d && Double.isFinite(d)) {
            return new BigDecimal(d);
        }
        return null;
    }

    /** The ids of the operands of every {@code ?:} of the condition. */
    private static Set<Long> conditionalOperands(CompiledCondition c) {
        Set<Long> out = new HashSet<>();
        walk(CompiledAccess.root(c), e -> {
            if (e.getKind() == CelExpr.ExprKind.Kind.CALL && e.call().function().equals(Operator.CONDITIONAL.getFunction())) {
                e.call().args().forEach(a -> out.add(a.id()));
            }
        });
        return out;
    }

    private static void walk(CelExpr e, Consumer<CelExpr> visit) {
        visit.accept(e);
        switch (e.getKind()) {
            case SELECT -> walk(e.select().operand(), visit);
            case CALL -> {
                e.call().target().ifPresent(t -> walk(t, visit));
                e.call().args().forEach(a -> walk(a, visit));
            }
            case LIST -> e.list().elements().forEach(x -> walk(x, visit));
            default -> {
                // constants, identifiers; comprehensions are not walked (their comparisons run many times)
            }
        }
    }
}
