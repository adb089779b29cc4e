package dev.custody.engine.bench;

import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelOptions;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import dev.custody.engine.payload.Action;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * cel-java 0.14's two runtimes side by side: the legacy interpreter (what the engine's fallback runs) and the
 * planner ({@code CelRuntimeFactory.plannerRuntimeBuilder()}), on the same checked conditions in an environment
 * of {@code map(string, dyn)} sections, over {@link Workload}'s withdrawals. Alternating rounds in one JVM; prints
 * ns per evaluation of each runtime per condition and the ratio, and whether the two gave the same results.
 *
 * <pre>
 * CP=engine-core/target/test-classes:engine-core/target/classes:engine-schema/target/classes:$(cat /tmp/cp.txt)
 * java -cp $CP dev.custody.engine.bench.PlannerRuntime [ROUNDS]
 * </pre>
 */
public final class PlannerRuntime {
    private PlannerRuntime() {}

    static final String[] CONDITIONS = {
        "withdrawal.value_usd > 250000.0",
        "withdrawal.is_whitelisted && withdrawal.address_age_sec >= 604800.0 && withdrawal.value_usd <= 5000.0"
                + " && principal.role in ['owner', 'admin', 'signer']",
        "has(principal.user_email) && principal.user_email.endsWith('@treasury.example.com')",
        "['0xdead', '0xbeef', '0x0000000000000000000000000000000000000000', 'a', 'b', 'c']"
                + ".exists(a, withdrawal.destination_address == a)",
        "[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0].all(i, i * 1000.0 < withdrawal.value_usd || i > 0.0)",
    };

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        CelOptions options = CelOptions.current().enableHeterogeneousNumericComparisons(true).build();
        var b = CelFactory.standardCelBuilder().setOptions(options).setStandardMacros(CelStandardMacro.STANDARD_MACROS)
                .setResultType(SimpleType.BOOL);
        for (Section s : FieldSchema.sections(TriggerAction.WITHDRAWAL_CREATE)) {
            b.addVar(s.wireName(), MapType.create(SimpleType.STRING, SimpleType.DYN));
        }
        Cel cel = b.build();
        CelRuntime planner = CelRuntimeFactory.plannerRuntimeBuilder().setOptions(options).build();
        List<CelRuntime.Program> legacy = new ArrayList<>();
        List<CelRuntime.Program> planned = new ArrayList<>();
        for (String c : CONDITIONS) {
            CelAbstractSyntaxTree ast = cel.compile(c).getAst();
            legacy.add(cel.createProgram(ast));
            planned.add(planner.createProgram(ast));
        }
        List<Action> actions = Workload.mix("allow", 256, 7);
        List<Map<String, Object>> vars = actions.stream().map(RawCelEngine::activation).toList();
        int same = 0;
        int differ = 0;
        for (int c = 0; c < CONDITIONS.length; c++) {
            for (Map<String, Object> v : vars) {
                Object l = result(legacy.get(c), v);
                Object p = result(planned.get(c), v);
                if (l.equals(p)) {
                    same++;
                } else {
                    differ++;
                }
            }
        }
        double[][] best = new double[CONDITIONS.length][2];
        for (double[] x : best) {
            x[0] = x[1] = Double.MAX_VALUE;
        }
        long sink = 0;
        for (int r = 0; r < rounds; r++) {
            for (int c = 0; c < CONDITIONS.length; c++) {
                for (int k = 0; k < 2; k++) {
                    int which = (r + k) % 2;
                    CelRuntime.Program p = (which == 0 ? legacy : planned).get(c);
                    long t0 = System.nanoTime();
                    for (int i = 0; i < 20; i++) {
                        for (Map<String, Object> v : vars) {
                            sink += result(p, v).hashCode();
                        }
                    }
                    double ns = (System.nanoTime() - t0) / (20.0 * vars.size());
                    if (r >= rounds / 4) {
                        best[c][which] = Math.min(best[c][which], ns);
                    }
                }
            }
        }
        System.out.printf(Locale.ROOT, "results: %d the same, %d different%n", same, differ);
        System.out.printf(Locale.ROOT, "%-8s %12s %12s %8s  condition%n", "", "legacy ns", "planner ns", "ratio");
        for (int c = 0; c < CONDITIONS.length; c++) {
            System.out.printf(Locale.ROOT, "%-8s %12.0f %12.0f %8.2f  %s%n", "#" + c, best[c][0], best[c][1],
                    best[c][1] / best[c][0], CONDITIONS[c].length() > 60 ? CONDITIONS[c].substring(0, 57) + "..." : CONDITIONS[c]);
        }
        System.out.println((sink == 42 ? "" : "") + "fastest round of each, load average "
                + java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim());
    }

    private static Object result(CelRuntime.Program p, Map<String, Object> vars) {
        try {
            return p.eval(vars);
        } catch (Exception e) {
            return "error: " + e.getMessage();
        }
    }
}
