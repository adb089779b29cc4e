package dev.custody.engine.compile;

import dev.custody.engine.internal.access.ClassPathReads;
import dev.cel.bundle.Cel;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelIssue;
import dev.cel.common.CelOptions;
import dev.cel.common.CelValidationException;
import dev.cel.common.CelValidationResult;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.diagnostic.DiagnosticCode;
import dev.custody.engine.text.Suggestions;
import dev.custody.engine.check.Payload;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.Limits;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Compiles rule conditions: CEL over the typed sections of a trigger action.
 *
 * <p>A condition compiles when it is 1 to {@value Limits#CONDITION_MAX} characters, parses (nesting
 * within cel-java's parse recursion limit of 250, so a deep condition is a {@code too_deep} diagnostic,
 * never a {@link StackOverflowError}), type-checks against the action's sections (unknown fields and
 * sections, type mismatches, a non-boolean result are errors with the position of the offending token
 * and a hint), and passes guard analysis ({@link ConditionAnalyzer}). Standard macros ({@code has},
 * {@code all}, {@code exists}, {@code exists_one}, {@code map}, {@code filter}) and heterogeneous numeric
 * comparisons ({@code withdrawal.value_usd > 10000}) are on.
 *
 * <p>Evaluation is bounded: comprehensions stop after {@link Builder#comprehensionMaxIterations} iterations
 * in total and regexes larger than {@link Builder#maxRegexProgramSize} are refused, both as runtime
 * errors (so a rule that hits them fails closed).
 *
 * <p>Construction builds one CEL environment per trigger action and evaluates a small condition in
 * each, so that the class loading and first-run work of cel-java's runtime (tens of milliseconds on a
 * cold JVM) is paid here, not by the first real evaluation, which would otherwise pay it against the spec's
 * 100 ms evaluation time-out (the engine's own budget is a cost, with a CPU-time backstop of 1 s by default).
 *
 * <p>{@code compile} never throws for any input text; it returns diagnostics. A compiler remembers up to 4,096
 * results by trigger action and text (softly held), so the same text compiled again, for
 * another workspace's bundle or by a tool and then by an engine, is the same {@link CompiledCondition}: compiling
 * is a pure function of the two, and a result is immutable. Immutable and thread-safe: build one and share it.
 */
public final class RuleCompiler {
    static {
        ClassPathReads.ensure(); // before this class links any cel-java type (module-info.java)
    }

    /** Default bound on comprehension iterations per evaluation. */
    public static final int DEFAULT_COMPREHENSION_MAX_ITERATIONS = 10_000;
    /** Default bound on a regex's compiled program size (re2j instructions). */
    public static final int DEFAULT_MAX_REGEX_PROGRAM_SIZE = 1_000;
    /** At most this many diagnostics are returned for one condition. */
    public static final int MAX_DIAGNOSTICS = 20;

    /**
     * How many compiled conditions a compiler remembers by trigger action and text: a condition met again (the
     * same global policies in every workspace's bundle; a tool that compiles a set and then builds an engine
     * over it) is not parsed and checked again. The values are softly held, so memory pressure clears them.
     */
    static final int MEMO_SIZE = 4_096;

    private final Map<TriggerAction, Cel> environments = new EnumMap<>(TriggerAction.class);
    /**
     * Results by (action, text). Compiling is a pure function of the two for one compiler, and every result is
     * immutable and thread-safe, so a remembered one is the result a fresh compile would give (a compiled
     * form may therefore be shared by rules of the same text).
     */
    private final com.github.benmanes.caffeine.cache.Cache<Memo, CompileResult> memo =
            com.github.benmanes.caffeine.cache.Caffeine.newBuilder().maximumSize(MEMO_SIZE).softValues()
                    .executor(Runnable::run).build();

    private record Memo(TriggerAction action, String condition) {}
    private final int maxRegexProgramSize;
    private final int comprehensionMaxIterations;
    private final long costLimit;
    private final boolean compiledEvaluation;

    private RuleCompiler(Builder b) {
        this.maxRegexProgramSize = b.maxRegexProgramSize;
        this.comprehensionMaxIterations = b.comprehensionMaxIterations;
        this.costLimit = b.costLimit;
        this.compiledEvaluation = b.compiledEvaluation;
        CelOptions options = CelEnvironment.options(b.comprehensionMaxIterations, b.maxRegexProgramSize);
        for (TriggerAction a : TriggerAction.values()) {
            environments.put(a, CelEnvironment.build(a, options));
        }
        warmUp();
    }

    /**
     * Compiles and evaluates one condition per action, through the paths a real rule takes (a warning, a
     * guard, a read of an absent field and its error message), on its compiled form and on cel-java. The first evaluation in a JVM loads and
     * links cel-java's interpreter and error classes, which on a busy machine takes longer than the whole
     * evaluation budget; done here, that cost is paid once when the compiler is built instead of denying the
     * first real action for running out of time.
     */
    private void warmUp() {
        String condition = "principal.user_email.endsWith('x') || has(principal.role) || principal.role == 'owner'";
        for (TriggerAction a : TriggerAction.values()) {
            try {
                Optional<CompiledCondition> c = compile(a, condition).condition();
                if (c.isPresent()) {
                    Map<String, Map<String, Object>> empty = new HashMap<>();
                    for (Section s : FieldSchema.sections(a)) {
                        empty.put(s.wireName(), Map.of());
                    }
                    Payload payload = new Payload(a, "", Instant.EPOCH, empty);
                    c.get().evaluate(payload, System.nanoTime() + 1_000_000_000L);
                    // the condition has a compiled form, so evaluate did not touch cel-java's interpreter, which
                    // conditions without one (and errors the compiled form leaves cel-java to word) still run on
                    c.get().evaluateInterpreted(payload, System.nanoTime() + 1_000_000_000L);
                }
            } catch (RuntimeException e) {
                // only a warm-up: a failure here shows again, properly reported, on real input
            }
        }
    }

    /** A compiler with the default bounds. */
    public static RuleCompiler create() {
        return builder().build();
    }

    /**
     * The class loader's one compiler with the default bounds, built on first use: what every {@link
     * dev.custody.engine.PolicyEngine} compiles with, and what tools that validate the same policies share with it
     * (building a compiler loads cel-java and warms it up, tens of milliseconds). Immutable and thread-safe.
     */
    public static RuleCompiler shared() {
        return Shared.COMPILER;
    }

    /** Holds {@link #shared()}: built when first asked for, by whichever thread asks first. */
    private static final class Shared {
        static final RuleCompiler COMPILER = create();
    }

    /** A builder to change the evaluation bounds. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Compiles a condition for a trigger action.
     *
     * @param action the trigger action, whose sections the condition may read
     * @param condition the condition text; null counts as empty
     */
    public CompileResult compile(TriggerAction action, String condition) {
        Objects.requireNonNull(action, "action");
        if (condition == null || condition.length() > Limits.CONDITION_MAX * 2) {
            return compileNow(action, condition); // nothing worth remembering: an error, found quickly
        }
        return memo.get(new Memo(action, condition), k -> compileNow(k.action(), k.condition()));
    }

    private CompileResult compileNow(TriggerAction action, String condition) {
        List<Diagnostic> diagnostics = new ArrayList<>();
        Optional<CompiledCondition> compiled = compileInto(action, condition, diagnostics);
        return finish(compiled, diagnostics);
    }

    /**
     * Compiles a rule as the validate endpoint does: the trigger action and effect by their wire names,
     * then the condition. An unknown trigger action or effect is a diagnostic (and with an unknown
     * trigger action the condition is only parsed, since its fields cannot be known).
     */
    public CompileResult compile(String triggerAction, String condition, String effect) {
        List<Diagnostic> diagnostics = new ArrayList<>();
        Optional<TriggerAction> action = TriggerAction.fromWireName(triggerAction);
        if (action.isEmpty()) {
            diagnostics.add(invalidTriggerAction(triggerAction));
        }
        if (Effect.fromWireName(effect).isEmpty()) {
            diagnostics.add(invalidEffect(effect));
        }
        Optional<CompiledCondition> compiled = Optional.empty();
        if (action.isPresent()) {
            compiled = compileInto(action.get(), condition, diagnostics);
        } else if (condition != null && !condition.isEmpty()) {
            parseOnly(condition, diagnostics);
        }
        return finish(compiled, diagnostics);
    }

    /** The diagnostic for a trigger action that is not one. */
    public static Diagnostic invalidTriggerAction(String value) {
        List<String> names = new ArrayList<>();
        for (TriggerAction a : TriggerAction.values()) {
            names.add(a.wireName());
        }
        String hint = Suggestions.closest(value, names).map(s -> "did you mean `" + s + "`? ").orElse("")
                + "trigger actions: " + String.join(", ", names);
        return Diagnostic.error(DiagnosticCode.INVALID_TRIGGER_ACTION,
                value == null ? "trigger action is missing" : "unknown trigger action `" + value + "`", hint, 0, 0);
    }

    /** The diagnostic for an effect that is not one. */
    public static Diagnostic invalidEffect(String value) {
        String hint = Suggestions.closest(value, List.of("ALLOW", "DENY")).map(s -> "did you mean `" + s + "`? ")
                .orElse("") + "effects: ALLOW, DENY";
        return Diagnostic.error(DiagnosticCode.INVALID_EFFECT,
                value == null ? "effect is missing" : "unknown effect `" + value + "`", hint, 0, 0);
    }

    private Optional<CompiledCondition> compileInto(TriggerAction action, String condition, List<Diagnostic> out) {
        if (condition == null || condition.isEmpty()) {
            out.add(Diagnostic.error(DiagnosticCode.EMPTY_CONDITION, "condition is empty",
                    "write a boolean expression, e.g. `withdrawal.value_usd > 10000`", 1, 1));
            return Optional.empty();
        }
        int length = condition.codePointCount(0, condition.length());
        SourcePositions src = new SourcePositions(condition);
        if (length > Limits.CONDITION_MAX) {
            int[] lc = src.lineColumn(Limits.CONDITION_MAX);
            out.add(Diagnostic.error(DiagnosticCode.TOO_LONG, "condition is " + length
                    + " characters long; the limit is " + Limits.CONDITION_MAX,
                    "split it into several rules", lc[0], lc[1]));
            return Optional.empty();
        }
        Cel cel = environments.get(action);
        CelValidationResult parsed;
        try {
            parsed = cel.parse(condition);
        } catch (RuntimeException | StackOverflowError e) {
            out.add(Diagnostic.error(DiagnosticCode.TOO_DEEP, "condition could not be parsed: it is too complex",
                    "split it into simpler conditions or several rules", 1, 1));
            return Optional.empty();
        }
        if (parsed.hasError()) {
            // the first syntax error only: the parser's later ones mostly follow from it
            out.add(IssueTranslator.parseIssue(parsed.getErrors().get(0), src));
            return Optional.empty();
        }
        CelAbstractSyntaxTree parsedAst;
        CelAbstractSyntaxTree checked;
        try {
            parsedAst = parsed.getAst();
            CelValidationResult result = cel.check(parsedAst);
            if (result.hasError()) {
                Map<Long, Integer> positions = parsedAst.getSource().getPositionsMap();
                for (CelIssue issue : result.getErrors()) {
                    out.add(IssueTranslator.checkIssue(issue, src, action, parsedAst.getExpr(), positions));
                }
                return Optional.empty();
            }
            checked = result.getAst();
        } catch (CelValidationException | RuntimeException | StackOverflowError e) {
            out.add(Diagnostic.error(DiagnosticCode.TOO_DEEP, "condition could not be checked: it is too complex",
                    "split it into simpler conditions or several rules", 1, 1));
            return Optional.empty();
        }
        int before = out.size();
        new ConditionAnalyzer(checked.getSource().getPositionsMap(), src, out).analyze(checked.getExpr());
        if (out.subList(before, out.size()).stream().anyMatch(Diagnostic::isError)) {
            return Optional.empty();
        }
        try {
            CelRuntime.Program program = cel.createProgram(checked);
            ClosureCompiler.Node closures = compiledEvaluation
                    ? ClosureCompiler.compile(checked, action, maxRegexProgramSize, comprehensionMaxIterations).orElse(null)
                    : null;
            CompiledCondition compiled = new CompiledCondition(action, condition, checked, program, closures,
                    maxRegexProgramSize, comprehensionMaxIterations);
            long estimate = compiled.costEstimate();
            if (estimate < 0 || estimate > costLimit) {
                out.add(Diagnostic.warning(DiagnosticCode.COST_EXCEEDS_LIMIT, (estimate < 0
                        ? "the condition's worst-case cost is unbounded"
                        : "the condition's worst-case cost, " + estimate + " units, exceeds the limit of " + costLimit)
                        + ": on the largest valid payloads it is stopped and the action denied (cost_budget)",
                        "iterate over less, or split it into several rules", 1, 1));
            }
            return Optional.of(compiled);
        } catch (CelEvaluationException | RuntimeException e) {
            out.add(Diagnostic.error(DiagnosticCode.TYPE_MISMATCH,
                    "condition cannot be prepared: " + IssueTranslator.style(String.valueOf(e.getMessage())), null, 1, 1));
            return Optional.empty();
        }
    }

    private void parseOnly(String condition, List<Diagnostic> out) {
        if (condition.codePointCount(0, condition.length()) > Limits.CONDITION_MAX) {
            return;
        }
        try {
            CelValidationResult parsed = environments.get(TriggerAction.WITHDRAWAL_CREATE).parse(condition);
            if (parsed.hasError()) {
                out.add(IssueTranslator.parseIssue(parsed.getErrors().get(0), new SourcePositions(condition)));
            }
        } catch (RuntimeException | StackOverflowError e) {
            out.add(Diagnostic.error(DiagnosticCode.TOO_DEEP, "condition could not be parsed: it is too complex",
                    null, 1, 1));
        }
    }

    private static CompileResult finish(Optional<CompiledCondition> compiled, List<Diagnostic> diagnostics) {
        List<Diagnostic> sorted = new ArrayList<>(diagnostics);
        sorted.sort(Diagnostic.BY_LOCATION);
        if (sorted.size() > MAX_DIAGNOSTICS) {
            sorted = sorted.subList(0, MAX_DIAGNOSTICS);
        }
        boolean hasError = diagnostics.stream().anyMatch(Diagnostic::isError);
        if (compiled.isPresent() && !hasError) {
            return new CompileResult.Success(compiled.get(), sorted);
        }
        if (!hasError) {
            throw new IllegalStateException("no compiled condition and no error");
        }
        if (sorted.stream().noneMatch(Diagnostic::isError)) {
            sorted.add(0, diagnostics.stream().filter(Diagnostic::isError).findFirst().orElseThrow());
        }
        return new CompileResult.Failure(sorted);
    }

    /** Builds a {@link RuleCompiler}. Not thread-safe; the compiler it builds is. */
    public static final class Builder {
        private int comprehensionMaxIterations = DEFAULT_COMPREHENSION_MAX_ITERATIONS;
        private int maxRegexProgramSize = DEFAULT_MAX_REGEX_PROGRAM_SIZE;
        private boolean compiledEvaluation = true;
        private long costLimit = CostMeter.DEFAULT_LIMIT;

        private Builder() {}

        /**
         * Whether conditions get a compiled form ({@link CompiledCondition#compiled()}), evaluated by Java
         * closures with the same results as cel-java's interpreter; true by default. False runs every condition
         * on cel-java: for comparisons (the differential tests, the benchmarks), or as a switch should the
         * compiled path ever be in doubt.
         */
        public Builder compiledEvaluation(boolean on) {
            this.compiledEvaluation = on;
            return this;
        }

        /**
         * The cost limit conditions are checked against: a condition whose worst-case cost
         * ({@link CompiledCondition#costEstimate()}) exceeds it gets a {@code cost_exceeds_limit} warning. Default
         * {@link CostMeter#DEFAULT_LIMIT}; the engine's limit is set on the engine.
         */
        public Builder costLimit(long limit) {
            this.costLimit = CostMeter.checkLimit(limit);
            return this;
        }

        /** Bound on comprehension iterations per evaluation (all comprehensions of a condition together). */
        public Builder comprehensionMaxIterations(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("comprehensionMaxIterations must be at least 1, got " + n);
            }
            this.comprehensionMaxIterations = n;
            return this;
        }

        /** Bound on the compiled size of a regex used by {@code matches}. */
        public Builder maxRegexProgramSize(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxRegexProgramSize must be at least 1, got " + n);
            }
            this.maxRegexProgramSize = n;
            return this;
        }

        public RuleCompiler build() {
            return new RuleCompiler(this);
        }
    }
}
