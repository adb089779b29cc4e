package dev.custody.engine.bench;

import dev.custody.engine.internal.bundle.PolicyBundle;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.Decision;
import dev.custody.engine.TestEvaluator;
import dev.custody.engine.payload.Action;
import dev.custody.engine.validate.PolicyValidator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Deciding one withdrawal against {@link Realistic}'s bundle (19 kept-able withdrawal rules in 7 policies):
 * our evaluator ({@link TestEvaluator}) (payload check, context, wallet targeting, time budget, fail-closed, attribution)
 * with the conditions' compiled forms ({@code ours}) and with every condition on cel-java's interpreter
 * ({@code oursCelJava}: the same evaluator, the bundle compiled with {@code compiledEvaluation(false)}),
 * against the same rules on raw cel-java ({@link RawCelEngine}: {@code map(string, dyn)} sections,
 * {@code program.eval(Map)} per kept rule, DENY over ALLOW coded by hand) and hand-written Java
 * ({@link HandWrittenEngine}). Each invocation decides the next action of a seeded stream of 256 in one of
 * three {@link Workload} mixes. The setup checks that the three agree on every action.
 *
 * <p>Run (from the repository root; results and their reading in {@code engine-core/BENCHMARKS.md}):
 * <pre>
 * ./mvnw -B -pl engine-core -am -Pbench -DskipTests verify -Djmh.args="EvaluateBenchmark -f 1 -wi 3 -i 5 -w 1s -r 1s"
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class EvaluateBenchmark {
    @Param({"mostlyNoMatch", "denyEarly", "allow"})
    public String mix;

    private static final int STREAM = 256;

    private PolicyBundle bundle;
    private PolicyBundle celJavaBundle;
    private TestEvaluator evaluator;
    private RawCelEngine raw;
    private HandWrittenEngine hand;
    private Action[] actions;
    private int next;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        bundle = PolicyBundle.compile(Realistic.policies(), new PolicyValidator(RuleCompiler.create()));
        if (!bundle.valid()) {
            throw new IllegalStateException("benchmark bundle is invalid: " + bundle.errors());
        }
        celJavaBundle = PolicyBundle.compile(Realistic.policies(),
                new PolicyValidator(RuleCompiler.builder().compiledEvaluation(false).build()));
        if (bundle.compiledRuleCount() != bundle.ruleCount() || celJavaBundle.compiledRuleCount() != 0) {
            throw new IllegalStateException("expected every rule compiled in one bundle and none in the other: "
                    + bundle.compiledRuleCount() + "/" + bundle.ruleCount() + ", " + celJavaBundle.compiledRuleCount());
        }
        evaluator = TestEvaluator.create();
        raw = new RawCelEngine(Realistic.POLICIES);
        hand = new HandWrittenEngine();
        List<Action> stream = Workload.mix(mix, STREAM, 42);
        actions = stream.toArray(new Action[0]);
        // the agreement check runs cold (interpreted, maybe under a profiler): a generous budget keeps a slow
        // first pass from turning into a time-out DENY
        TestEvaluator patient = TestEvaluator.builder().timeBudget(java.time.Duration.ofMinutes(1)).build();
        for (Action a : actions) {
            Decision d = patient.evaluate(bundle, a);
            Verdict ours = new Verdict(d.outcome(), d.ruleId(), d.failClosed());
            Decision c = patient.evaluate(celJavaBundle, a);
            Verdict celJava = new Verdict(c.outcome(), c.ruleId(), c.failClosed());
            if (!ours.equals(celJava) || !ours.equals(raw.decide(a)) || !ours.equals(hand.decide(a))) {
                throw new IllegalStateException("engines disagree on " + a + ": ours " + ours + " (" + d.error()
                        + "), raw " + raw.decide(a) + ", hand-written " + hand.decide(a));
            }
        }
    }

    private Action nextAction() {
        Action a = actions[next];
        next = (next + 1) & (STREAM - 1);
        return a;
    }

    @Benchmark
    public Decision ours() {
        return evaluator.evaluate(bundle, nextAction());
    }

    @Benchmark
    public Decision oursCelJava() {
        return evaluator.evaluate(celJavaBundle, nextAction());
    }

    @Benchmark
    public Verdict rawCel() {
        return raw.decide(nextAction());
    }

    @Benchmark
    public Verdict handWritten() {
        return hand.decide(nextAction());
    }
}
