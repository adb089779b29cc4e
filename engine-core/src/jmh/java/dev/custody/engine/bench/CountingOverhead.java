package dev.custody.engine.bench;

import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.internal.bundle.PolicyBundle;
import dev.custody.engine.TestEvaluator;
import dev.custody.engine.payload.Action;
import dev.custody.engine.validate.PolicyValidator;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;

/**
 * What counting cost costs (issue 16): the realistic bundle's decisions, timed in thread CPU time (so other load on
 * the machine counts little), fastest of many batches, per mix. Run it twice, with and without
 * {@code -Dcustody.cost.uncounted=true}, alternating, and compare: the switch is read once, as a constant, so the
 * two JVMs differ only in whether the meter counts.
 *
 * <pre>
 * java -cp CLASSPATH [-Dcustody.cost.uncounted=true] dev.custody.engine.bench.CountingOverhead [BATCHES]
 * </pre>
 */
public final class CountingOverhead {
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
    private static volatile Object sink;

    private CountingOverhead() {}

    public static void main(String[] args) {
        int batches = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        TestEvaluator evaluator = TestEvaluator.create();
        StringBuilder out = new StringBuilder("uncounted=" + Boolean.getBoolean("custody.cost.uncounted"));
        for (boolean celJava : new boolean[] {false, true}) {
        PolicyBundle bundle = PolicyBundle.compile(Realistic.policies(), new PolicyValidator(
                RuleCompiler.builder().compiledEvaluation(!celJava).build()));
        out.append(celJava ? " | cel-java only:" : " | compiled:");
        for (String mix : Workload.MIXES) {
            List<Action> list = Workload.mix(mix, 256, 42);
            Action[] actions = list.toArray(new Action[0]);
            for (int w = 0; w < 400; w++) { // warm-up
                for (Action a : actions) {
                    sink = evaluator.evaluate(bundle, a);
                }
            }
            long best = Long.MAX_VALUE;
            for (int b = 0; b < batches; b++) {
                long t0 = CPU.getCurrentThreadCpuTime();
                for (int k = 0; k < 8; k++) {
                    for (Action a : actions) {
                        sink = evaluator.evaluate(bundle, a);
                    }
                }
                best = Math.min(best, CPU.getCurrentThreadCpuTime() - t0);
            }
            out.append(String.format("  %s %.0f ns", mix, best / (8.0 * actions.length)));
        }
        }
        System.out.println(out);
    }
}
