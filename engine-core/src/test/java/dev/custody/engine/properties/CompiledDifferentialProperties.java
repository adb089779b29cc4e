package dev.custody.engine.properties;

import dev.custody.engine.compile.ThreadClock;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.custody.engine.Fixtures;
import dev.custody.engine.compile.CompileResult;
import dev.custody.engine.compile.CompiledAccess;
import dev.custody.engine.compile.CompiledCondition;
import dev.custody.engine.compile.CostMeter;
import dev.custody.engine.compile.ConditionResult;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.Payload;
import dev.custody.engine.check.PayloadResult;
import dev.custody.engine.check.PayloadValidator;
import dev.custody.engine.schema.TriggerAction;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * The compiled evaluation path against cel-java's interpreter: for random conditions
 * ({@link DifferentialConditions}) times random payloads ({@link Payloads} with numeric boundaries), the
 * compiled form alone yields exactly what cel-java yields (the same boolean, or an error with the same
 * message, or an error cel-java words itself), and {@link CompiledCondition#evaluate} (the compiled form with
 * its fallback) the very same {@link ConditionResult} as cel-java.
 *
 * <p>{@link #compiledAgreesWithCelJava} runs 2,000 conditions times 10 payloads in {@code verify} and reports
 * (jqwik statistics) how many conditions had no compiled form. For a long run (not part of {@code verify}):
 * <pre>
 * ./mvnw -B -pl engine-schema,engine-core verify -Dtest=CompiledDifferentialProperties \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Ddifferential.tries=100000
 * </pre>
 * ({@value #PAYLOADS} payloads per condition, so 100,000 tries are 1,000,000 pairs), which
 * {@link #longRun} samples outside jqwik's try loop and summarises on stdout.
 */
class CompiledDifferentialProperties {
    static final int PAYLOADS = 10;
    private static final RuleCompiler COMPILER = RuleCompiler.create();
    private static final long HOUR = 3_600_000_000_000L;

    @Property(tries = 2000)
    void compiledAgreesWithCelJava(@ForAll("cases") Tuple.Tuple3<TriggerAction, String, List<Payload>> t) {
        Outcome o = check(t.get1(), t.get2(), t.get3());
        Statistics.label("compiled form").collect(o.describe());
    }

    /** Comprehensions, which run compiled unless a step fails (then cel-java runs the condition). */
    @Property(tries = 600)
    void compiledComprehensionsAgreeWithCelJava(@ForAll("comprehensionCases") Tuple.Tuple3<TriggerAction, String, List<Payload>> t) {
        Outcome o = check(t.get1(), t.get2(), t.get3());
        Statistics.label("compiled form").collect(o.describe());
    }

    @Provide
    static Arbitrary<Tuple.Tuple3<TriggerAction, String, List<Payload>>> comprehensionCases() {
        return Arbitraries.of(TriggerAction.class).flatMap(a -> Combinators.combine(DifferentialConditions.comprehensions(a),
                Payloads.of(a, true).map(CompiledDifferentialProperties::check).filter(Objects::nonNull)
                        .list().ofSize(PAYLOADS))
                .as((c, ps) -> Tuple.of(a, c, ps)));
    }

    /**
     * A long run when {@code -Ddifferential.tries=N} is set: N conditions that compile, {@value #PAYLOADS} payloads
     * each ({@link #cases}, or {@link #comprehensionCases} with {@code -Ddifferential.comprehensions=true}). The first
     * disagreement fails it; the summary on stdout comes only after a run without one, with the conditions that have
     * no compiled form counted by what keeps them on cel-java.
     */
    @Example
    void longRun() {
        long tries = Long.getLong("differential.tries", 0);
        if (tries == 0) {
            return;
        }
        AtomicLong pairs = new AtomicLong();
        AtomicLong compiled = new AtomicLong();
        AtomicLong interpretedOnly = new AtomicLong();
        AtomicLong invalid = new AtomicLong();
        long start = System.nanoTime();
        // conditions that do not compile give no pairs: sample until the pairs reach tries x PAYLOADS
        java.util.Iterator<Tuple.Tuple3<TriggerAction, String, List<Payload>>> samples =
                (Boolean.getBoolean("differential.comprehensions") ? comprehensionCases() : cases()).sampleStream().iterator();
        java.util.Map<String, Long> why = new java.util.TreeMap<>();
        long conditions = 0;
        while (pairs.get() < tries * PAYLOADS) {
            Tuple.Tuple3<TriggerAction, String, List<Payload>> t = samples.next();
            conditions++;
            Outcome o = check(t.get1(), t.get2(), t.get3());
            pairs.addAndGet(o == Outcome.INVALID ? 0 : t.get3().size());
            switch (o) {
                case COMPILED -> compiled.incrementAndGet();
                case CEL_ONLY -> {
                    interpretedOnly.incrementAndGet();
                    why.merge(whyInterpreted(t.get2()), 1L, Long::sum);
                }
                default -> invalid.incrementAndGet();
            }
        }
        System.out.printf("differential long run: %d conditions (%d with a compiled form, %d without, %d did not compile),"
                + " %d condition-payload pairs, 0 disagreements, %.1f s%n", conditions, compiled.get(), interpretedOnly.get(),
                invalid.get(), pairs.get(), (System.nanoTime() - start) / 1e9);
        System.out.println("without a compiled form, by construct: " + why);
    }

    /** What keeps a condition on cel-java, for the long run's count (the first construct found, in this order). */
    static String whyInterpreted(String condition) {
        if (condition.contains("uint(") || condition.matches("(?s).*\\du\\b.*")) {
            return "unsigned integers";
        }
        if (condition.contains("type(")) {
            return "type()";
        }
        if (condition.matches("(?s).*\\.(all|exists|exists_one|map|filter)\\((.*)")) {
            return "other, with a comprehension";
        }
        return "other";
    }

    private enum Outcome {
        COMPILED, CEL_ONLY, INVALID;

        String describe() {
            return switch (this) {
                case COMPILED -> "compiled";
                case CEL_ONLY -> "cel-java only";
                case INVALID -> "does not compile";
            };
        }
    }

    private static Outcome check(TriggerAction action, String condition, List<Payload> payloads) {
        CompileResult r = COMPILER.compile(action, condition);
        if (r.condition().isEmpty()) {
            return Outcome.INVALID;
        }
        CompiledCondition c = r.condition().get();
        for (Payload p : payloads) {
            long deadline = ThreadClock.now() + HOUR;
            ConditionResult cel = CompiledAccess.interpreted(c, p, deadline);
            ConditionResult ours = c.evaluate(p, deadline);
            if (!same(cel, ours)) {
                assertEquals(cel, ours, () -> "evaluate: `" + condition + "` on " + p.sections());
            }
            if (c.compiled()) {
                ConditionResult alone = CompiledAccess.compiledOnly(c, p);
                Statistics.label("compiled result").collect(alone instanceof ConditionResult.Value v ? String.valueOf(v.value())
                        : ((ConditionResult.Failure) alone).message().equals(CompiledAccess.WORDED_BY_CEL)
                        ? "error worded by cel-java" : "error");
                if (alone instanceof ConditionResult.Failure f && f.message().equals(CompiledAccess.WORDED_BY_CEL)) {
                    assertTrue(cel instanceof ConditionResult.Failure cf && !cf.budgetExceeded(),
                            () -> "compiled form erred, cel-java gave " + cel + ": `" + condition + "` on " + p.sections());
                } else if (alone instanceof ConditionResult.Failure f && f.message().equals(CompiledAccess.DEFERRED)) {
                    // a comprehension hands over to cel-java when a step fails (cel-java carries the error in the
                    // accumulator) or past the iteration limit; nothing else defers on a validated payload
                    assertTrue(COMPREHENSION.matcher(condition).find(),
                            () -> "compiled form deferred on a validated payload: `" + condition + "` on " + p.sections());
                    Statistics.label("comprehension handed over").collect(true);
                } else if (!same(cel, alone)) {
                    fail("compiled form gave " + alone + ", cel-java " + cel + ": `" + condition + "` on " + p.sections());
                }
                if (alone instanceof ConditionResult.Value && cel instanceof ConditionResult.Value) {
                    // the cost model (CostMeter): cel-java is charged per node it evaluates, the compiled form every
                    // node up front; beyond that both are charged the same for the same work
                    CostMeter celCost = CostMeter.unlimited();
                    CostMeter ourCost = CostMeter.unlimited();
                    CompiledAccess.interpreted(c, p, deadline, celCost);
                    CompiledAccess.compiledOnly(c, p, ourCost);
                    long nodes = CompiledAccess.nodes(c);
                    if (ourCost.used() < celCost.used() || ourCost.used() > celCost.used() + nodes) {
                        fail("compiled form charged " + ourCost.used() + ", cel-java " + celCost.used() + " (" + nodes
                                + " nodes): `" + condition + "` on " + p.sections());
                    }
                }
            }
        }
        return c.compiled() ? Outcome.COMPILED : Outcome.CEL_ONLY;
    }

    /**
     * Equal results, or a division by zero that cel-java words {@code / by zero} until HotSpot compiles its
     * division and replaces the implicit {@link ArithmeticException} with a preallocated one without a message
     * (OmitStackTraceInFastThrow): from then on cel-java's message is empty. The compiled form always says
     * {@code / by zero}.
     */
    static boolean same(ConditionResult cel, ConditionResult ours) {
        if (Objects.equals(cel, ours)) {
            return true;
        }
        return cel instanceof ConditionResult.Failure c && ours instanceof ConditionResult.Failure o
                && !c.budgetExceeded() && !o.budgetExceeded() && EMPTY_DETAIL.matcher(c.message()).matches()
                && o.message().equals("/ by zero" + c.message());
    }

    private static final Pattern COMPREHENSION = Pattern.compile("\\.(all|exists|exists_one|map|filter)\\(");
    private static final Pattern EMPTY_DETAIL = Pattern.compile(" \\(at \\d+:\\d+\\)");

    @Provide
    static Arbitrary<Tuple.Tuple3<TriggerAction, String, List<Payload>>> cases() {
        return Arbitraries.of(TriggerAction.class).flatMap(a -> Combinators.combine(DifferentialConditions.of(a),
                Payloads.of(a, true).map(CompiledDifferentialProperties::check).filter(Objects::nonNull)
                        .list().ofSize(PAYLOADS))
                .as((c, ps) -> Tuple.of(a, c, ps)));
    }

    private static Payload check(Action a) {
        return PayloadValidator.validate(a, Fixtures.TUESDAY_14H) instanceof PayloadResult.Valid v ? v.payload() : null;
    }
}
