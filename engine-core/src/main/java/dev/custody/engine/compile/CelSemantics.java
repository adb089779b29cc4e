package dev.custody.engine.compile;

import dev.custody.engine.internal.access.ClassPathReads;
import dev.cel.checker.CelStandardDeclarations.StandardFunction;
import dev.cel.common.Operator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The one meaning of CEL that every part of the engine which interprets a condition without cel-java takes
 * its operators, its numeric comparisons and its error absorption from.
 *
 * <h2>Why one place</h2>
 * A condition is given a meaning by cel-java (the reference: whatever it decides is the decision), and again by
 * each part that reads conditions itself: the compiled path ({@code ClosureCompiler}), the branch probe behind
 * coverage ({@code BranchProbe}, {@link ConditionBranches}), the static cost estimate ({@code CostRoles},
 * {@code CostEstimator}), the static checks and messages ({@code ConditionAnalyzer}, {@code IssueTranslator}) and
 * the Z3 encoding of the analysis module. When each of them spelled the operator names as string literals and
 * kept its own copy of "a double against an int", the copies drifted apart one edge at a time (a double above
 * 2^53, {@code -0.0} against int {@code 0}), and an analysis claim was refuted by a replay. This class is the
 * single copy; the parts call it, and {@code CelSemanticsTest} holds it to cel-java's own evaluator over the
 * boundary values of every pair of numeric types.
 *
 * <h2>What cel-java 0.14.0 does, and so what this class does</h2>
 * <ul>
 *   <li>Operator names are cel-java's {@link Operator} functions ({@code _&&_}, {@code @in}, ...), and the standard
 *       function names its checker declares ({@code size}, {@code startsWith}, ...); none is spelled here.
 *       {@link #call(String)} classifies a function name once, at translation time, into a {@link Call} the parts
 *       switch on.</li>
 *   <li>Numbers of different types (with heterogeneous comparison on, as the engine runs cel-java) compare by
 *       value: a double against an int is below every int when it is below -2^63, above every int when it is
 *       above 2^63 (the infinities included), and otherwise compared with the int converted to double by
 *       {@link Double#compare}; so a large int and the double it rounds to are equal ({@code 2^53 + 1 == 2^53.0}),
 *       {@code -0.0} is below int {@code 0} and unequal to it (where the CEL specification has them equal), and
 *       NaN is above every int and equal to none. An int against a uint compares exactly; a double against a uint
 *       as a double against an int, with the bounds 0 and 2^64. Two doubles use Java's primitive operators:
 *       {@code -0.0 == 0.0}, and NaN is neither below, above nor equal to anything.</li>
 *   <li>{@code a && b} is false when either side is false, whatever the other side did (an error included), else
 *       the left error, else the right error, else true; {@code a || b} likewise with true. The left side is
 *       evaluated first and a deciding left side skips the right. {@code c ? x : y} is the condition's error when
 *       the condition fails, else the chosen branch (the other one is not evaluated); {@code !} passes an error
 *       through. The helpers work on a three-valued operand each part already has: a {@link Boolean}, or any
 *       other object standing for the error (the compiled path's {@code EvalError}, the probe's marker).</li>
 * </ul>
 * Payloads never hold {@code -0.0} ({@link dev.custody.engine.check.PayloadValidator} reads it as {@code 0.0}),
 * so the departure from the specification on signed zero reaches a decision only through a {@code -0.0} literal
 * or arithmetic in a condition, where the engine follows cel-java.
 *
 * <p>Every member is static and small, so the JIT inlines it into the compiled nodes. Stateless and
 * thread-safe.
 */
public final class CelSemantics {
    static {
        ClassPathReads.ensure(); // before this class links any cel-java type (module-info.java)
    }

    private CelSemantics() {}

    // ---------------------------------------------------------------------------------------------------
    // the operator table: cel-java's names

    /** {@code &&}. */
    public static final String AND = Operator.LOGICAL_AND.getFunction();
    /** {@code ||}. */
    public static final String OR = Operator.LOGICAL_OR.getFunction();
    /** {@code !}. */
    public static final String NOT = Operator.LOGICAL_NOT.getFunction();
    /** {@code c ? x : y}. */
    public static final String CONDITIONAL = Operator.CONDITIONAL.getFunction();
    /** The loop condition of the {@code all} and {@code exists} macros. */
    public static final String NOT_STRICTLY_FALSE = Operator.NOT_STRICTLY_FALSE.getFunction();
    /** {@code ==}. */
    public static final String EQUALS = Operator.EQUALS.getFunction();
    /** {@code !=}. */
    public static final String NOT_EQUALS = Operator.NOT_EQUALS.getFunction();
    /** {@code <}. */
    public static final String LESS = Operator.LESS.getFunction();
    /** {@code <=}. */
    public static final String LESS_EQUALS = Operator.LESS_EQUALS.getFunction();
    /** {@code >}. */
    public static final String GREATER = Operator.GREATER.getFunction();
    /** {@code >=}. */
    public static final String GREATER_EQUALS = Operator.GREATER_EQUALS.getFunction();
    /** Binary {@code +}. */
    public static final String ADD = Operator.ADD.getFunction();
    /** Binary {@code -}. */
    public static final String SUBTRACT = Operator.SUBTRACT.getFunction();
    /** {@code *}. */
    public static final String MULTIPLY = Operator.MULTIPLY.getFunction();
    /** {@code /}. */
    public static final String DIVIDE = Operator.DIVIDE.getFunction();
    /** {@code %}. */
    public static final String MODULO = Operator.MODULO.getFunction();
    /** Unary {@code -}. */
    public static final String NEGATE = Operator.NEGATE.getFunction();
    /** {@code a[b]}. */
    public static final String INDEX = Operator.INDEX.getFunction();
    /** {@code a in b}. */
    public static final String IN = Operator.IN.getFunction();
    /** The {@code has()} macro (expanded by the parser into a test-only selection). */
    public static final String HAS = Operator.HAS.getFunction();
    /** The {@code all} macro. */
    public static final String ALL = Operator.ALL.getFunction();
    /** The {@code exists} macro. */
    public static final String EXISTS = Operator.EXISTS.getFunction();
    /** The {@code exists_one} macro. */
    public static final String EXISTS_ONE = Operator.EXISTS_ONE.getFunction();
    /** The {@code map} macro. */
    public static final String MAP = Operator.MAP.getFunction();
    /** The {@code filter} macro. */
    public static final String FILTER = Operator.FILTER.getFunction();
    /** {@code size(x)} and {@code x.size()}. */
    public static final String SIZE = StandardFunction.SIZE.functionName();
    /** {@code s.startsWith(t)}. */
    public static final String STARTS_WITH = StandardFunction.STARTS_WITH.functionName();
    /** {@code s.endsWith(t)}. */
    public static final String ENDS_WITH = StandardFunction.ENDS_WITH.functionName();
    /** {@code s.contains(t)}. */
    public static final String CONTAINS = StandardFunction.CONTAINS.functionName();
    /** {@code s.matches(re)}. */
    public static final String MATCHES = StandardFunction.MATCHES.functionName();
    /** {@code int(x)}. */
    public static final String INT = StandardFunction.INT.functionName();
    /** {@code uint(x)}. */
    public static final String UINT = StandardFunction.UINT.functionName();
    /** {@code double(x)}. */
    public static final String DOUBLE = StandardFunction.DOUBLE.functionName();
    /** {@code string(x)}. */
    public static final String STRING = StandardFunction.STRING.functionName();

    /**
     * The functions the engine's parts know, by meaning; {@link Call#OTHER} for any other name. Parts classify a call
     * once with {@link #call(String)} and switch on the constant.
     */
    public enum Call {
        AND(Operator.LOGICAL_AND), OR(Operator.LOGICAL_OR), NOT(Operator.LOGICAL_NOT), CONDITIONAL(Operator.CONDITIONAL),
        NOT_STRICTLY_FALSE(Operator.NOT_STRICTLY_FALSE),
        EQUALS(Operator.EQUALS), NOT_EQUALS(Operator.NOT_EQUALS),
        LESS(Operator.LESS), LESS_EQUALS(Operator.LESS_EQUALS), GREATER(Operator.GREATER),
        GREATER_EQUALS(Operator.GREATER_EQUALS),
        ADD(Operator.ADD), SUBTRACT(Operator.SUBTRACT), MULTIPLY(Operator.MULTIPLY), DIVIDE(Operator.DIVIDE),
        MODULO(Operator.MODULO), NEGATE(Operator.NEGATE), INDEX(Operator.INDEX), IN(Operator.IN),
        SIZE(StandardFunction.SIZE), STARTS_WITH(StandardFunction.STARTS_WITH), ENDS_WITH(StandardFunction.ENDS_WITH),
        CONTAINS(StandardFunction.CONTAINS), MATCHES(StandardFunction.MATCHES),
        INT(StandardFunction.INT), DOUBLE(StandardFunction.DOUBLE), STRING(StandardFunction.STRING),
        /** Any other function: a part that meets one it does not handle refuses the condition. */
        OTHER((String) null);

        private static final Map<String, Call> BY_FUNCTION = new HashMap<>();

        static {
            for (Call c : values()) {
                if (c.function != null) {
                    BY_FUNCTION.put(c.function, c);
                }
            }
        }

        private final String function;

        Call(Operator operator) {
            this(operator.getFunction());
        }

        Call(StandardFunction function) {
            this(function.functionName());
        }

        Call(String function) {
            this.function = function;
        }

        /** cel-java's name of the function, or null for {@link #OTHER}. */
        public String function() {
            return function;
        }

        /** {@code ==} or {@code !=}. */
        public boolean isEquality() {
            return this == EQUALS || this == NOT_EQUALS;
        }

        /** {@code <}, {@code <=}, {@code >} or {@code >=}. */
        public boolean isOrdering() {
            return this == LESS || this == LESS_EQUALS || this == GREATER || this == GREATER_EQUALS;
        }

        /** {@code &&}, {@code ||} or {@code !}. */
        public boolean isLogical() {
            return this == AND || this == OR || this == NOT;
        }
    }

    /** The meaning of a function name (a call's {@code function()} in the checked tree). */
    public static Call call(String function) {
        Call c = Call.BY_FUNCTION.get(function);
        return c == null ? Call.OTHER : c;
    }

    /**
     * How an operator is written in a condition ({@code _<=_} is {@code <=}, {@code _[_]} is {@code []},
     * {@code _?_:_} is {@code ?:}), for messages; empty for a function that is not an operator.
     */
    public static Optional<String> symbol(String function) {
        if (INDEX.equals(function)) {
            return Optional.of("[]");
        }
        if (CONDITIONAL.equals(function)) {
            return Optional.of("?:");
        }
        Optional<String> binary = Operator.lookupBinaryOperator(function);
        return binary.isPresent() ? binary : Operator.lookupUnaryOperator(function);
    }

    // ---------------------------------------------------------------------------------------------------
    // numbers: int (long), uint (a long's 64 bits read unsigned) and double, as cel-java compares them

    /** The ordering operators as codes for {@link #holds}: {@code <}. */
    public static final int LT = 0;
    /** {@code <=}. */
    public static final int LE = 1;
    /** {@code >}. */
    public static final int GT = 2;
    /** {@code >=}. */
    public static final int GE = 3;

    private static final double INT_MIN_AS_DOUBLE = -0x1p63;
    private static final double INT_MAX_AS_DOUBLE = 0x1p63; // (double) Long.MAX_VALUE rounds up to 2^63
    private static final double UINT_MAX_AS_DOUBLE = 0x1p64;

    /** The code of an ordering operator ({@link #LT} ...), or -1 for any other call. */
    public static int ordering(Call c) {
        return switch (c) {
            case LESS -> LT;
            case LESS_EQUALS -> LE;
            case GREATER -> GT;
            case GREATER_EQUALS -> GE;
            default -> -1;
        };
    }

    /** Whether a three-way comparison's result {@code c} satisfies the ordering {@code op}. */
    public static boolean holds(int op, int c) {
        return switch (op) {
            case LT -> c < 0;
            case LE -> c <= 0;
            case GT -> c > 0;
            default -> c >= 0;
        };
    }

    /** The ordering {@code op} between two doubles: Java's primitive operators (NaN orders with nothing). */
    public static boolean holdsDoubles(int op, double x, double y) {
        return switch (op) {
            case LT -> x < y;
            case LE -> x <= y;
            case GT -> x > y;
            default -> x >= y;
        };
    }

    /**
     * A double against an int, -1, 0 or 1: below -2^63 it is below every int, above 2^63 above every int,
     * otherwise {@link Double#compare} with the int converted to double (so {@code -0.0} is below 0, NaN above
     * every int, and an int that rounds to the double equals it).
     */
    public static int compareDoubleInt(double d, long i) {
        if (d < INT_MIN_AS_DOUBLE) {
            return -1;
        }
        if (d > INT_MAX_AS_DOUBLE) {
            return 1;
        }
        return Double.compare(d, (double) i);
    }

    /** An int against a double: the opposite of {@link #compareDoubleInt}. */
    public static int compareIntDouble(long i, double d) {
        return -compareDoubleInt(d, i);
    }

    /**
     * An int against a uint (its 64 bits unsigned): exact, but for cel-java's one off-by-one, kept here because
     * cel-java is the reference: a uint of 2^63-1 or more is above every int, so int {@code 9223372036854775807}
     * is below uint {@code 9223372036854775807u} and unequal to it.
     */
    public static int compareIntUint(long i, long u) {
        if (i < 0 || u < 0 || u == Long.MAX_VALUE) {
            return -1;
        }
        return Long.compare(i, u);
    }

    /** A uint against an int: the opposite of {@link #compareIntUint}. */
    public static int compareUintInt(long u, long i) {
        return -compareIntUint(i, u);
    }

    /** Two uints. */
    public static int compareUints(long u, long v) {
        return Long.compareUnsigned(u, v);
    }

    /**
     * A double against a uint: below 0 it is below every uint, above 2^64 above every uint, otherwise
     * {@link Double#compare} with the uint converted to double (rounded to nearest), so {@code -0.0} is below 0.
     */
    public static int compareDoubleUint(double d, long u) {
        if (d < 0) {
            return -1;
        }
        if (d > UINT_MAX_AS_DOUBLE) {
            return 1;
        }
        return Double.compare(d, uintToDouble(u));
    }

    /** A uint against a double: the opposite of {@link #compareDoubleUint}. */
    public static int compareUintDouble(long u, double d) {
        return -compareDoubleUint(d, u);
    }

    /** A uint's value as the nearest double. */
    public static double uintToDouble(long u) {
        if (u >= 0) {
            return (double) u;
        }
        // halve (keeping the lowest bit as a sticky bit, so the rounding is the one of the full value), then double
        return (double) ((u >>> 1) | (u & 1)) * 2.0;
    }

    /** {@code ==} between a double and an int: {@link #compareDoubleInt} is 0. */
    public static boolean equalsDoubleInt(double d, long i) {
        return compareDoubleInt(d, i) == 0;
    }

    /** {@code ==} between two doubles: the primitive operator ({@code -0.0 == 0.0}, NaN equals nothing). */
    public static boolean equalsDoubles(double x, double y) {
        return x == y;
    }

    /**
     * Whether cel-java's {@code ==} (and {@code in}) holds before it looks at the values: two references to the
     * same object are equal, so a NaN compared with itself (a comprehension variable read twice, one list holding
     * it) is equal, where two NaNs computed apart are not. Payloads hold no NaN; a condition can compute one.
     */
    public static boolean sameObject(Object a, Object b) {
        return a == b;
    }

    /**
     * {@code ==} between two values when both are numbers of the engine's run-time types ({@link Long} for int,
     * {@link Double} for double): TRUE or FALSE; null when either is not one of them.
     */
    public static Boolean equalNumbers(Object a, Object b) {
        if (a instanceof Double x) {
            if (b instanceof Double y) {
                return equalsDoubles(x, y);
            }
            if (b instanceof Long y) {
                return equalsDoubleInt(x, y);
            }
        } else if (a instanceof Long x) {
            if (b instanceof Long y) {
                return x.longValue() == y.longValue();
            }
            if (b instanceof Double y) {
                return equalsDoubleInt(y, x);
            }
        }
        return null;
    }

    /**
     * The ordering {@code op} between two values when both are numbers ({@link Long} or {@link Double}): TRUE or
     * FALSE; null when either is not one.
     */
    public static Boolean orderNumbers(int op, Object a, Object b) {
        if (a instanceof Double x) {
            if (b instanceof Double y) {
                return holdsDoubles(op, x, y);
            }
            if (b instanceof Long y) {
                return holds(op, compareDoubleInt(x, y));
            }
        } else if (a instanceof Long x) {
            if (b instanceof Long y) {
                return holds(op, Long.compare(x, y));
            }
            if (b instanceof Double y) {
                return holds(op, compareIntDouble(x, y));
            }
        }
        return null;
    }

    // ---------------------------------------------------------------------------------------------------
    // error absorption: an operand is a Boolean, or any other object standing for an error

    /** Whether an evaluated operand is the boolean false (which decides {@code &&} alone). */
    public static boolean isFalse(Object operand) {
        return operand instanceof Boolean b && !b;
    }

    /** Whether an evaluated operand is the boolean true (which decides {@code ||} alone). */
    public static boolean isTrue(Object operand) {
        return operand instanceof Boolean b && b;
    }

    /**
     * {@code l && r} over two evaluated operands (a Boolean or an error each): FALSE when either is false, else
     * the left error, else the right error, else TRUE.
     */
    public static Object and(Object l, Object r) {
        if (isFalse(l) || isFalse(r)) {
            return Boolean.FALSE;
        }
        if (!(l instanceof Boolean)) {
            return l;
        }
        return r instanceof Boolean ? Boolean.TRUE : r;
    }

    /**
     * {@code l || r} over two evaluated operands (a Boolean or an error each): TRUE when either is true, else the
     * left error, else the right error, else FALSE.
     */
    public static Object or(Object l, Object r) {
        if (isTrue(l) || isTrue(r)) {
            return Boolean.TRUE;
        }
        if (!(l instanceof Boolean)) {
            return l;
        }
        return r instanceof Boolean ? Boolean.FALSE : r;
    }

    /** {@code !v}: the negation, or the error itself. */
    public static Object not(Object v) {
        return v instanceof Boolean b ? (Object) !b : v;
    }

    /**
     * {@code @not_strictly_false(v)}, the loop condition of {@code all} and {@code exists}: the boolean, or true
     * for an error (and for any value that is not a boolean).
     */
    public static boolean notStrictlyFalse(Object v) {
        return !(v instanceof Boolean b) || b;
    }
}
