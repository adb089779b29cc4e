package dev.custody.engine.compile;

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
 * produces, by the role that sub-expression plays in the condition ({@link CostMeter} has the model): the input
 * of {@code matches} (its characters times the regex's program size), the receiver of a string test or the
 * argument of {@code size} (its characters), the list {@code in} scans (its elements), and a value the condition
 * builds (a literal, a {@code +}, a comprehension's result: its characters or elements).
 *
 * <p>Immutable and thread-safe once built.
 */
final class CostRoles {
    private static final CostRoles NONE = new CostRoles(new long[0], new byte[0]);
    private static final byte BUILT = 1;
    private static final byte SCANNED = 2;
    /** Ids above this get no roles (the charge is then one unit); parsed conditions never come near it. */
    private static final long MAX_ID = 1 << 20;

    /** Per expression id: the factor its string value is charged by (0: none). */
    private final long[] stringFactor;
    /** Per expression id: {@link #BUILT} and {@link #SCANNED} flags. */
    private final byte[] flags;

    private CostRoles(long[] stringFactor, byte[] flags) {
        this.stringFactor = stringFactor;
        this.flags = flags;
    }

    /** The units charged, beyond one, when the sub-expression {@code id} produces {@code value}. */
    long charge(long id, Object value) {
        if (id < 0 || id >= flags.length) {
            return 0;
        }
        int i = (int) id;
        long c = 0;
        long f = stringFactor[i];
        if (f != 0 && value instanceof String s) {
            c += CostMeter.chars(s.length()) * f;
        }
        byte fl = flags[i];
        if ((fl & BUILT) != 0) {
            if (value instanceof String s) {
                c += CostMeter.chars(s.length());
            } else if (value instanceof Collection<?> col) {
                c += col.size();
            } else if (value instanceof Map<?, ?> m) {
                c += m.size();
            }
        }
        if ((fl & SCANNED) != 0 && value instanceof List<?> l) {
            c += l.size();
        }
        return c;
    }

    /** The number of nodes of a tree. */
    static long count(CelExpr root) {
        long[] n = {0};
        walk(root, e -> n[0]++);
        return n[0];
    }

    /** The roles of a checked condition's sub-expressions. */
    static CostRoles of(CelExpr root, int maxRegexProgramSize) {
        long[] max = {0};
        walk(root, e -> max[0] = Math.max(max[0], e.id()));
        if (max[0] > MAX_ID) {
            return NONE;
        }
        long[] factor = new long[(int) max[0] + 1];
        byte[] flags = new byte[factor.length];
        walk(root, e -> {
            switch (e.getKind()) {
                case LIST, MAP, COMPREHENSION -> flags[(int) e.id()] |= BUILT;
                case CALL -> {
                    CelExpr.CelCall call = e.call();
                    List<CelExpr> args = new java.util.ArrayList<>();
                    call.target().ifPresent(args::add);
                    args.addAll(call.args());
                    switch (call.function()) {
                        case "_+_" -> flags[(int) e.id()] |= BUILT;
                        case "@in" -> {
                            if (args.size() == 2) {
                                flags[(int) args.get(1).id()] |= SCANNED;
                            }
                        }
                        case "startsWith", "endsWith", "size" -> {
                            if (!args.isEmpty()) {
                                factor[(int) args.get(0).id()] += 1;
                            }
                        }
                        case "contains" -> args.forEach(a -> factor[(int) a.id()] += 1);
                        case "matches" -> {
                            if (args.size() == 2) {
                                factor[(int) args.get(0).id()] += regexFactor(args.get(1), maxRegexProgramSize);
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
        return new CostRoles(factor, flags);
    }

    /**
     * The factor of a {@code matches} pattern: the program size of a constant pattern, else the largest program
     * the compiler admits (a pattern built at run time is charged as the worst it may be).
     */
    static long regexFactor(CelExpr pattern, int maxRegexProgramSize) {
        if (pattern.getKind() == CelExpr.ExprKind.Kind.CONSTANT
                && pattern.constant().getKind() == CelConstant.Kind.STRING_VALUE) {
            try {
                return CostMeter.regexFactor(Pattern.compile(pattern.constant().stringValue()).programSize());
            } catch (RuntimeException e) {
                // a pattern that does not compile errs at run time, after its input was read
            }
        }
        return CostMeter.regexFactor(maxRegexProgramSize);
    }

    /** Visits every node of a tree, iteratively (trees can be deep). */
    static void walk(CelExpr root, Consumer<CelExpr> visit) {
        ArrayDeque<CelExpr> pending = new ArrayDeque<>();
        pending.push(root);
        while (!pending.isEmpty()) {
            CelExpr e = pending.pop();
            visit.accept(e);
            switch (e.getKind()) {
                case SELECT -> pending.push(e.select().operand());
                case CALL -> {
                    e.call().target().ifPresent(pending::push);
                    e.call().args().forEach(pending::push);
                }
                case LIST -> e.list().elements().forEach(pending::push);
                case MAP -> e.map().entries().forEach(x -> {
                    pending.push(x.key());
                    pending.push(x.value());
                });
                case STRUCT -> e.struct().entries().forEach(x -> pending.push(x.value()));
                case COMPREHENSION -> {
                    var c = e.comprehension();
                    pending.push(c.iterRange());
                    pending.push(c.accuInit());
                    pending.push(c.loopCondition());
                    pending.push(c.loopStep());
                    pending.push(c.result());
                }
                default -> {
                    // constants and identifiers have no sub-expressions
                }
            }
        }
    }
}
