package dev.custody.engine.compile;

import dev.custody.engine.internal.access.ClassPathReads;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The branch outcomes of a condition without cel-java, for coverage only: a small tree, built from the checked
 * syntax tree, that evaluates the sub-expressions cel-java would evaluate, in the same order, with the same
 * short-circuits, and notes the boolean value of each branch. It never decides anything: {@link ConditionBranches}
 * uses it to count, and when it meets anything it was not built for, it gives up ({@link Unsure}) and the
 * condition is evaluated on cel-java under a listener instead. Its results must equal the listener's; a
 * differential test compares the two on generated payloads.
 *
 * <h2>Fragment</h2>
 * Section reads and field selects on maps (an absent key is an error), {@code has()}, int/double/string/bool
 * constants, {@code &&} and {@code ||} (left first; a false left operand of {@code &&}, or a true one of
 * {@code ||}, skips the right; an error on one side is absorbed by a false/true other side), {@code !},
 * {@code ?:}, {@code ==} and {@code !=} on numbers (int against double as cel-java compares them), strings and
 * booleans, {@code <}, {@code <=}, {@code >}, {@code >=} on numbers, {@code in} over a list of such constants,
 * {@code startsWith}/{@code endsWith}/{@code contains} on strings, {@code +} on two doubles or two ints (an int
 * overflow is an error). A condition with anything else is not built ({@link #build} returns null); a value of an
 * unexpected type at run time gives up.
 *
 * <p>Immutable and thread-safe.
 */
final class BranchProbe {
    static {
        ClassPathReads.ensure(); // before this class links any cel-java type (module-info.java)
    }

    /** An evaluation error (an absent field, an overflow): no boolean, absorbed by {@code &&}/{@code ||}. */
    private static final Object ERROR = new Object() {
        @Override
        public String toString() {
            return "<error>";
        }
    };

    /** Thrown when a value is not one the probe was built for: the caller asks cel-java instead. */
    static final class Unsure extends RuntimeException {
        static final Unsure INSTANCE = new Unsure();

        private Unsure() {
            super("unsure", null, false, false);
        }
    }

    /** The outcomes of one evaluation, by branch index: 0 not evaluated, 1 true, 2 false. */
    interface Node {
        Object eval(Map<String, Map<String, Object>> sections, byte[] outcomes);
    }

    private final Node root;

    private BranchProbe(Node root) {
        this.root = root;
    }

    /**
     * A probe for a condition, or null when the condition is outside the fragment.
     *
     * @param branchOf the branch index of an expression id, or -1
     */
    static BranchProbe build(CelExpr root, java.util.function.LongToIntFunction branchOf) {
        try {
            return new BranchProbe(node(root, branchOf));
        } catch (Unsure e) {
            return null;
        }
    }

    /**
     * Evaluates, filling {@code outcomes} (one byte per branch, cleared first).
     *
     * @throws Unsure when a value is outside the fragment (the outcomes are then meaningless)
     */
    void run(Map<String, Map<String, Object>> sections, byte[] outcomes) {
        java.util.Arrays.fill(outcomes, (byte) 0);
        root.eval(sections, outcomes);
    }

    private static Node node(CelExpr e, java.util.function.LongToIntFunction branchOf) {
        Node n = plain(e, branchOf);
        int index = branchOf.applyAsInt(e.id());
        if (index < 0) {
            return n;
        }
        return (sections, outcomes) -> {
            Object v = n.eval(sections, outcomes);
            if (v instanceof Boolean b) {
                outcomes[index] = (byte) (b ? 1 : 2);
            }
            return v;
        };
    }

    private static Node plain(CelExpr e, java.util.function.LongToIntFunction branchOf) {
        switch (e.getKind()) {
            case CONSTANT -> {
                Object c = constant(e.constant());
                return (sections, outcomes) -> c;
            }
            case IDENT -> {
                String name = e.ident().name();
                return (sections, outcomes) -> {
                    Map<String, Object> section = sections.get(name);
                    return section == null ? ERROR : section;
                };
            }
            case SELECT -> {
                Node operand = node(e.select().operand(), branchOf);
                String field = e.select().field();
                if (e.select().testOnly()) {
                    return (sections, outcomes) -> {
                        Object o = operand.eval(sections, outcomes);
                        if (o == ERROR) {
                            return ERROR;
                        }
                        if (o instanceof Map<?, ?> m) {
                            return m.containsKey(field);
                        }
                        throw Unsure.INSTANCE;
                    };
                }
                return (sections, outcomes) -> {
                    Object o = operand.eval(sections, outcomes);
                    if (o == ERROR) {
                        return ERROR;
                    }
                    if (o instanceof Map<?, ?> m) {
                        Object v = m.get(field);
                        if (v == null) {
                            if (m.containsKey(field)) {
                                throw Unsure.INSTANCE;
                            }
                            return ERROR;
                        }
                        return v;
                    }
                    throw Unsure.INSTANCE;
                };
            }
            case CALL -> {
                return call(e, branchOf);
            }
            default -> throw Unsure.INSTANCE;
        }
    }

    private static Object constant(CelConstant c) {
        return switch (c.getKind()) {
            case BOOLEAN_VALUE -> c.booleanValue();
            case INT64_VALUE -> c.int64Value();
            case DOUBLE_VALUE -> c.doubleValue();
            case STRING_VALUE -> c.stringValue();
            default -> throw Unsure.INSTANCE;
        };
    }

    private static Node call(CelExpr e, java.util.function.LongToIntFunction branchOf) {
        CelSemantics.Call f = CelSemantics.call(e.call().function());
        List<CelExpr> args = e.call().args();
        if (e.call().target().isPresent()) {
            if (args.size() != 1 || !(f == CelSemantics.Call.STARTS_WITH || f == CelSemantics.Call.ENDS_WITH
                    || f == CelSemantics.Call.CONTAINS)) {
                throw Unsure.INSTANCE;
            }
            Node target = node(e.call().target().get(), branchOf);
            Node arg = node(args.get(0), branchOf);
            return (sections, outcomes) -> {
                Object t = target.eval(sections, outcomes);
                if (t == ERROR) {
                    return ERROR; // cel-java's strict calls stop at the first error: the argument is not evaluated
                }
                Object a = arg.eval(sections, outcomes);
                if (a == ERROR) {
                    return ERROR;
                }
                if (t instanceof String s && a instanceof String x) {
                    return switch (f) {
                        case STARTS_WITH -> s.startsWith(x);
                        case ENDS_WITH -> s.endsWith(x);
                        default -> s.contains(x);
                    };
                }
                throw Unsure.INSTANCE;
            };
        }
        switch (f) {
            case AND, OR -> {
                if (args.size() != 2) {
                    throw Unsure.INSTANCE;
                }
                Node left = node(args.get(0), branchOf);
                Node right = node(args.get(1), branchOf);
                if (f == CelSemantics.Call.AND) {
                    return (sections, outcomes) -> {
                        Object l = logical(left.eval(sections, outcomes));
                        return CelSemantics.isFalse(l) ? l : CelSemantics.and(l, logical(right.eval(sections, outcomes)));
                    };
                }
                return (sections, outcomes) -> {
                    Object l = logical(left.eval(sections, outcomes));
                    return CelSemantics.isTrue(l) ? l : CelSemantics.or(l, logical(right.eval(sections, outcomes)));
                };
            }
            case NOT -> {
                Node operand = node(args.get(0), branchOf);
                return (sections, outcomes) -> CelSemantics.not(logical(operand.eval(sections, outcomes)));
            }
            case CONDITIONAL -> {
                Node c = node(args.get(0), branchOf);
                Node yes = node(args.get(1), branchOf);
                Node no = node(args.get(2), branchOf);
                return (sections, outcomes) -> {
                    Object v = logical(c.eval(sections, outcomes));
                    if (v == ERROR) {
                        return ERROR;
                    }
                    return ((Boolean) v ? yes : no).eval(sections, outcomes);
                };
            }
            case EQUALS, NOT_EQUALS -> {
                boolean eq = f == CelSemantics.Call.EQUALS;
                return binary(args, branchOf, (l, r) -> equal(l, r) == eq);
            }
            case LESS, LESS_EQUALS, GREATER, GREATER_EQUALS -> {
                int op = CelSemantics.ordering(f);
                return binary(args, branchOf, (l, r) -> ordered(op, l, r));
            }
            case IN -> {
                if (args.get(1).getKind() != CelExpr.ExprKind.Kind.LIST) {
                    throw Unsure.INSTANCE;
                }
                Node element = node(args.get(0), branchOf);
                List<Object> list = new ArrayList<>();
                for (CelExpr x : args.get(1).list().elements()) {
                    if (x.getKind() != CelExpr.ExprKind.Kind.CONSTANT || branchOf.applyAsInt(x.id()) >= 0) {
                        throw Unsure.INSTANCE;
                    }
                    list.add(constant(x.constant()));
                }
                if (!args.get(1).list().optionalIndices().isEmpty()) {
                    throw Unsure.INSTANCE;
                }
                return (sections, outcomes) -> {
                    Object v = element.eval(sections, outcomes);
                    if (v == ERROR) {
                        return ERROR;
                    }
                    for (Object x : list) {
                        if (equal(v, x)) {
                            return true;
                        }
                    }
                    return false;
                };
            }
            case ADD -> {
                return binary(args, branchOf, (l, r) -> {
                    if (l instanceof Double a && r instanceof Double b) {
                        return a + b;
                    }
                    if (l instanceof Long a && r instanceof Long b) {
                        long sum = a + b;
                        return ((a ^ sum) & (b ^ sum)) < 0 ? ERROR : (Object) sum;
                    }
                    throw Unsure.INSTANCE;
                });
            }
            default -> throw Unsure.INSTANCE;
        }
    }

    /**
     * Both operands, left first; an error in either is the result, else {@code op} of the two values. As in
     * cel-java, whose strict calls stop at the first error, the right operand is not evaluated (nor its branches
     * noted) when the left one fails.
     */
    private static Node binary(List<CelExpr> args, java.util.function.LongToIntFunction branchOf,
            java.util.function.BinaryOperator<Object> op) {
        if (args.size() != 2) {
            throw Unsure.INSTANCE;
        }
        Node left = node(args.get(0), branchOf);
        Node right = node(args.get(1), branchOf);
        return (sections, outcomes) -> {
            Object l = left.eval(sections, outcomes);
            if (l == ERROR) {
                return ERROR;
            }
            Object r = right.eval(sections, outcomes);
            return r == ERROR ? ERROR : op.apply(l, r);
        };
    }

    /** A boolean or an error as {@code &&}, {@code ||}, {@code !} and {@code ?:} see it; anything else gives up. */
    private static Object logical(Object v) {
        if (v instanceof Boolean || v == ERROR) {
            return v;
        }
        throw Unsure.INSTANCE;
    }

    /** CEL equality of two scalars as cel-java has it ({@link CelSemantics}): numbers, strings, booleans. */
    private static boolean equal(Object a, Object b) {
        Boolean numbers = CelSemantics.equalNumbers(a, b);
        if (numbers != null) {
            return numbers;
        }
        if ((a instanceof String && b instanceof String) || (a instanceof Boolean && b instanceof Boolean)) {
            return a.equals(b);
        }
        throw Unsure.INSTANCE;
    }

    /** {@code <}, {@code <=}, {@code >}, {@code >=} on two numbers as cel-java orders them ({@link CelSemantics}). */
    private static boolean ordered(int op, Object l, Object r) {
        Boolean numbers = CelSemantics.orderNumbers(op, l, r);
        if (numbers == null) {
            throw Unsure.INSTANCE;
        }
        return numbers;
    }
}
