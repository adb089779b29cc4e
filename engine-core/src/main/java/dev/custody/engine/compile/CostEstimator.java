package dev.custody.engine.compile;

import dev.custody.engine.internal.access.ClassPathReads;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.types.CelKind;
import dev.custody.engine.check.PayloadValidator;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.Limits;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The worst-case cost ({@link CostMeter}) of a checked condition over every payload the payload check accepts,
 * computed from the tree alone, as cel-go's {@code EstimateCost} does: each sub-expression is charged as if it
 * were evaluated (both branches of {@code &&}, {@code ||} and {@code ?:}), every string or collection at the
 * largest size the payload limits allow (docs/design.md §3.14: {@value Limits#PAYLOAD_STRING_MAX} characters for
 * a typed field; {@value Limits#DECODED_ARG_STRING_MAX} characters or {@value PayloadValidator#MAX_ENTRIES}
 * elements for a value inside {@code decoded_args}), and every comprehension for as many iterations as its range
 * can hold, at most the compiler's iteration bound. So the estimate is never below what the meter charges, and
 * usually far above it. Not thread-safe; one per condition.
 */
final class CostEstimator {
    static {
        ClassPathReads.ensure(); // before this class links any cel-java type (module-info.java)
    }

    /** The largest a value read from {@code decoded_args} can be: characters of a string, or elements. */
    private static final long DYN_SIZE = Math.max(Limits.DECODED_ARG_STRING_MAX, PayloadValidator.MAX_ENTRIES);
    /** At or above this the estimate is reported as unbounded. */
    private static final long UNBOUNDED = Long.MAX_VALUE / 4;

    /** A sub-expression's cost and the size of its value: characters or elements, and those of an element. */
    private record Est(long cost, long size, long element) {}

    private final CelAbstractSyntaxTree ast;
    private final TriggerAction action;
    private final int maxRegexProgramSize;
    private final long maxIterations;
    private final Map<String, Est> variables = new HashMap<>();

    CostEstimator(CelAbstractSyntaxTree ast, TriggerAction action, int maxRegexProgramSize, int maxIterations) {
        this.ast = ast;
        this.action = action;
        this.maxRegexProgramSize = maxRegexProgramSize;
        this.maxIterations = maxIterations;
    }

    /** The estimate, or -1 when it is too large to be a bound worth the name. */
    long estimate() {
        try {
            long c = est(ast.getExpr(), 0).cost;
            return c >= UNBOUNDED ? -1 : c;
        } catch (RuntimeException | StackOverflowError e) {
            return -1;
        }
    }

    private static long add(long a, long b) {
        long r = a + b;
        return r < 0 || r > UNBOUNDED ? UNBOUNDED : r;
    }

    private static long mul(long a, long b) {
        if (a == 0 || b == 0) {
            return 0;
        }
        return a > UNBOUNDED / b ? UNBOUNDED : a * b;
    }

    private boolean isString(CelExpr e) {
        return ast.getType(e.id()).map(t -> t.kind() == CelKind.STRING).orElse(false);
    }

    private Est est(CelExpr e, int depth) {
        if (depth > 10_000) {
            throw new IllegalStateException("too deep");
        }
        return switch (e.getKind()) {
            case CONSTANT -> new Est(1, e.constant().getKind() == CelConstant.Kind.STRING_VALUE
                    ? e.constant().stringValue().length() : 0, 0);
            case IDENT -> variables.getOrDefault(e.ident().name(), new Est(1, 64, DYN_SIZE));
            case SELECT -> select(e, depth);
            case LIST -> {
                long cost = 1;
                long element = 0;
                for (CelExpr x : e.list().elements()) {
                    Est v = est(x, depth + 1);
                    cost = add(cost, v.cost);
                    element = Math.max(element, v.size);
                }
                long n = e.list().elements().size();
                yield new Est(add(cost, CostMeter.ELEMENT_UNITS * n), n, element);
            }
            case MAP -> {
                long cost = 1;
                long element = 0;
                for (CelExpr.CelMap.Entry x : e.map().entries()) {
                    Est v = est(x.value(), depth + 1);
                    cost = add(add(cost, est(x.key(), depth + 1).cost), v.cost);
                    element = Math.max(element, v.size);
                }
                long n = e.map().entries().size();
                yield new Est(add(cost, CostMeter.ELEMENT_UNITS * n), n, element);
            }
            case CALL -> call(e, depth);
            case COMPREHENSION -> comprehension(e, depth);
            default -> new Est(UNBOUNDED, DYN_SIZE, DYN_SIZE);
        };
    }

    private Est select(CelExpr e, int depth) {
        CelExpr operand = e.select().operand();
        if (operand.getKind() == CelExpr.ExprKind.Kind.IDENT && !variables.containsKey(operand.ident().name())) {
            var section = Section.fromWireName(operand.ident().name());
            if (section.isPresent() && FieldSchema.hasSection(action, section.get())) {
                var spec = FieldSchema.field(section.get(), e.select().field());
                if (spec.isPresent()) {
                    long size = switch (spec.get().type()) {
                        case STRING -> Limits.PAYLOAD_STRING_MAX;
                        case MAP -> PayloadValidator.MAX_ENTRIES;
                        default -> 0;
                    };
                    return new Est(2, size, spec.get().type() == dev.custody.engine.schema.FieldType.MAP ? DYN_SIZE : 0);
                }
            }
        }
        Est from = est(operand, depth + 1);
        return new Est(add(from.cost, 1), DYN_SIZE, DYN_SIZE);
    }

    private Est call(CelExpr e, int depth) {
        List<CelExpr> args = new ArrayList<>();
        e.call().target().ifPresent(args::add);
        args.addAll(e.call().args());
        List<Est> a = new ArrayList<>();
        long cost = 1;
        for (CelExpr x : args) {
            Est v = est(x, depth + 1);
            a.add(v);
            cost = add(cost, v.cost);
        }
        switch (CelSemantics.call(e.call().function())) {
            case ADD -> {
                long size = add(a.get(0).size, a.get(1).size);
                long charge = isString(e) ? chars(size) : mul(CostMeter.ELEMENT_UNITS, size);
                return new Est(add(cost, charge), size, Math.max(a.get(0).element, a.get(1).element));
            }
            case IN -> {
                if (ast.getType(args.get(1).id()).map(t -> t.kind() == CelKind.MAP).orElse(false)) {
                    return new Est(cost, 0, 0); // a key looked up, not a list scanned
                }
                Est container = a.get(1);
                long scan = fromPayloadArgs(container)
                        // strings inside decoded_args share one budget of characters
                        ? add(container.size, chars(Limits.DECODED_ARGS_CHARS_MAX))
                        : mul(container.size, Math.max(1, chars(container.element)));
                return new Est(add(cost, scan), 0, 0);
            }
            case STARTS_WITH, ENDS_WITH -> {
                return new Est(add(cost, chars(a.get(0).size)), 0, 0);
            }
            case SIZE -> {
                return new Est(add(cost, (a.get(a.size() - 1).size + 1) / 2), 0, 0);
            }
            case EQUALS, NOT_EQUALS, LESS, LESS_EQUALS, GREATER, GREATER_EQUALS -> {
                return new Est(add(add(cost, chars(a.get(0).size)), chars(a.get(1).size)), 0, 0);
            }
            case CONTAINS -> {
                long scan = chars(a.get(0).size);
                return new Est(add(add(cost, scan), mul(scan, chars(a.get(1).size))), 0, 0);
            }
            case MATCHES -> {
                long size = a.get(0).size;
                long program = CostRoles.programSize(args.get(1), maxRegexProgramSize);
                return new Est(add(cost, add(mul(3, size), mul(size, Math.max(1, program)) / 200 + 1)), 0, 0);
            }
            case INDEX -> {
                return new Est(cost, a.get(0).element, DYN_SIZE);
            }
            case CONDITIONAL -> {
                return new Est(cost, Math.max(a.get(1).size, a.get(2).size), Math.max(a.get(1).element, a.get(2).element));
            }
            case STRING -> {
                return new Est(cost, Math.max(32, a.isEmpty() ? 0 : a.get(0).size), 0);
            }
            default -> {
                return new Est(cost, 32, 0);
            }
        }
    }

    /** Whether a collection was read from {@code decoded_args} (its elements are sized as such values are). */
    private static boolean fromPayloadArgs(Est collection) {
        return collection.element >= DYN_SIZE;
    }

    private static long chars(long size) {
        return CostMeter.chars((int) Math.min(size, Integer.MAX_VALUE - CostMeter.CHARS_PER_UNIT));
    }

    private Est comprehension(CelExpr e, int depth) {
        var c = e.comprehension();
        Est range = est(c.iterRange(), depth + 1);
        long iterations = Math.min(range.size, maxIterations);
        Est init = est(c.accuInit(), depth + 1);
        Map<String, Est> saved = new HashMap<>(variables);
        // over decoded_args, the strings of all iterations share one budget of characters: charges grow with the
        // element's size linearly, so an iteration charged at the average size bounds them all together
        long element = fromPayloadArgs(range)
                ? Math.min(range.element, Limits.DECODED_ARGS_CHARS_MAX / Math.max(1, iterations) + 1)
                : range.element;
        variables.put(c.iterVar(), new Est(1, element, DYN_SIZE));
        variables.put(c.accuVar(), new Est(1, Math.max(init.size, iterations), DYN_SIZE));
        try {
            Est condition = est(c.loopCondition(), depth + 1);
            Est step = est(c.loopStep(), depth + 1);
            Est result = est(c.result(), depth + 1);
            long cost = add(add(add(1, range.cost), init.cost), mul(iterations, add(condition.cost, step.cost)));
            cost = add(add(cost, result.cost), mul(CostMeter.ELEMENT_UNITS, result.size));
            return new Est(cost, result.size, result.element);
        } finally {
            variables.clear();
            variables.putAll(saved);
        }
    }
}
