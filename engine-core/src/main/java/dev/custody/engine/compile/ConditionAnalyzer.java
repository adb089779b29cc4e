package dev.custody.engine.compile;

import dev.custody.engine.internal.access.ClassPathReads;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.diagnostic.DiagnosticCode;
import dev.custody.engine.text.Suggestions;
import dev.custody.engine.schema.FieldSchema;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a type-checked condition for reads that can fail at run time.
 *
 * <h2>Guard analysis</h2>
 * A read of a {@code resource.decoded_args} key fails when the key is absent (an unrecognized call has
 * no keys at all), so it must be guarded: an unguarded one is an error. A read of an optional field
 * ({@code principal.user_email}, {@code resource.method_name}) fails when the field is absent: an
 * unguarded one is a warning. A read is guarded when a {@code has()} (or {@code 'key' in
 * resource.decoded_args}) is known to hold wherever the read's failure could decide the result:
 * <ul>
 *   <li>{@code A && B}: CEL absorbs an error on either side when the other side is false, so facts that
 *       hold when {@code B} is true guard {@code A}, and facts of {@code A} guard {@code B};
 *   <li>{@code A || B}: likewise with the facts that hold when the other side is false, so
 *       {@code !has(x) || x…} guards;
 *   <li>{@code C ? T : F}: facts of {@code C} true guard {@code T}, of {@code C} false guard {@code F};
 *   <li>{@code !A} swaps the true and false facts of {@code A}.
 * </ul>
 * The analysis is sound for these forms and conservative elsewhere: a guard written any other way (for
 * instance {@code size(resource.decoded_args) > 0}) does not count, and a key read with a computed key
 * ({@code resource.decoded_args[k]}) is always reported.
 *
 * <h2>Enum values</h2>
 * Comparing {@code principal.role} or {@code context.day_of_week} with a string literal the field never
 * takes ({@code principal.role == 'superadmin'}, {@code context.day_of_week == 'monday'}) is a warning:
 * such a comparison is always false, so the rule silently never fires.
 *
 * <h2>Regular expressions</h2>
 * A constant pattern given to {@code matches} is compiled here with RE2 (the engine CEL uses), so a
 * malformed one is an {@code invalid_regex} error at compile time instead of a rule that fails, and so
 * denies, on every evaluation.
 *
 * <p>Not thread-safe: one instance per analysis.
 */
final class ConditionAnalyzer {
    static {
        ClassPathReads.ensure(); // before this class links any cel-java type (module-info.java)
    }

    private static final String DECODED_ARGS = "resource.decoded_args";
    private static final Set<String> OPTIONAL_FIELDS = Set.of("principal.user_email", "resource.method_name");
    private static final Map<String, List<String>> ENUMS =
            Map.of("principal.role", FieldSchema.ROLES, "context.day_of_week", FieldSchema.DAYS_OF_WEEK);

    private final Map<Long, Integer> positions;
    private final SourcePositions source;
    private final List<Diagnostic> out;

    ConditionAnalyzer(Map<Long, Integer> positions, SourcePositions source, List<Diagnostic> out) {
        this.positions = positions;
        this.source = source;
        this.out = out;
    }

    void analyze(CelExpr root) {
        visit(root, Set.of());
    }

    private void visit(CelExpr e, Set<String> guarded) {
        switch (e.getKind()) {
            case SELECT -> {
                if (!e.select().testOnly()) {
                    checkRead(e, guarded);
                }
                visit(e.select().operand(), guarded);
            }
            case CALL -> visitCall(e, guarded);
            case LIST -> e.list().elements().forEach(x -> visit(x, guarded));
            case MAP -> e.map().entries().forEach(x -> {
                visit(x.key(), guarded);
                visit(x.value(), guarded);
            });
            case STRUCT -> e.struct().entries().forEach(x -> visit(x.value(), guarded));
            case COMPREHENSION -> {
                var c = e.comprehension();
                visit(c.iterRange(), guarded);
                visit(c.accuInit(), guarded);
                visit(c.loopCondition(), guarded);
                visit(c.loopStep(), guarded);
                visit(c.result(), guarded);
            }
            default -> {
                // constants and identifiers read nothing that can be absent
            }
        }
    }

