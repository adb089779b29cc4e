package dev.custody.engine.bench;

import dev.custody.engine.internal.bundle.PolicyBundle;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.TestEvaluator;
import dev.custody.engine.payload.Action;
import dev.custody.engine.validate.PolicyValidator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * A cross-check of {@link EvaluateBenchmark} for a busy machine: the four engines (ours compiled, ours on
 * cel-java only, raw cel-java, hand-written) run in the same JVM in short alternating rounds (rotating which
 * goes first), so a burst of load from other processes hits all alike; it prints the median and the fastest round per engine and mix, and the ratios of medians.
 * Not a JMH benchmark (no forks, a hand-rolled warm-up), so use it for ratios, not absolute figures.
 *
 * <pre>
 * ./mvnw -B -pl engine-core -am -Pbench -DskipTests verify -Dbench.main=dev.custody.engine.bench.Interleaved -Djmh.args=40
 * </pre>
 */
public final class Interleaved {
    private static volatile Object sink;

    private Interleaved() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        int perRound = 4096;
        PolicyBundle bundle = PolicyBundle.compile(Realistic.policies(), new PolicyValidator(RuleCompiler.create()));
        PolicyBundle celJavaBundle = PolicyBundle.compile(Realistic.policies(),
                new PolicyValidator(RuleCompiler.builder().compiledEvaluation(false).build()));
        TestEvaluator evaluator = TestEvaluator.create();
        RawCelEngine raw = new RawCelEngine(Realistic.POLICIES);
        HandWrittenEngine hand = new HandWrittenEngine();
        List<String> names = List.of("ours", "oursCelJava", "rawCel", "handWritten");
        int n = names.size();
        System.out.printf(Locale.ROOT, "%-14s %-12s %12s %12s%n", "mix", "engine", "median ns/op", "min ns/op");
        for (String mix : Workload.MIXES) {
            Action[] actions = Workload.mix(mix, 256, 42).toArray(new Action[0]);
            List<Function<Action, Object>> engines = List.of(a -> evaluator.evaluate(bundle, a),
                    a -> evaluator.evaluate(celJavaBundle, a), raw::decide, hand::decide);
            for (int w = 0; w < 30; w++) { // warm-up: let the JIT compile all three
                for (Function<Action, Object> e : engines) {
                    time(e, actions, perRound);
                }
            }
            List<double[]> samples = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                samples.add(new double[rounds]);
            }
            for (int r = 0; r < rounds; r++) {
                for (int k = 0; k < n; k++) {
                    int e = (r + k) % n;
                    samples.get(e)[r] = time(engines.get(e), actions, perRound);
                }
            }
            double[] medians = new double[n];
            for (int e = 0; e < n; e++) {
                double[] s = samples.get(e).clone();
                Arrays.sort(s);
                medians[e] = s[s.length / 2];
                System.out.printf(Locale.ROOT, "%-14s %-12s %12.0f %12.0f%n", mix, names.get(e), medians[e], s[0]);
            }
            System.out.printf(Locale.ROOT, "%-14s ours/oursCelJava %.2f, ours/raw %.2f, ours/hand-written %.2f,"
                    + " oursCelJava/hand-written %.1f%n", mix, medians[0] / medians[1], medians[0] / medians[2],
                    medians[0] / medians[3], medians[1] / medians[3]);
        }
    }

    private static double time(Function<Action, Object> engine, Action[] actions, int n) {
        long t0 = System.nanoTime();
        Object last = null;
        for (int i = 0; i < n; i++) {
            last = engine.apply(actions[i & (actions.length - 1)]);
        }
        long t1 = System.nanoTime();
        sink = last;
        return (t1 - t0) / (double) n;
    }
}
