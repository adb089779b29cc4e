package dev.custody.engine.compile;

import dev.custody.engine.internal.access.ClassPathReads;
import com.google.re2j.Pattern;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What the cost meter charges cel-java, beyond one unit per sub-expression, for the value a sub-expression
 * produces, by the role it plays for its parent ({@link CostMeter} has the model): a string operand of a
 * comparison, the receiver of {@code startsWith}/{@code endsWith}, the argument of {@code size} (its characters),
 * the input of {@code matches} ({@link CostMeter#regexUnits}), the receiver and argument of {@code contains}, the
 * list {@code in} scans; and, by its own kind, a value the condition builds (a list or map literal, a {@code +},
 * a comprehension's result). Every node has one parent, so one role; cel-java evaluates a call's receiver before
 * its arguments, so the receiver of {@code contains} is known when its argument is charged.
 *
 * <p>Immutable and thread-safe once built; the {@code stash} of {@link #charge} is per evaluation.
 */
final class CostRoles {
    static {
        ClassPathReads.ensure(); // before this class links any cel-java type (module-info.java)
    }

    private static final CostRoles NONE = new CostRoles(new byte[0], new long[0], new boolean[0]);
    private static final byte SCAN = 1;
    private static final byte REGEX = 2;
    private static final byte CONTAINS_RECEIVER = 3;
    private static final byte CONTAINS_ARG = 4;
    private static final byte IN_CONTAINER = 5;
    private static final byte SIZE = 6;
    /** Ids above this get no roles (the charge is then one unit); parsed conditions never come near it. */
    private static final long MAX_ID = 1 << 20;

    private final byte[] role;
    /** The program size of a {@link #REGEX} role. */
    private final long[] param;
    private final boolean[] built;

    private CostRoles(byte[] role, long[] param, boolean[] built) {
        this.role = role;
        this.param = param;
        this.built = built;
    }

    /**
     * The units charged, beyond one, when the sub-expression {@code id} produces {@code value}; {@code stash}
     * (one element, per evaluation) carries the units of the last receiver of {@code contains} to its argument.
     */
    long charge(long id, Object value, long[] stash) {
        if (id < 0 || id >= role.length) {
            return 0;
        }
        int i = (int) id;
        long c = 0;
        if (value instanceof String s) {
            long chars = CostMeter.chars(s.length());
            switch (role[i]) {
                case SCAN -> c += chars;
                case SIZE -> c += CostMeter.sizeUnits(s.length());
                case REGEX -> c += CostMeter.regexUnits(s.length(), param[i]);
                case CONTAINS_RECEIVER -> {
                    c += chars;
                    stash[0] = chars;
                }
                case CONTAINS_ARG -> c += stash[0] * chars;
                default -> {
                    // no role
                }
            }
            if (built[i]) {
                c += chars;
            }
        } else if (value instanceof List<?> l) {
            if (role[i] == IN_CONTAINER) {
                c += CostMeter.scanCharge(l);
            }
            if (built[i]) {
                c += (long) CostMeter.ELEMENT_UNITS * l.size();
            }
        } else if (built[i]) {
            if (value instanceof Collection<?> col) {
                c += (long) CostMeter.ELEMENT_UNITS * col.size();
            } else if (value instanceof Map<?, ?> m) {
                c += (long) CostMeter.ELEMENT_UNITS * m.size();
            }
        }
        return c;
    }

    /** The number of nodes of a tree. */
    static long count(CelExpr root) {
        long[] n = {0};
        walk(root, e -> n[0]++);
        return n[0];
    }

    /**
     * The number of nodes inside a loop: in the loop condition or the step of a comprehension, at any depth. The
     * compiled form charges these per evaluation (ClosureCompiler.Counted), the rest once up front.
     */
    static long loopNodes(CelExpr root) {
        long n = 0;
        ArrayDeque<CelExpr> pending = new ArrayDeque<>();
        pending.push(root);
        while (!pending.isEmpty()) {
            CelExpr e = pending.pop();
            if (e.getKind() == CelExpr.ExprKind.Kind.COMPREHENSION) {
                var c = e.comprehension();
                n += count(c.loopCondition()) + count(c.loopStep());
                pending.push(c.iterRange());
                pending.push(c.accuInit());
                pending.push(c.result());
            } else {
                children(e, pending::push);
            }
        }
        return n;
    }

    /** The roles of a checked condition's sub-expressions. */
    static CostRoles of(CelExpr root, int maxRegexProgramSize) {
        long[] max = {0};
        walk(root, e -> max[0] = Math.max(max[0], e.id()));
        if (max[0] > MAX_ID) {
            return NONE;
        }
        int n = (int) max[0] + 1;
        byte[] role = new byte[n];
        long[] param = new long[n];
        boolean[] built = new boolean[n];
        walk(root, e -> {
            switch (e.getKind()) {
                case LIST, MAP, COMPREHENSION -> built[(int) e.id()] = true;
                case CALL -> {
                    CelExpr.CelCall call = e.call();
                    List<CelExpr> args = new java.util.ArrayList<>();
                    call.target().ifPresent(args::add);
                    args.addAll(call.args());
                    switch (CelSemantics.call(call.function())) {
                        case ADD -> built[(int) e.id()] = true;
                        case EQUALS, NOT_EQUALS, LESS, LESS_EQUALS, GREATER, GREATER_EQUALS -> args.forEach(a -> role[(int) a.id()] = SCAN);
                        case IN -> {
                            if (args.size() == 2) {
                                role[(int) args.get(1).id()] = IN_CONTAINER;
                            }
                        }
                        case STARTS_WITH, ENDS_WITH -> {
                            if (!args.isEmpty()) {
                                role[(int) args.get(0).id()] = SCAN;
                            }
                        }
                        case SIZE -> {
                            if (args.size() == 1) {
                                role[(int) args.get(0).id()] = SIZE;
                            }
                        }
                        case CONTAINS -> {
                            if (args.size() == 2) {
                                role[(int) args.get(0).id()] = CONTAINS_RECEIVER;
                                role[(int) args.get(1).id()] = CONTAINS_ARG;
                            }
                        }
                        case MATCHES -> {
                            if (args.size() == 2) {
                                role[(int) args.get(0).id()] = REGEX;
                                param[(int) args.get(0).id()] = programSize(args.get(1), maxRegexProgramSize);
                            }
                        }
                        default -> {
                            // charged one unit, as every sub-expression
                        }
                    }
                }
                default -> {
                    // constants, identifiers, selections: one unit
                }
            }
        });
        return new CostRoles(role, param, built);
    }

    /**
     * The program size a {@code matches} pattern is charged by: that of a constant pattern, else the largest the
     * compiler admits (a pattern built at run time is charged as the worst it may be).
     */
    static long programSize(CelExpr pattern, int maxRegexProgramSize) {
        if (pattern.getKind() == CelExpr.ExprKind.Kind.CONSTANT
                && pattern.constant().getKind() == CelConstant.Kind.STRING_VALUE) {
            try {
                return Pattern.compile(pattern.constant().stringValue()).programSize();
            } catch (RuntimeException e) {
                // a pattern that does not compile errs at run time, after its input was read
            }
        }
        return maxRegexProgramSize;
    }

    /** Visits every node of a tree, iteratively (trees can be deep). */
    static void walk(CelExpr root, Consumer<CelExpr> visit) {
        ArrayDeque<CelExpr> pending = new ArrayDeque<>();
        pending.push(root);
        while (!pending.isEmpty()) {
            CelExpr e = pending.pop();
            visit.accept(e);
            children(e, pending::push);
        }
    }

    /** Gives each direct sub-expression of {@code e} to {@code add}. */
    private static void children(CelExpr e, Consumer<CelExpr> add) {
        switch (e.getKind()) {
            case SELECT -> add.accept(e.select().operand());
            case CALL -> {
                e.call().target().ifPresent(add);
                e.call().args().forEach(add);
            }
            case LIST -> e.list().elements().forEach(add);
            case MAP -> e.map().entries().forEach(x -> {
                add.accept(x.key());
                add.accept(x.value());
            });
            case STRUCT -> e.struct().entries().forEach(x -> add.accept(x.value()));
            case COMPREHENSION -> {
                var c = e.comprehension();
                add.accept(c.iterRange());
                add.accept(c.accuInit());
                add.accept(c.loopCondition());
                add.accept(c.loopStep());
                add.accept(c.result());
            }
            default -> {
                // constants and identifiers have no sub-expressions
            }
        }
    }
}