    private void visitCall(CelExpr e, Set<String> guarded) {
        var call = e.call();
        List<CelExpr> args = call.args();
        switch (CelSemantics.call(call.function())) {
            case AND -> {
                visit(args.get(0), union(guarded, whenTrue(args.get(1))));
                visit(args.get(1), union(guarded, whenTrue(args.get(0))));
            }
            case OR -> {
                visit(args.get(0), union(guarded, whenFalse(args.get(1))));
                visit(args.get(1), union(guarded, whenFalse(args.get(0))));
            }
            case CONDITIONAL -> {
                visit(args.get(0), guarded);
                visit(args.get(1), union(guarded, whenTrue(args.get(0))));
                visit(args.get(2), union(guarded, whenFalse(args.get(0))));
            }
            case INDEX -> {
                if (DECODED_ARGS.equals(path(args.get(0)))) {
                    CelExpr key = args.get(1);
                    if (isString(key)) {
                        String fact = DECODED_ARGS + "." + key.constant().stringValue();
                        if (!guarded.contains(fact)) {
                            unguardedKey(fact, offsetOf(key));
                        }
                    } else {
                        // the whole key expression is at fault: point at its first token, not its dot
                        int[] lc = source.lineColumn(IssueTranslator.startOffset(key, positions, offsetOf(key)));
                        out.add(Diagnostic.error(DiagnosticCode.UNGUARDED_DYNAMIC_READ,
                                "`resource.decoded_args` is read with a computed key, which cannot be guarded",
                                "index it with a string literal and guard it: `has(resource.decoded_args.to) && …`",
                                lc[0], lc[1]));
                    }
                }
                args.forEach(x -> visit(x, guarded));
            }
            default -> {
                checkEnum(call.function(), args);
                if (CelSemantics.MATCHES.equals(call.function())) {
                    checkRegex(call.target().isPresent() ? args.get(0) : args.size() == 2 ? args.get(1) : null);
                }
                call.target().ifPresent(t -> visit(t, guarded));
                args.forEach(x -> visit(x, guarded));
            }
        }
    }

    private void checkRead(CelExpr e, Set<String> guarded) {
        String p = path(e);
        if (p == null) {
            return;
        }
        String operand = path(e.select().operand());
        if (DECODED_ARGS.equals(operand)) {
            if (!guarded.contains(p)) {
                unguardedKey(p, source.fieldNameAfterDot(offsetOf(e)));
            }
        } else if (OPTIONAL_FIELDS.contains(p) && !guarded.contains(p)) {
            int[] lc = source.lineColumn(source.fieldNameAfterDot(offsetOf(e)));
            out.add(Diagnostic.warning(DiagnosticCode.UNGUARDED_OPTIONAL_READ,
                    "`" + p + "` is optional and read without a `has()` guard",
                    "when it is absent the rule fails and the action is denied; write `has(" + p + ") && …`",
                    lc[0], lc[1]));
        }
    }

    private void unguardedKey(String fact, int offset) {
        int[] lc = source.lineColumn(offset);
        out.add(Diagnostic.error(DiagnosticCode.UNGUARDED_DYNAMIC_READ,
                "`" + fact + "` is read without a `has()` guard",
                "an unrecognized call has no decoded arguments; write `has(" + fact + ") && …`",
                lc[0], lc[1]));
    }

    private void checkEnum(String function, List<CelExpr> args) {
        CelSemantics.Call c = CelSemantics.call(function);
        if (c.isEquality() && args.size() == 2) {
            enumLiteral(path(args.get(0)), args.get(1));
            enumLiteral(path(args.get(1)), args.get(0));
        } else if (c == CelSemantics.Call.IN && args.size() == 2 && args.get(1).getKind() == CelExpr.ExprKind.Kind.LIST) {
            String p = path(args.get(0));
            args.get(1).list().elements().forEach(x -> enumLiteral(p, x));
        }
    }

    private void checkRegex(CelExpr pattern) {
        if (pattern == null || !isString(pattern)) {
            return;
        }
        try {
            com.google.re2j.Pattern.compile(pattern.constant().stringValue());
        } catch (com.google.re2j.PatternSyntaxException e) {
            int[] lc = source.lineColumn(offsetOf(pattern));
            String why = e.getDescription() == null ? "invalid pattern" : e.getDescription();
            out.add(Diagnostic.error(DiagnosticCode.INVALID_REGEX, "invalid regular expression: " + why,
                    "patterns use RE2 syntax (no backreferences or lookaround)", lc[0], lc[1]));
        }
    }

