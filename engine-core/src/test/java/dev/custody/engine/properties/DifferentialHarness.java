package dev.custody.engine.properties;

import dev.custody.engine.Fixtures;
import dev.custody.engine.compile.CompileResult;
import dev.custody.engine.compile.CompiledAccess;
import dev.custody.engine.compile.CompiledCondition;
import dev.custody.engine.compile.ConditionResult;
import dev.custody.engine.compile.CostMeter;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.compile.ThreadClock;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.diagnostic.DiagnosticCode;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.Payload;
import dev.custody.engine.check.PayloadResult;
import dev.custody.engine.check.PayloadValidator;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * The one differential harness of docs/design.md §10.2 ("One meaning of CEL", §10.1): generated conditions
 * times generated actions, each pair run through every part of the project that gives a condition a meaning and
 * compared with cel-java, the reference.
 *
 * <ul>
 *   <li>{@value #CEL_JAVA}: cel-java's value or error ({@link Reference}; the harness compares every other part
 *       with it);
 *   <li>{@value #COMPILED}: the compiled path ({@code ClosureCompiler}), its form alone and with its fallback on
 *       cel-java ({@link CompiledCondition#evaluate});
 *   <li>{@value #PROBE}: the branch probe of coverage ({@code BranchProbe}): the boolean it notes for every
 *       sub-expression (every operand of {@code &&}, {@code ||}, {@code !}, {@code ?:}, every comparison, and the
 *       rest) must be the one cel-java's evaluation listener reports for it, sub-expressions evaluated by one and
 *       not by the other included, and its result the condition's;
 *   <li>{@code z3}: the solver formula of the analysis module under the action as a model, plugged in by that
 *       module's tests (engine-core cannot see the solver);
 *   <li>{@value #COST}: the static cost estimate ({@link CompiledCondition#costEstimate()}) is at least what the
 *       cost meter charges the evaluation, on the compiled path and on cel-java;
 *   <li>{@value #GUARDS}: the compiler's guard analysis ({@code ConditionAnalyzer}) warned about every read that
 *       makes cel-java fail for an absent optional field or {@code decoded_args} key.
 * </ul>
 * A part that cannot speak for a pair (a condition outside its fragment, an estimate that is unbounded) says so
 * with a reason, and the harness counts the skips by part and reason. A part that differs from cel-java is a
 * disagreement naming the part, the condition, the action and both values. When three or more parts gave the
 * condition's value (the compiled path, the probe and the solver's formulas), all the same and not cel-java's,
 * the disagreement names {@value #CEL_JAVA} instead: the reference is then the odd one out. (Three, not two: two
 * parts can share a mistake, as the solver's exact reals and a compiled path comparing exactly would.)
 *
 * <p>{@link #cases} generates the pairs (conditions from {@link DifferentialConditions}, both trigger actions,
 * actions from {@link Payloads} with the numeric boundaries). Parts are plain objects, so a test can plant a wrong
 * one and see the harness catch it. Not thread-safe: one harness per thread.
 */
public final class DifferentialHarness {
    public static final String CEL_JAVA = "cel-java";
    public static final String COMPILED = "compiled";
    public static final String PROBE = "probe";
    public static final String COST = "cost";
    public static final String GUARDS = "guards";

    /** Conditions per try of a property, and actions per condition. */
    public static final int PAYLOADS = 10;

    private static final RuleCompiler COMPILER = RuleCompiler.create();
    private static final long HOUR = 3_600_000_000_000L;
    /** Disagreements kept in a summary (all are counted). */
    private static final int KEEP = 50;

    /**
     * One generated condition of a trigger action with the actions it is run on (checked, valid payloads), and the
     * condition compiled when the generator already compiled it (null otherwise).
     */
    public record Case(TriggerAction action, String condition, List<Payload> payloads, CompileResult compiled) {
        /** A case whose condition the harness compiles. */
        public Case(TriggerAction action, String condition, List<Payload> payloads) {
            this(action, condition, payloads, null);
        }

        @Override
        public String toString() {
            return action.wireName() + ": `" + condition + "` on " + payloads.size() + " actions";
        }
    }

    /** What the reference says: cel-java's result of a condition on a payload. */
    @FunctionalInterface
    public interface Reference {
        ConditionResult evaluate(CompiledCondition condition, Payload payload);
    }

    /** cel-java itself. */
    public static Reference celJava() {
        return (c, p) -> CompiledAccess.interpreted(c, p, ThreadClock.now() + HOUR);
    }

    /** One part that gives a condition a meaning, checked against the reference pair by pair. */
    public interface Part {
        /** The name a disagreement carries. */
        String name();

        /** This part's verdict on one pair. */
        Verdict check(Pair pair);
    }

    /**
     * A part's verdict on one pair: it agrees, it cannot speak for the pair ({@code skipped}, with the reason),
     * or it disagrees ({@code ours} against {@code reference}, in words). {@code value} is the part's value of
     * the whole condition when it has one (a boolean, or a failure), for telling which side is the odd one out.
     */
    public record Verdict(Kind kind, String reason, String ours, String reference, ConditionResult value) {
        public enum Kind { AGREE, SKIPPED, DISAGREE }

        public static Verdict agree(ConditionResult value) {
            return new Verdict(Kind.AGREE, null, null, null, value);
        }

        public static Verdict skipped(String reason) {
            return new Verdict(Kind.SKIPPED, reason, null, null, null);
        }

        public static Verdict disagree(String ours, String reference, ConditionResult value) {
            return new Verdict(Kind.DISAGREE, null, ours, reference, value);
        }
    }

    /**
     * One condition and one action, with cel-java's result ({@link #reference}) and, on first use, the booleans
     * cel-java's evaluation listener reports for each sub-expression.
     */
    public static final class Pair {
        private final TriggerAction action;
        private final String condition;
        private final CompiledCondition compiled;
        private final Payload payload;
        private final ConditionResult reference;
        private final List<Diagnostic> diagnostics;
        private Map<Long, List<Boolean>> celBooleans;

        Pair(TriggerAction action, String condition, CompiledCondition compiled, List<Diagnostic> diagnostics,
                Payload payload, ConditionResult reference) {
            this.action = action;
            this.condition = condition;
            this.compiled = compiled;
            this.diagnostics = diagnostics;
            this.payload = payload;
            this.reference = reference;
        }

        /** The compiler's warnings on the condition (it compiled, so there are no errors). */
        public List<Diagnostic> diagnostics() {
            return diagnostics;
        }

        public TriggerAction action() {
            return action;
        }

        public String condition() {
            return condition;
        }

        public CompiledCondition compiled() {
            return compiled;
        }

        public Payload payload() {
            return payload;
        }

        /** The reference's result (cel-java's, unless a test planted another reference). */
        public ConditionResult reference() {
            return reference;
        }

        /** The booleans cel-java reports per sub-expression ({@link CompiledAccess#celBooleans}). */
        public Map<Long, List<Boolean>> celBooleans() {
            if (celBooleans == null) {
                celBooleans = CompiledAccess.celBooleans(compiled, payload);
            }
            return celBooleans;
        }
    }

    /** A part that differs from cel-java on one pair. */
    public record Disagreement(String part, TriggerAction action, String condition, Map<String, Map<String, Object>> payload,
            String ours, String reference) {
        @Override
        public String toString() {
            return part + " disagrees with " + (part.equals(CEL_JAVA) ? "the other parts" : "cel-java") + " on "
                    + action.wireName() + " `" + condition + "` with " + payload + ": " + part + " " + ours + ", "
                    + (part.equals(CEL_JAVA) ? "the other parts " : "cel-java ") + reference;
        }
    }

    private final Reference reference;
    private final List<Part> parts;
    private final Map<String, long[]> counts = new LinkedHashMap<>();
    private final Map<String, Map<String, Long>> skips = new LinkedHashMap<>();
    private final List<Disagreement> kept = new ArrayList<>();
    private long disagreements;
    private long pairs;
    private long conditions;
    private long invalid;
    private long compiling;
    /** CPU time of the checking thread in {@link #check}: what the harness costs on a machine that is not shared. */
    private long cpu;
    private static final java.lang.management.ThreadMXBean CPU = java.lang.management.ManagementFactory.getThreadMXBean();

    /** A harness comparing {@code parts} with {@code reference}. */
    public DifferentialHarness(Reference reference, List<Part> parts) {
        this.reference = Objects.requireNonNull(reference);
        this.parts = List.copyOf(parts);
        counts.put(CEL_JAVA, new long[4]);
        for (Part p : parts) {
            counts.put(p.name(), new long[4]);
            skips.put(p.name(), new TreeMap<>());
        }
    }

    /** The engine-core parts: the compiled path, the probe, the cost estimate and the guard analysis, as they are. */
    public static List<Part> engineParts() {
        return List.of(new CompiledPart(), new ProbePart(), new CostPart(), new GuardPart());
    }

    /**
     * Runs one condition on its actions through every part; returns the disagreements it found (also counted
     * in {@link #summary}). A condition that does not compile gives no pairs.
     */
    public List<Disagreement> check(Case c) {
        long cpuStart = CPU.getCurrentThreadCpuTime();
        try {
            return checkTimed(c);
        } finally {
            cpu += CPU.getCurrentThreadCpuTime() - cpuStart;
        }
    }

    private List<Disagreement> checkTimed(Case c) {
        conditions++;
        long started = System.nanoTime();
        CompileResult r = c.compiled() != null ? c.compiled() : COMPILER.compile(c.action(), c.condition());
        compiling += System.nanoTime() - started;
        if (r.condition().isEmpty()) {
            invalid++;
            if (Boolean.getBoolean("differential.printInvalid")) {
                System.out.println("does not compile: `" + c.condition() + "`: " + r.diagnostics());
            }
            return List.of();
        }
        CompiledCondition compiled = r.condition().get();
        List<Disagreement> found = new ArrayList<>();
        for (Payload p : c.payloads()) {
            pairs++;
            long celStart = System.nanoTime();
            Pair pair = new Pair(c.action(), c.condition(), compiled, r.diagnostics(), p, reference.evaluate(compiled, p));
            counts.get(CEL_JAVA)[0]++;
            counts.get(CEL_JAVA)[3] += System.nanoTime() - celStart;
            Map<Part, Verdict> verdicts = new LinkedHashMap<>();
            for (Part part : parts) {
                Verdict v;
                long t0 = System.nanoTime();
                try {
                    v = part.check(pair);
                } catch (RuntimeException | StackOverflowError e) {
                    v = Verdict.disagree("threw " + e, String.valueOf(pair.reference()), null);
                }
                verdicts.put(part, v);
                long[] n = counts.get(part.name());
                n[3] += System.nanoTime() - t0;
                switch (v.kind()) {
                    case AGREE -> n[0]++;
                    case SKIPPED -> {
                        n[1]++;
                        skips.get(part.name()).merge(v.reason(), 1L, Long::sum);
                    }
                    case DISAGREE -> n[2]++;
                }
            }
            found.addAll(attribute(pair, verdicts));
        }
        disagreements += found.size();
        for (Disagreement d : found) {
            if (kept.size() < KEEP) {
                kept.add(d);
            }
        }
        return found;
    }

    /**
     * The disagreements of one pair: each part that disagreed, or cel-java alone when three or more parts gave the
     * condition's value, all the same, and cel-java another.
     */
    private List<Disagreement> attribute(Pair pair, Map<Part, Verdict> verdicts) {
        List<Disagreement> out = new ArrayList<>();
        boolean any = verdicts.values().stream().anyMatch(v -> v.kind() == Verdict.Kind.DISAGREE);
        if (!any) {
            return out;
        }
        List<String> values = verdicts.values().stream().filter(v -> v.value() != null && v.kind() != Verdict.Kind.SKIPPED)
                .map(v -> outcome(v.value())).toList();
        String ref = outcome(pair.reference());
        if (values.size() >= 3 && values.stream().distinct().count() == 1 && !values.get(0).equals(ref)) {
            counts.get(CEL_JAVA)[2]++;
            out.add(new Disagreement(CEL_JAVA, pair.action(), pair.condition(), pair.payload().sections(),
                    String.valueOf(pair.reference()), values.get(0) + " (" + values.size() + " parts)"));
            return out;
        }
        for (Map.Entry<Part, Verdict> e : verdicts.entrySet()) {
            Verdict v = e.getValue();
            if (v.kind() == Verdict.Kind.DISAGREE) {
                out.add(new Disagreement(e.getKey().name(), pair.action(), pair.condition(), pair.payload().sections(),
                        v.ours(), v.reference()));
            }
        }
        return out;
    }

    /** A result as the parts can all say it: true, false or error. */
    static String outcome(ConditionResult r) {
        return r instanceof ConditionResult.Value v ? String.valueOf(v.value()) : "error";
    }

    /**
     * Adds another harness's figures to this one's (a long run checks on several threads, one harness each).
     * The parts must be the same, by name.
     */
    public void add(DifferentialHarness other) {
        other.counts.forEach((part, n) -> {
            long[] mine = counts.get(part);
            for (int i = 0; i < mine.length; i++) {
                mine[i] += n[i];
            }
        });
        other.skips.forEach((part, why) -> why.forEach((reason, k) -> skips.get(part).merge(reason, k, Long::sum)));
        for (Disagreement d : other.kept) {
            if (kept.size() < KEEP) {
                kept.add(d);
            }
        }
        disagreements += other.disagreements;
        pairs += other.pairs;
        conditions += other.conditions;
        invalid += other.invalid;
        compiling += other.compiling;
        cpu += other.cpu;
    }

    /** The CPU time spent in {@link #check}, in nanoseconds. */
    public long cpuNanos() {
        return cpu;
    }

    /** The pairs run so far. */
    public long pairs() {
        return pairs;
    }

    /** Pairs a part agreed on, skipped, disagreed on, and the nanoseconds it took: {agree, skipped, disagree, nanos}. */
    public long[] counts(String part) {
        return counts.get(part).clone();
    }

    /** The disagreements found so far. */
    public long disagreements() {
        return disagreements;
    }

    /** The first disagreements found. */
    public List<Disagreement> kept() {
        return List.copyOf(kept);
    }

    /** The figures in words: pairs, per part agreed/skipped/disagreed and skips by reason, and the first disagreements. */
    public String summary() {
        StringBuilder s = new StringBuilder();
        s.append(String.format("differential harness: %d conditions (%d did not compile; compiling took %.1f s), %d"
                + " condition x action pairs, %d disagreements%n", conditions, invalid, compiling / 1e9, pairs, disagreements));
        s.append(String.format("  CPU time of the checking threads: %.1f s%n", cpu / 1e9));
        s.append("  part       agreed            skipped           disagreed   time in the part\n");
        for (Map.Entry<String, long[]> e : counts.entrySet()) {
            long[] n = e.getValue();
            s.append(String.format("  %-9s %9d agreed  %9d skipped  %6d disagreed  %7.1f s%n", e.getKey(),
                    e.getKey().equals(CEL_JAVA) ? n[0] - n[2] : n[0], n[1], n[2], n[3] / 1e9));
            Map<String, Long> why = skips.get(e.getKey());
            if (why != null) {
                why.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(12)
                        .forEach(w -> s.append(String.format("      skipped %8d: %s%n", w.getValue(), w.getKey())));
                if (why.size() > 12) {
                    s.append(String.format("      (and %d other reasons)%n", why.size() - 12));
                }
            }
        }
        kept.stream().limit(20).forEach(d -> s.append("  ").append(d).append('\n'));
        return s.toString();
    }

    // ---- the engine-core parts ----

    /**
     * The compiled path: its form alone (when the condition has one) gives cel-java's result, or an error cel-java
     * words itself (a placeholder), or defers (comprehensions only); and {@link CompiledCondition#evaluate} (the
     * compiled form with its fallback) gives exactly cel-java's result.
     */
    public static class CompiledPart implements Part {
        private static final Pattern COMPREHENSION = Pattern.compile("\\.(all|exists|exists_one|map|filter)\\(");

        @Override
        public String name() {
            return COMPILED;
        }

        /** The compiled form's own result; a planted variant overrides it. */
        protected ConditionResult compiledOnly(Pair pair) {
            return CompiledAccess.compiledOnly(pair.compiled(), pair.payload());
        }

        /** The compiled form with its fallback; a planted variant overrides it. */
        protected ConditionResult withFallback(Pair pair) {
            return pair.compiled().evaluate(pair.payload(), ThreadClock.now() + HOUR);
        }

        @Override
        public Verdict check(Pair pair) {
            ConditionResult cel = pair.reference();
            ConditionResult ours = withFallback(pair);
            if (!CompiledDifferentialProperties.same(cel, ours)) {
                return Verdict.disagree("(with fallback) " + ours, String.valueOf(cel), ours);
            }
            if (!pair.compiled().compiled()) {
                return Verdict.agree(ours);
            }
            ConditionResult alone = compiledOnly(pair);
            if (alone instanceof ConditionResult.Failure f && f.message().equals(CompiledAccess.WORDED_BY_CEL)) {
                return cel instanceof ConditionResult.Failure cf && !cf.budgetExceeded() ? Verdict.agree(alone)
                        : Verdict.disagree("(alone) an error", String.valueOf(cel), alone);
            }
            if (alone instanceof ConditionResult.Failure f && f.message().equals(CompiledAccess.DEFERRED)) {
                return COMPREHENSION.matcher(pair.condition()).find() ? Verdict.agree(ours)
                        : Verdict.disagree("(alone) deferred to cel-java without a comprehension", String.valueOf(cel), null);
            }
            return CompiledDifferentialProperties.same(cel, alone) ? Verdict.agree(alone)
                    : Verdict.disagree("(alone) " + alone, String.valueOf(cel), alone);
        }
    }

    /**
     * The branch probe of coverage: built to note every non-constant sub-expression, it must note for each the
     * boolean cel-java's listener reports (and nothing for one cel-java did not evaluate or that failed), and its
     * value of the whole condition must be cel-java's. Outside its fragment, or when it gives up on a value, it
     * cannot speak for the pair (as coverage then asks cel-java).
     */
    public static class ProbePart implements Part {
        private CompiledCondition last;
        private long[] ids;
        private Optional<CompiledAccess.Probe> probe;

        @Override
        public String name() {
            return PROBE;
        }

        /** The outcomes the probe notes, one per id (see {@link CompiledAccess.Probe#run}); planted variants override it. */
        protected Optional<byte[]> outcomes(Pair pair, long[] ids, CompiledAccess.Probe probe) {
            return probe.run(pair.payload());
        }

        @Override
        public Verdict check(Pair pair) {
            if (pair.compiled() != last) {
                last = pair.compiled();
                ids = CompiledAccess.nonConstantIds(last);
                probe = CompiledAccess.probe(last, ids);
            }
            if (probe.isEmpty()) {
                return Verdict.skipped("outside the probe's fragment");
            }
            Optional<byte[]> seen = outcomes(pair, ids, probe.get());
            if (seen.isEmpty()) {
                return Verdict.skipped("the probe gave up on a value");
            }
            byte[] o = seen.get();
            Map<Long, List<Boolean>> cel = pair.celBooleans();
            long rootId = CompiledAccess.root(pair.compiled()).id();
            int root = Arrays.binarySearch(ids, rootId);
            ConditionResult value = root < 0 ? null : o[root] == 0 ? new ConditionResult.Failure("an error", false)
                    : ConditionResult.of(o[root] == 1);
            for (int i = 0; i < ids.length; i++) {
                List<Boolean> c = cel.getOrDefault(ids[i], List.of());
                String probeSays = o[i] == 0 ? "not evaluated to a boolean" : String.valueOf(o[i] == 1);
                String celSays = c.isEmpty() ? "not evaluated to a boolean" : c.size() == 1 ? String.valueOf(c.get(0))
                        : c.toString();
                if (!probeSays.equals(celSays)) {
                    return Verdict.disagree("says `" + text(pair, ids[i]) + "` is " + probeSays,
                            "says it is " + celSays, value);
                }
            }
            if (value != null && !outcome(value).equals(outcome(pair.reference()))) {
                return Verdict.disagree("gives " + outcome(value), String.valueOf(pair.reference()), value);
            }
            return Verdict.agree(value);
        }

        private static String text(Pair pair, long id) {
            return dev.custody.engine.compile.CompiledAccess.text(pair.compiled(), id);
        }
    }

    /**
     * The static cost estimate: never below what the cost meter charges the evaluation, on cel-java and on the
     * compiled form alone (the path that decides, {@link CompiledCondition#evaluate}, is one of the two). A condition whose estimate
     * is unbounded (-1) has nothing to compare.
     */
    public static class CostPart implements Part {
        @Override
        public String name() {
            return COST;
        }

        /** The estimate; planted variants override it. */
        protected long estimate(Pair pair) {
            return pair.compiled().costEstimate();
        }

        @Override
        public Verdict check(Pair pair) {
            long estimate = estimate(pair);
            if (estimate < 0) {
                return Verdict.skipped("unbounded estimate");
            }
            // the path that decides is the compiled form, or cel-java when there is none or it hands over
            CostMeter cel = CostMeter.unlimited();
            CompiledAccess.interpreted(pair.compiled(), pair.payload(), ThreadClock.now() + HOUR, cel);
            long most = cel.used();
            String where = "cel-java";
            if (pair.compiled().compiled()) {
                CostMeter alone = CostMeter.unlimited();
                CompiledAccess.compiledOnly(pair.compiled(), pair.payload(), alone);
                if (alone.used() > most) {
                    most = alone.used();
                    where = "the compiled form";
                }
            }
            return most <= estimate ? Verdict.agree(null)
                    : Verdict.disagree("estimate " + estimate, "was charged " + most + (where.equals("cel-java") ? ""
                            : " on " + where), null);
        }
    }

    /**
     * The compiler's guard analysis ({@code ConditionAnalyzer}, docs/design.md §3.10): when cel-java fails because a
     * read of an optional field or of a {@code decoded_args} key found it absent, the compiler must have said that
     * read was unguarded (a warning for an optional field; for a {@code decoded_args} key the condition would not
     * have compiled). A pair whose result is not such a failure has nothing to compare and counts as agreeing.
     */
    public static class GuardPart implements Part {
        private static final Pattern ABSENT = Pattern.compile("`([^`]+)` is absent from the payload.*", Pattern.DOTALL);
        private static final Pattern NAMED = Pattern.compile("`([^`]+)`");
        private static final Pattern DECODED_KEY = Pattern.compile("resource\\.decoded_args\\.[^.]+");

        @Override
        public String name() {
            return GUARDS;
        }

        /** The paths the compiler called unguarded reads; planted variants override it. */
        protected java.util.Set<String> unguarded(Pair pair) {
            java.util.Set<String> out = new java.util.HashSet<>();
            for (Diagnostic d : pair.diagnostics()) {
                if (d.code() == DiagnosticCode.UNGUARDED_OPTIONAL_READ || d.code() == DiagnosticCode.UNGUARDED_DYNAMIC_READ) {
                    java.util.regex.Matcher m = NAMED.matcher(d.message());
                    if (m.find()) {
                        out.add(m.group(1));
                    }
                }
            }
            return out;
        }

        @Override
        public Verdict check(Pair pair) {
            if (!(pair.reference() instanceof ConditionResult.Failure f)) {
                return Verdict.agree(null);
            }
            java.util.regex.Matcher m = ABSENT.matcher(f.message());
            if (!m.matches()) {
                return Verdict.agree(null);
            }
            String path = m.group(1);
            // what §3.10 promises: a decoded_args key (not a field selected below it: `decoded_args.from.nested`
            // on a map without `nested` fails unreported, a known gap) and the optional fields
            boolean guardable = DECODED_KEY.matcher(path).matches() || FieldSchema.field(pair.action(), path)
                    .map(FieldSpec::optional).orElse(false);
            if (!guardable || unguarded(pair).contains(path)) {
                return Verdict.agree(null);
            }
            return Verdict.disagree("called every read of `" + path + "` guarded", String.valueOf(f), null);
        }
    }

    // ---- the generator ----

    /**
     * Conditions of both trigger actions, each with {@value #PAYLOADS} valid actions drawn with the numeric
     * boundaries (three in four with every non-optional field, which the analysis speaks of): conditions inside the solver's and the probe's fragment ({@link DifferentialConditions#fragment}),
     * the differential properties' conditions ({@link DifferentialConditions#of}) and comprehensions.
     */
    public static Arbitrary<Case> cases() {
        return cases(PAYLOADS);
    }

    /** As {@link #cases()}, with {@code payloads} actions per condition. */
    public static Arbitrary<Case> cases(int payloads) {
        return Arbitraries.of(TriggerAction.class).flatMap(a -> Combinators.combine(
                Arbitraries.frequencyOf(
                        Tuple.of(5, DifferentialConditions.fragment(a)),
                        Tuple.of(4, DifferentialConditions.of(a)),
                        Tuple.of(1, DifferentialConditions.comprehensions(a))),
                Arbitraries.frequencyOf(Tuple.of(3, Payloads.of(a, true, true)), Tuple.of(1, Payloads.of(a, true)))
                        .map(DifferentialHarness::valid).filter(Objects::nonNull).list().ofSize(payloads))
                .as((c, ps) -> new Case(a, c, ps)));
    }

    private static Payload valid(Action a) {
        return PayloadValidator.validate(a, Fixtures.TUESDAY_14H) instanceof PayloadResult.Valid v ? v.payload() : null;
    }
}