    private void enumLiteral(String fieldPath, CelExpr literal) {
        List<String> values = fieldPath == null ? null : ENUMS.get(fieldPath);
        if (values == null || !isString(literal)) {
            return;
        }
        String v = literal.constant().stringValue();
        if (values.contains(v)) {
            return;
        }
        String hint = Suggestions.closest(v, values).map(s -> "did you mean `" + s + "`? ").orElse("")
                + "values: " + String.join(", ", values);
        int[] lc = source.lineColumn(offsetOf(literal));
        out.add(Diagnostic.warning(DiagnosticCode.UNKNOWN_ENUM_VALUE,
                "`" + fieldPath + "` is never `" + v + "`, so this comparison never holds", hint, lc[0], lc[1]));
    }

    /** Facts that hold whenever {@code e} evaluates to true. */
    private Set<String> whenTrue(CelExpr e) {
        if (e.getKind() == CelExpr.ExprKind.Kind.SELECT && e.select().testOnly()) {
            String p = path(e);
            return p == null ? Set.of() : Set.of(p);
        }
        if (e.getKind() != CelExpr.ExprKind.Kind.CALL) {
            return Set.of();
        }
        List<CelExpr> args = e.call().args();
        return switch (CelSemantics.call(e.call().function())) {
            case AND -> union(whenTrue(args.get(0)), whenTrue(args.get(1)));
            case OR -> intersection(whenTrue(args.get(0)), whenTrue(args.get(1)));
            case NOT -> whenFalse(args.get(0));
            case CONDITIONAL -> intersection(union(whenTrue(args.get(0)), whenTrue(args.get(1))),
                    union(whenFalse(args.get(0)), whenTrue(args.get(2))));
            case IN -> isString(args.get(0)) && DECODED_ARGS.equals(path(args.get(1)))
                    ? Set.of(DECODED_ARGS + "." + args.get(0).constant().stringValue())
                    : Set.of();
            default -> Set.of();
        };
    }

    /** Facts that hold whenever {@code e} evaluates to false. */
    private Set<String> whenFalse(CelExpr e) {
        if (e.getKind() != CelExpr.ExprKind.Kind.CALL) {
            return Set.of();
        }
        List<CelExpr> args = e.call().args();
        return switch (CelSemantics.call(e.call().function())) {
            case AND -> intersection(whenFalse(args.get(0)), whenFalse(args.get(1)));
            case OR -> union(whenFalse(args.get(0)), whenFalse(args.get(1)));
            case NOT -> whenTrue(args.get(0));
            case CONDITIONAL -> intersection(union(whenTrue(args.get(0)), whenFalse(args.get(1))),
                    union(whenFalse(args.get(0)), whenFalse(args.get(2))));
            default -> Set.of();
        };
    }

    /** {@code section.field} or {@code resource.decoded_args.key} for a select chain from a variable, else null. */
    static String path(CelExpr e) {
        if (e.getKind() == CelExpr.ExprKind.Kind.IDENT) {
            return e.ident().name();
        }
        if (e.getKind() != CelExpr.ExprKind.Kind.SELECT) {
            return null;
        }
        String operand = path(e.select().operand());
        return operand == null ? null : operand + "." + e.select().field();
    }

    private static boolean isString(CelExpr e) {
        return e.getKind() == CelExpr.ExprKind.Kind.CONSTANT
                && e.constant().getKind() == CelConstant.Kind.STRING_VALUE;
    }

    private int offsetOf(CelExpr e) {
        Integer p = positions.get(e.id());
        return p == null ? 0 : p;
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        if (b.isEmpty()) {
            return a;
        }
        if (a.isEmpty()) {
            return b;
        }
        Set<String> s = new HashSet<>(a);
        s.addAll(b);
        return s;
    }

    private static Set<String> intersection(Set<String> a, Set<String> b) {
        if (a.isEmpty() || b.isEmpty()) {
            return Set.of();
        }
        Set<String> s = new HashSet<>(a);
        s.retainAll(b);
        return s;
    }
}
