package dev.custody.engine.compile;

import dev.custody.engine.internal.access.ClassPathReads;
import com.google.re2j.Pattern;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.types.CelKind;
import dev.cel.common.types.CelType;
import dev.custody.engine.check.Payload;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Translates a checked CEL condition into a tree of Java closures ({@link Node}) that gives the same answer
 * as cel-java's interpreter, several times faster.
 *
 * <h2>What it guarantees</h2>
 * For every payload the compiled form yields what cel-java yields: the same boolean (or non-boolean value),
 * or an error where cel-java errs, reported at the same sub-expression with cel-java's own words for the
 * common errors (an absent field or key, {@code / by zero}, {@code long overflow}, {@code most negative
 * number wraps}, a number that does not parse, a double out of the int range). The few errors it does not
 * word itself (a {@code dyn} value of a type no overload takes, a non-boolean operand of a logical operator)
 * it still recognises as errors, so {@code &&}/{@code ||} absorb them exactly as cel-java does (all but a
 * non-boolean operand, which cel-java raises at once and only an enclosing operator absorbs), and when one
 * decides the condition, {@link CompiledCondition} runs the condition on cel-java for the message. A value
 * the translation was not built for (a field of an unexpected Java type in a hand-made payload) is not an
 * error: it {@linkplain EvalError.Defer defers} the whole evaluation to cel-java. The differential property
 * ({@code CompiledDifferentialProperties}) holds the two to this, pair by pair. One difference is deliberate:
 * cel-java words an int division or modulo by zero {@code / by zero} only until HotSpot compiles its division,
 * which then throws a preallocated {@link ArithmeticException} without a message, so its message turns empty
 * after a few thousand such errors; the compiled form always says {@code / by zero}.
 *
 * <h2>What it covers, and what it leaves to cel-java</h2>
 * Field selection on the typed sections and on {@code decoded_args} (and below), {@code has()}, int, double,
 * string and bool constants, list and string-keyed map literals, {@code ==}/{@code !=} (CEL equality:
 * numbers of different types compare by value, lists and maps element by element), ordering with CEL's
 * heterogeneous int/double comparison, {@code &&}/{@code ||} with commutative error absorption, {@code !},
 * {@code ?:}, {@code in} (a hashed set for a list of string constants), {@code size}, {@code startsWith},
 * {@code endsWith}, {@code contains}, {@code matches} on a constant pattern (re2j, compiled once, partial
 * match as cel-java runs it), {@code + - * / %} and unary minus with int64 overflow and division-by-zero
 * errors, indexing, {@code int()}, {@code double()}, {@code string()}, and comprehensions (what the
 * {@code all}/{@code exists}/{@code exists_one}/{@code map}/{@code filter} macros expand to, nested up to
 * {@value #MAX_LOCALS} variables deep). Anything else has no compiled form and runs on cel-java as before:
 * unsigned integers, bytes, null, timestamps and durations, {@code type()} and other functions, a pattern built
 * at run time or above the compiler's regex program size, and trees deeper than {@value #MAX_DEPTH}.
 * Translation never fails loudly: whatever it does not recognise, it refuses. A comprehension whose step fails
 * hands the whole condition to cel-java ({@link EvalError.Defer}): cel-java keeps the error in the accumulator,
 * where a later step may absorb it, and the compiled form does not model that; so does one past the compiler's
 * iteration limit, whose error cel-java words.
 *
 * <h2>Why it is bounded</h2>
 * Outside comprehensions, a compiled condition has no loops over data other than the ones each node does once
 * ({@code in} over a list literal or a payload list, {@code size}, equality of two payload lists or maps, a
 * regex match, which re2j runs in linear time): a fixed number of steps for a payload that {@link
 * dev.custody.engine.check.PayloadValidator} accepted. A comprehension loops over a list or map the payload
 * or the condition holds; it is bounded as cel-java's are: every node of its loop is charged to the cost meter
 * each time it runs (so the cost is cel-java's, node for node), the lists it builds are capped, its iterations
 * count against the compiler's limit, and it reads the thread's CPU clock every {@value #CLOCK_EVERY}
 * iterations against the time backstop.
 *
 * <p>Types: a sub-expression whose type holds by construction (a typed field, a constant, an operator or
 * function over such) gets a node specialised for it (a double field compared with a constant reads and
 * compares a primitive, with no boxing); anything read out of a {@code dyn} gets a node that dispatches on the
 * run-time value as cel-java's overload resolution does, whatever type the checker inferred for it (it infers
 * one from the context: {@code decoded_args.x['k'] == 1} types the index as int, and the payload need not
 * agree).
 *
 * <p>Immutable and thread-safe once built: nodes hold no per-evaluation state.
 */
final class ClosureCompiler {
    static {
        ClassPathReads.ensure(); // before this class links any cel-java type (module-info.java)
    }

    /** Deeper trees are left to cel-java (the evaluation recursion must stay shallow). */
    static final int MAX_DEPTH = 120;

    /** The most comprehension variables in scope at once (two per nested comprehension); deeper nesting is left to cel-java. */
    static final int MAX_LOCALS = 16;
    /** How many loop iterations pass between two reads of the thread's CPU clock (the time backstop). */
    static final int CLOCK_EVERY = 64;

    private final CelAbstractSyntaxTree ast;
    private final TriggerAction action;
    private final int maxRegexProgramSize;
    private final int maxIterations;
    /** The comprehension variables in scope, innermost last; a variable's local slot is its position. */
    private final List<String> scope = new ArrayList<>();
    /** How many loops (a comprehension's condition and step) enclose the node being translated. */
    private int loops;

    private ClosureCompiler(CelAbstractSyntaxTree ast, TriggerAction action, int maxRegexProgramSize, int maxIterations) {
        this.ast = ast;
        this.action = action;
        this.maxRegexProgramSize = maxRegexProgramSize;
        this.maxIterations = maxIterations;
    }

    /** The compiled form of a checked condition, or empty when it has none (see the class comment). */
    static Optional<Node> compile(CelAbstractSyntaxTree ast, TriggerAction action, int maxRegexProgramSize) {
        return compile(ast, action, maxRegexProgramSize, Integer.MAX_VALUE);
    }

    /**
     * The compiled form of a checked condition, or empty when it has none (see the class comment); its
     * comprehensions hand the condition over to cel-java once they have run {@code maxIterations} iterations in
     * all (cel-java then stops it with its own error).
     */
    static Optional<Node> compile(CelAbstractSyntaxTree ast, TriggerAction action, int maxRegexProgramSize,
            int maxIterations) {
        try {
            return Optional.of(new ClosureCompiler(ast, action, maxRegexProgramSize,
                    maxIterations <= 0 ? Integer.MAX_VALUE : maxIterations).node(ast.getExpr(), 0));
        } catch (Unsupported | RuntimeException | StackOverflowError e) {
            return Optional.empty();
        }
    }

    /** Thrown during translation for anything without a compiled form. */
    private static final class Unsupported extends Exception {
        Unsupported() {
            super(null, null, false, false);
        }
    }

    private static Unsupported unsupported() {
        return new Unsupported();
    }

    // ---------------------------------------------------------------------------------------------------
    // translation

    private enum T { INT, DOUBLE, STRING, BOOL, OTHER }

    private T type(CelExpr e) throws Unsupported {
        CelType t = ast.getType(e.id()).orElseThrow(ClosureCompiler::unsupported);
        return switch (t.kind()) {
            case INT -> T.INT;
            case DOUBLE -> T.DOUBLE;
            case STRING -> T.STRING;
            case BOOL -> T.BOOL;
            case DYN, LIST, MAP, STRUCT -> T.OTHER;
            default -> throw unsupported();
        };
    }

    /**
     * The type every value of the expression has at run time, or {@link T#OTHER}. Not always the checker's type:
     * the checker infers a type for a value read out of a {@code dyn} ({@code decoded_args.x['k'] == 1} types the
     * index as int), which the payload need not honour; only types that hold by construction (typed fields,
     * constants, operators and functions over them) get a specialised node.
     */
    private T exact(CelExpr e) throws Unsupported {
        return switch (e.getKind()) {
            case CONSTANT -> type(e);
            case SELECT -> e.select().testOnly() ? T.BOOL
                    : e.select().operand().getKind() == CelExpr.ExprKind.Kind.IDENT
                    && scope.lastIndexOf(e.select().operand().ident().name()) < 0 ? type(e) : T.OTHER;
            case CALL -> exactCall(e);
            default -> T.OTHER;
        };
    }

    private T exactCall(CelExpr e) throws Unsupported {
        List<CelExpr> args = new ArrayList<>();
        e.call().target().ifPresent(args::add);
        args.addAll(e.call().args());
        return switch (CelSemantics.call(e.call().function())) {
            case AND, OR, NOT, EQUALS, NOT_EQUALS, LESS, LESS_EQUALS, GREATER, GREATER_EQUALS, IN, STARTS_WITH,
                    ENDS_WITH, CONTAINS, MATCHES -> T.BOOL;
            case SIZE, INT -> T.INT;
            case DOUBLE -> T.DOUBLE;
            case STRING -> T.STRING;
            case NEGATE -> exact(args.get(0));
            case CONDITIONAL, ADD, SUBTRACT, MULTIPLY, DIVIDE, MODULO -> {
                T a = exact(args.get(args.size() - 2));
                T b = exact(args.get(args.size() - 1));
                yield a == b && a != T.BOOL ? a : T.OTHER;
            }
            default -> T.OTHER;
        };
    }

    private Node node(CelExpr e, int depth) throws Unsupported {
        if (depth > MAX_DEPTH) {
            throw unsupported();
        }
        type(e); // refuses uint, bytes, null, timestamps, ... wherever they appear
        Node n = switch (e.getKind()) {
            case CONSTANT -> constant(e);
            case SELECT -> select(e, depth);
            case CALL -> call(e, depth);
            case LIST -> list(e, depth);
            case MAP -> map(e, depth);
            case IDENT -> variable(e);
            case COMPREHENSION -> comprehension(e, depth);
            default -> throw unsupported(); // a struct
        };
        if (loops == 0) {
            return n;
        }
        // Inside a loop a node runs once per iteration, and cel-java's listener charges it each time it gives a
        // value: so does the wrapper (the rest of the tree is charged once up front, CompiledCondition). Some
        // sub-expressions cel-java evaluates the compiled node folded in when it was built: the section of a typed
        // field (`principal` in `principal.role`), evaluated, and charged, before the field is read, even when the
        // read fails; and the constant pattern of `matches`, evaluated after the input. (A map literal charges its
        // keys itself, one before each value, as cel-java evaluates them.)
        boolean section = e.getKind() == CelExpr.ExprKind.Kind.SELECT
                && e.select().operand().getKind() == CelExpr.ExprKind.Kind.IDENT
                && scope.lastIndexOf(e.select().operand().ident().name()) < 0;
        boolean pattern = e.getKind() == CelExpr.ExprKind.Kind.CALL && CelSemantics.MATCHES.equals(e.call().function());
        return new Counted(n, section ? 1 : 0, pattern ? 2 : 1);
    }

    /** A comprehension variable in scope (a bare identifier that is not one is not compiled). */
    private Node variable(CelExpr e) throws Unsupported {
        int slot = scope.lastIndexOf(e.ident().name());
        if (slot < 0) {
            throw unsupported();
        }
        return new Var(e.id(), slot);
    }

    /**
     * A comprehension (what the {@code all}, {@code exists}, {@code exists_one}, {@code map} and {@code filter}
     * macros expand to), run as cel-java runs it: the range once (a list, or a map's keys), the accumulator's
     * initial value, then per element the loop condition (stop when false) and the step, then the result with
     * only the accumulator in scope. Refused: two-variable comprehensions, and nesting beyond {@link #MAX_LOCALS}.
     */
    private Node comprehension(CelExpr e, int depth) throws Unsupported {
        CelExpr.CelComprehension c = e.comprehension();
        if (c.iterVar2() != null && !c.iterVar2().isEmpty() || scope.size() + 2 > MAX_LOCALS) {
            throw unsupported();
        }
        Node range = node(c.iterRange(), depth + 1);
        Node init = node(c.accuInit(), depth + 1);
        int accu = scope.size();
        scope.add(c.accuVar());
        int iter = scope.size();
        scope.add(c.iterVar());
        loops++;
        Node condition = node(c.loopCondition(), depth + 1);
        Node step = node(c.loopStep(), depth + 1);
        loops--;
        scope.remove(iter); // the result sees the accumulator only
        Node result = node(c.result(), depth + 1);
        scope.remove(accu);
        return new Comprehension(e.id(), range, init, iter, accu, condition, step, result, maxIterations);
    }

    private static Node constant(CelExpr e) throws Unsupported {
        CelConstant c = e.constant();
        return switch (c.getKind()) {
            case INT64_VALUE -> new LongConst(e.id(), c.int64Value());
            case DOUBLE_VALUE -> new DoubleConst(e.id(), c.doubleValue());
            case STRING_VALUE -> new Const(e.id(), c.stringValue());
            case BOOLEAN_VALUE -> new BoolConst(e.id(), c.booleanValue());
            default -> throw unsupported();
        };
    }

    private Node select(CelExpr e, int depth) throws Unsupported {
        CelExpr operand = e.select().operand();
        String field = e.select().field();
        if (operand.getKind() == CelExpr.ExprKind.Kind.IDENT && scope.lastIndexOf(operand.ident().name()) < 0) {
            String sectionName = operand.ident().name();
            Section section = Section.fromWireName(sectionName).orElseThrow(ClosureCompiler::unsupported);
            if (!FieldSchema.hasSection(action, section)) {
                throw unsupported();
            }
            FieldSpec spec = FieldSchema.field(section, field).orElseThrow(ClosureCompiler::unsupported);
            if (e.select().testOnly()) {
                return new FieldHas(e.id(), section, field);
            }
            return switch (spec.type()) {
                case NUMBER -> new DoubleField(e.id(), section, field);
                case INTEGER -> new LongField(e.id(), section, field);
                case STRING -> new Field(e.id(), section, field, String.class);
                case BOOLEAN -> new BoolField(e.id(), section, field);
                case MAP -> new Field(e.id(), section, field, Map.class);
            };
        }
        Node from = node(operand, depth + 1);
        return e.select().testOnly() ? new DynHas(e.id(), from, field) : new DynSelect(e.id(), from, field);
    }

    private Node list(CelExpr e, int depth) throws Unsupported {
        if (!e.list().optionalIndices().isEmpty()) {
            throw unsupported();
        }
        List<Node> elements = new ArrayList<>();
        for (CelExpr x : e.list().elements()) {
            elements.add(node(x, depth + 1));
        }
        return new ListLiteral(e.id(), elements.toArray(new Node[0]));
    }

    private Node map(CelExpr e, int depth) throws Unsupported {
        List<String> keys = new ArrayList<>();
        List<Node> values = new ArrayList<>();
        for (CelExpr.CelMap.Entry entry : e.map().entries()) {
            CelExpr k = entry.key();
            if (entry.optionalEntry() || k.getKind() != CelExpr.ExprKind.Kind.CONSTANT
                    || k.constant().getKind() != CelConstant.Kind.STRING_VALUE || keys.contains(k.constant().stringValue())) {
                throw unsupported();
            }
            keys.add(k.constant().stringValue());
            values.add(node(entry.value(), depth + 1));
        }
        return new MapLiteral(e.id(), keys.toArray(new String[0]), values.toArray(new Node[0]), loops > 0 ? 1 : 0);
    }

    private Node call(CelExpr e, int depth) throws Unsupported {
        List<CelExpr> args = new ArrayList<>();
        e.call().target().ifPresent(args::add);
        args.addAll(e.call().args());
        CelSemantics.Call fn = CelSemantics.call(e.call().function());
        long id = e.id();
        List<Node> n = new ArrayList<>();
        if (fn != CelSemantics.Call.MATCHES) {
            for (CelExpr a : args) {
                n.add(node(a, depth + 1));
            }
        }
        int arity = args.size();
        switch (fn) {
            case AND -> {
                return new And(id, n.get(0), n.get(1));
            }
            case OR -> {
                return new Or(id, n.get(0), n.get(1));
            }
            case NOT -> {
                return new Not(id, n.get(0));
            }
            case CONDITIONAL -> {
                return new Ternary(id, n.get(0), n.get(1), n.get(2));
            }
            case NOT_STRICTLY_FALSE -> {
                return new NotStrictlyFalse(id, n.get(0));
            }
            case EQUALS, NOT_EQUALS -> {
                return equality(id, fn == CelSemantics.Call.NOT_EQUALS, args.get(0), args.get(1), n.get(0), n.get(1));
            }
            case LESS, LESS_EQUALS, GREATER, GREATER_EQUALS -> {
                return ordering(id, CelSemantics.ordering(fn), exact(args.get(0)), exact(args.get(1)), n.get(0),
                        n.get(1));
            }
            case ADD, SUBTRACT, MULTIPLY, DIVIDE, MODULO -> {
                int op = switch (fn) {
                    case ADD -> ADD;
                    case SUBTRACT -> SUB;
                    case MULTIPLY -> MUL;
                    case DIVIDE -> DIV;
                    default -> MOD;
                };
                return arithmetic(id, op, exact(args.get(0)), exact(args.get(1)), n.get(0), n.get(1));
            }
            case NEGATE -> {
                return new Negate(id, n.get(0));
            }
            case IN -> {
                return in(id, args.get(0), args.get(1), n.get(0), n.get(1));
            }
            case INDEX -> {
                return new Index(id, n.get(0), n.get(1));
            }
            case SIZE -> {
                if (arity != 1) {
                    throw unsupported();
                }
                return new Size(id, n.get(0));
            }
            case STARTS_WITH, ENDS_WITH, CONTAINS -> {
                if (arity != 2 || e.call().target().isEmpty()) {
                    throw unsupported();
                }
                int op = fn == CelSemantics.Call.STARTS_WITH ? STARTS : fn == CelSemantics.Call.ENDS_WITH ? ENDS : CONTAINS;
                return new StringTest(id, op, n.get(0), n.get(1));
            }
            case MATCHES -> {
                return matches(id, args, depth);
            }
            case INT, DOUBLE, STRING -> {
                if (arity != 1 || e.call().target().isPresent()) {
                    throw unsupported();
                }
                int to = fn == CelSemantics.Call.INT ? TO_INT : fn == CelSemantics.Call.DOUBLE ? TO_DOUBLE : TO_STRING;
                return new Convert(id, to, n.get(0));
            }
            default -> throw unsupported();
        }
    }

    private Node equality(long id, boolean negated, CelExpr a, CelExpr b, Node x, Node y) throws Unsupported {
        T ta = exact(a);
        T tb = exact(b);
        if (ta == tb && ta == T.INT) {
            return new EqLong(id, negated, x, y);
        }
        if (ta == tb && ta == T.DOUBLE) {
            return new EqDouble(id, negated, x, y);
        }
        if (ta == tb && ta == T.STRING && y instanceof Const c) {
            return new EqStringConst(id, negated, x, (String) c.value);
        }
        return new Eq(id, negated, x, y);
    }

    private static Node ordering(long id, int op, T ta, T tb, Node x, Node y) {
        if (ta == T.DOUBLE && tb == T.DOUBLE) {
            return new CmpDoubles(id, op, x, y);
        }
        if (ta == T.INT && tb == T.INT) {
            return new CmpLongs(id, op, x, y);
        }
        if (ta == T.DOUBLE && tb == T.INT) {
            return new CmpDoubleLong(id, op, x, y);
        }
        if (ta == T.INT && tb == T.DOUBLE) {
            return new CmpLongDouble(id, op, x, y);
        }
        return new Cmp(id, op, x, y);
    }

    private static Node arithmetic(long id, int op, T ta, T tb, Node x, Node y) {
        if (ta == T.DOUBLE && tb == T.DOUBLE) {
            return new ArithDouble(id, op, x, y);
        }
        if (ta == T.INT && tb == T.INT) {
            return new ArithLong(id, op, x, y);
        }
        return new Arith(id, op, x, y);
    }

    private Node in(long id, CelExpr element, CelExpr container, Node x, Node y) throws Unsupported {
        // in a loop the list literal's nodes are charged per iteration, as cel-java builds it each time: not hashed
        if (loops == 0 && exact(element) == T.STRING && container.getKind() == CelExpr.ExprKind.Kind.LIST) {
            Set<String> constants = new HashSet<>();
            List<String> list = new ArrayList<>();
            for (CelExpr c : container.list().elements()) {
                if (c.getKind() != CelExpr.ExprKind.Kind.CONSTANT || c.constant().getKind() != CelConstant.Kind.STRING_VALUE) {
                    return new In(id, x, y);
                }
                constants.add(c.constant().stringValue());
                list.add(c.constant().stringValue());
            }
            return new InStrings(id, x, Set.copyOf(constants), list);
        }
        return new In(id, x, y);
    }

    private Node matches(long id, List<CelExpr> args, int depth) throws Unsupported {
        if (args.size() != 2) {
            throw unsupported();
        }
        CelExpr p = args.get(1);
        if (p.getKind() != CelExpr.ExprKind.Kind.CONSTANT || p.constant().getKind() != CelConstant.Kind.STRING_VALUE) {
            throw unsupported();
        }
        Pattern pattern;
        try {
            pattern = Pattern.compile(p.constant().stringValue());
        } catch (RuntimeException ex) {
            throw unsupported();
        }
        if (maxRegexProgramSize >= 0 && pattern.programSize() > maxRegexProgramSize) {
            throw unsupported(); // cel-java's run-time error, worded by cel-java
        }
        return new Matches(id, node(args.get(0), depth + 1), pattern);
    }

    // ---------------------------------------------------------------------------------------------------
    // CEL run-time semantics over the values a payload holds: Long, Double, String, Boolean, List, Map

    static final int ADD = 0;
    static final int SUB = 1;
    static final int MUL = 2;
    static final int DIV = 3;
    static final int MOD = 4;
    static final int STARTS = 0;
    static final int ENDS = 1;
    static final int CONTAINS = 2;
    static final int TO_INT = 0;
    static final int TO_DOUBLE = 1;
    static final int TO_STRING = 2;

    /** Whether a value is of a type the compiled form knows; anything else defers to cel-java. */
    static boolean known(Object v) {
        return v instanceof String || v instanceof Long || v instanceof Double || v instanceof Boolean
                || v instanceof List || v instanceof Map;
    }

    /** {@code has()} on a map: whether it holds the key (a key held with a null value, never in a checked payload, defers). */
    static boolean present(Map<?, ?> map, String key) {
        if (map.get(key) != null) {
            return true;
        }
        if (map.containsKey(key)) {
            throw EvalError.Defer.INSTANCE;
        }
        return false;
    }

    /** Whether every key of a map is a string (those of a payload and of map literals are). */
    static boolean stringKeys(Map<?, ?> map) {
        for (Object k : map.keySet()) {
            if (!(k instanceof String)) {
                return false;
            }
        }
        return true;
    }

    /** A type error on a known value (cel-java's "no matching overload"), or a deferral on an unknown one. */
    static RuntimeException mismatch(long id, Object... values) {
        for (Object v : values) {
            if (!known(v)) {
                return EvalError.Defer.INSTANCE;
            }
        }
        return EvalError.worded(id);
    }

    /** CEL equality (heterogeneous numbers by value, {@link CelSemantics}; lists and maps element by element). */
    static boolean celEquals(Object a, Object b) {
        if (CelSemantics.sameObject(a, b)) {
            return true;
        }
        Boolean numbers = CelSemantics.equalNumbers(a, b);
        if (numbers != null) {
            return numbers;
        }
        if (a instanceof String || a instanceof Boolean) {
            if (!known(b)) {
                throw EvalError.Defer.INSTANCE;
            }
            return a.equals(b);
        } else if (a instanceof List<?> x) {
            if (b instanceof List<?> y) {
                if (x.size() != y.size()) {
                    return false;
                }
                for (int i = 0; i < x.size(); i++) {
                    if (!celEquals(x.get(i), y.get(i))) {
                        return false;
                    }
                }
                return true;
            }
        } else if (a instanceof Map<?, ?> x) {
            if (b instanceof Map<?, ?> y) {
                if (x.size() != y.size()) {
                    return false;
                }
                for (Map.Entry<?, ?> entry : x.entrySet()) {
                    if (!(entry.getKey() instanceof String)) {
                        throw EvalError.Defer.INSTANCE;
                    }
                    Object other = y.get(entry.getKey());
                    if (other == null || !celEquals(entry.getValue(), other)) {
                        return false;
                    }
                }
                for (Object k : y.keySet()) {
                    if (!(k instanceof String)) {
                        throw EvalError.Defer.INSTANCE;
                    }
                }
                return true;
            }
        } else if (!(a instanceof Double) && !(a instanceof Long)) { // a number against a non-number: unequal
            throw EvalError.Defer.INSTANCE;
        }
        if (!known(b)) {
            throw EvalError.Defer.INSTANCE;
        }
        return false;
    }

    static long addExact(long id, long x, long y) {
        long r = x + y;
        if (((x ^ r) & (y ^ r)) < 0) {
            throw new EvalError(id, "long overflow");
        }
        return r;
    }

    static long arithLong(long id, int op, long x, long y) {
        switch (op) {
            case ADD:
                return addExact(id, x, y);
            case SUB: {
                long r = x - y;
                if (((x ^ y) & (x ^ r)) < 0) {
                    throw new EvalError(id, "long overflow");
                }
                return r;
            }
            case MUL: {
                long hi = Math.multiplyHigh(x, y);
                long lo = x * y;
                if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
                    return lo;
                }
                throw new EvalError(id, "long overflow");
            }
            case DIV:
                if (y == 0) {
                    throw new EvalError(id, "/ by zero");
                }
                if (x == Long.MIN_VALUE && y == -1) {
                    throw new EvalError(id, "most negative number wraps");
                }
                return x / y;
            default:
                if (y == 0) {
                    throw new EvalError(id, "/ by zero");
                }
                return x % y;
        }
    }

    static double arithDouble(int op, double x, double y) {
        return switch (op) {
            case ADD -> x + y;
            case SUB -> x - y;
            case MUL -> x * y;
            default -> x / y;
        };
    }

    static Object arith(long id, int op, Object a, Object b) {
        if (a instanceof Long x && b instanceof Long y) {
            return arithLong(id, op, x, y);
        }
        if (a instanceof Double x && b instanceof Double y && op != MOD) {
            return arithDouble(op, x, y);
        }
        if (op == ADD) {
            if (a instanceof String x && b instanceof String y) {
                long length = (long) x.length() + y.length();
                if (length > CompiledCondition.MAX_BUILT_STRING) {
                    // the same cap the interpreter's listener applies: an error no operator absorbs
                    throw new CompiledCondition.TooLarge("a string grew to " + length + " characters, more than "
                            + CompiledCondition.MAX_BUILT_STRING);
                }
                return x.concat(y);
            }
            if (a instanceof List<?> x && b instanceof List<?> y) {
                long size = (long) x.size() + y.size();
                if (size > CompiledCondition.MAX_BUILT_ELEMENTS) {
                    throw new CompiledCondition.TooLarge("a list grew to " + size + " elements, more than "
                            + CompiledCondition.MAX_BUILT_ELEMENTS);
                }
                List<Object> out = new ArrayList<>(x.size() + y.size());
                out.addAll(x);
                out.addAll(y);
                return Collections.unmodifiableList(out);
            }
        }
        throw mismatch(id, a, b);
    }

    static long doubleToLong(long id, double d) {
        if (Math.getExponent(d) >= 63) { // also NaN and the infinities
            throw new EvalError(id, "double is out of range for int");
        }
        return (long) d;
    }

    // ---------------------------------------------------------------------------------------------------
    // nodes

    /**
     * What one evaluation of a compiled condition reads and counts: the payload (its fields by slot) and the
     * decision's {@link CostMeter}. Not thread-safe: one per evaluation (the meter keeps it for the next rule of
     * the same decision, {@link CostMeter#frame}).
     */
    static final class Frame {
        final Payload payload;
        final CostMeter cost;
        /** The comprehension variables' values by slot (made by the first comprehension that runs). */
        Object[] locals;
        /** The time backstop of the condition running ({@link ThreadClock}); set before each condition. */
        long deadline = Long.MAX_VALUE;
        /** The loop iterations of the condition running, every comprehension together; reset before each. */
        int iterations;

        Frame(Payload payload, CostMeter cost) {
            this.payload = payload;
            this.cost = cost;
        }
    }

    /**
     * One sub-expression. {@link #eval} gives its value (a boxed CEL value) or throws {@link EvalError} (a CEL
     * error) or {@link EvalError.Defer}; typed nodes also give primitives without boxing ({@link #test},
     * {@link #asLong}, {@link #asDouble}), which the nodes above them call when the checker says the type.
     */
    abstract static class Node {
        final long id;

        Node(long id) {
            this.id = id;
        }

        abstract Object eval(Frame s);

        /** The value as a condition operand: a boolean, else cel-java's "expected boolean value" error. */
        boolean test(Frame s) {
            Object v = eval(s);
            if (v instanceof Boolean b) {
                return b;
            }
            throw mismatch(id, v);
        }

        long asLong(Frame s) {
            Object v = eval(s);
            if (v instanceof Long l) {
                return l;
            }
            throw EvalError.Defer.INSTANCE;
        }

        double asDouble(Frame s) {
            Object v = eval(s);
            if (v instanceof Double d) {
                return d;
            }
            throw EvalError.Defer.INSTANCE;
        }
    }

    /** A node of static type bool. */
    abstract static class BoolNode extends Node {
        BoolNode(long id) {
            super(id);
        }

        @Override
        final Object eval(Frame s) {
            return test(s) ? Boolean.TRUE : Boolean.FALSE;
        }

        @Override
        abstract boolean test(Frame s);
    }

    static final class Const extends Node {
        final Object value;

        Const(long id, Object value) {
            super(id);
            this.value = value;
        }

        @Override
        Object eval(Frame s) {
            return value;
        }
    }

    static final class LongConst extends Node {
        final long value;
        final Long boxed;

        LongConst(long id, long value) {
            super(id);
            this.value = value;
            this.boxed = value;
        }

        @Override
        Object eval(Frame s) {
            return boxed;
        }

        @Override
        long asLong(Frame s) {
            return value;
        }
    }

    static final class DoubleConst extends Node {
        final double value;
        final Double boxed;

        DoubleConst(long id, double value) {
            super(id);
            this.value = value;
            this.boxed = value;
        }

        @Override
        Object eval(Frame s) {
            return boxed;
        }

        @Override
        double asDouble(Frame s) {
            return value;
        }
    }

    static final class BoolConst extends BoolNode {
        final boolean value;

        BoolConst(long id, boolean value) {
            super(id);
            this.value = value;
        }

        @Override
        boolean test(Frame s) {
            return value;
        }
    }

    /**
     * {@code section.field}: the value, or cel-java's absent-key error. Reads the payload's slot for the field
     * ({@link Payload#slot}); the section and the field were resolved when the condition was compiled.
     */
    static class Field extends Node {
        final Section section;
        final int slot;
        final Class<?> type;
        final String absent;

        Field(long id, Section section, String field, Class<?> type) {
            super(id);
            this.section = section;
            this.slot = Payload.slotOf(section, field);
            this.type = type;
            this.absent = "key '" + field + "' is not present in map.";
        }

        @Override
        final Object eval(Frame s) {
            Object v = s.payload.slot(slot);
            if (v == null) {
                if (!s.payload.hasSection(section)) {
                    throw EvalError.Defer.INSTANCE;
                }
                throw new EvalError(id, absent);
            }
            if (!type.isInstance(v)) {
                throw EvalError.Defer.INSTANCE; // also a hand-made payload's null (Payload.NULL_VALUE)
            }
            return v;
        }
    }

    static final class DoubleField extends Field {
        DoubleField(long id, Section section, String field) {
            super(id, section, field, Double.class);
        }

        @Override
        double asDouble(Frame s) {
            return (Double) eval(s);
        }
    }

    static final class LongField extends Field {
        LongField(long id, Section section, String field) {
            super(id, section, field, Long.class);
        }

        @Override
        long asLong(Frame s) {
            return (Long) eval(s);
        }
    }

    static final class BoolField extends Field {
        BoolField(long id, Section section, String field) {
            super(id, section, field, Boolean.class);
        }

        @Override
        boolean test(Frame s) {
            return (Boolean) eval(s);
        }
    }

    /** {@code has(section.field)}: whether the payload's slot for the field holds a value. */
    static final class FieldHas extends BoolNode {
        final Section section;
        final int slot;

        FieldHas(long id, Section section, String field) {
            super(id);
            this.section = section;
            this.slot = Payload.slotOf(section, field);
        }

        @Override
        boolean test(Frame s) {
            Object v = s.payload.slot(slot);
            if (v == null) {
                if (!s.payload.hasSection(section)) {
                    throw EvalError.Defer.INSTANCE;
                }
                return false;
            }
            if (!known(v)) {
                throw EvalError.Defer.INSTANCE; // a hand-made payload's field mapped to null, or to another type
            }
            return true;
        }
    }

    /** {@code x.field} on a map value ({@code decoded_args} and below). */
    static final class DynSelect extends Node {
        final Node from;
        final String field;
        final String absent;

        DynSelect(long id, Node from, String field) {
            super(id);
            this.from = from;
            this.field = field;
            this.absent = "key '" + field + "' is not present in map.";
        }

        @Override
        Object eval(Frame s) {
            Object m = from.eval(s);
            if (m instanceof Map<?, ?> map) {
                Object v = map.get(field);
                if (v == null) {
                    if (map.containsKey(field)) {
                        throw EvalError.Defer.INSTANCE;
                    }
                    throw new EvalError(id, absent);
                }
                if (!known(v)) {
                    throw EvalError.Defer.INSTANCE;
                }
                return v;
            }
            throw mismatch(id, m);
        }
    }

    /** {@code has(x.field)} on a map value. */
    static final class DynHas extends BoolNode {
        final Node from;
        final String field;

        DynHas(long id, Node from, String field) {
            super(id);
            this.from = from;
            this.field = field;
        }

        @Override
        boolean test(Frame s) {
            Object m = from.eval(s);
            if (m instanceof Map<?, ?> map) {
                return present(map, field);
            }
            throw mismatch(id, m);
        }
    }

    static final class ListLiteral extends Node {
        final Node[] elements;

        ListLiteral(long id, Node[] elements) {
            super(id);
            this.elements = elements;
        }

        @Override
        Object eval(Frame s) {
            Object[] out = new Object[elements.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = elements[i].eval(s);
            }
            s.cost.charge(CostMeter.ELEMENT_UNITS * out.length);
            return Collections.unmodifiableList(Arrays.asList(out));
        }
    }

    static final class MapLiteral extends Node {
        final String[] keys;
        final Node[] values;
        /** What each key is charged before its value is evaluated: one inside a loop (see {@link Counted}). */
        final long keyUnits;

        MapLiteral(long id, String[] keys, Node[] values, long keyUnits) {
            super(id);
            this.keys = keys;
            this.values = values;
            this.keyUnits = keyUnits;
        }

        @Override
        Object eval(Frame s) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (int i = 0; i < keys.length; i++) {
                if (keyUnits != 0) {
                    s.cost.charge(keyUnits);
                }
                out.put(keys[i], values[i].eval(s));
            }
            s.cost.charge(CostMeter.ELEMENT_UNITS * keys.length);
            return Collections.unmodifiableMap(out);
        }
    }

    /**
     * An operand of {@code &&} or {@code ||}: {@link Boolean}, or the {@link EvalError} it raised (a value the
     * operator may absorb). A value that is not a boolean is cel-java's "expected boolean value" error, raised at
     * once: the operator does not absorb it (an enclosing one does, as it does any error).
     */
    static Object operand(Node n, Frame s) {
        if (n instanceof BoolNode b) {
            try {
                return b.test(s) ? Boolean.TRUE : Boolean.FALSE;
            } catch (EvalError e) {
                return e;
            }
        }
        Object v;
        try {
            v = n.eval(s);
        } catch (EvalError e) {
            return e;
        }
        if (v instanceof Boolean) {
            return v;
        }
        throw mismatch(n.id, v);
    }

    /** The boolean of a logical operator's result, or its error thrown. */
    static boolean result(Object v) {
        if (v instanceof Boolean b) {
            return b;
        }
        throw (EvalError) v;
    }

    /** {@code a && b}: false if either is false, else the left error, else the right one, else true. */
    static final class And extends BoolNode {
        final Node left;
        final Node right;

        And(long id, Node left, Node right) {
            super(id);
            this.left = left;
            this.right = right;
        }

        @Override
        boolean test(Frame s) {
            Object l = operand(left, s);
            if (CelSemantics.isFalse(l)) {
                return false;
            }
            return result(CelSemantics.and(l, operand(right, s)));
        }
    }

    /** {@code a || b}: true if either is true, else the left error, else the right one, else false. */
    static final class Or extends BoolNode {
        final Node left;
        final Node right;

        Or(long id, Node left, Node right) {
            super(id);
            this.left = left;
            this.right = right;
        }

        @Override
        boolean test(Frame s) {
            Object l = operand(left, s);
            if (CelSemantics.isTrue(l)) {
                return true;
            }
            return result(CelSemantics.or(l, operand(right, s)));
        }
    }

    static final class Not extends BoolNode {
        final Node operand;

        Not(long id, Node operand) {
            super(id);
            this.operand = operand;
        }

        @Override
        boolean test(Frame s) {
            return !operand.test(s);
        }
    }

    /** A comprehension variable: its value in the frame's locals. */
    static final class Var extends Node {
        final int slot;

        Var(long id, int slot) {
            super(id);
            this.slot = slot;
        }

        @Override
        Object eval(Frame s) {
            return s.locals[slot];
        }
    }

    /**
     * {@code @not_strictly_false(x)}, the loop condition of {@code all} and {@code exists}: x when it is a
     * boolean, true otherwise, an error included (a non-strict function, as in cel-java).
     */
    static final class NotStrictlyFalse extends BoolNode {
        final Node arg;

        NotStrictlyFalse(long id, Node arg) {
            super(id);
            this.arg = arg;
        }

        @Override
        boolean test(Frame s) {
            Object v;
            try {
                v = arg.eval(s);
            } catch (EvalError e) {
                v = e;
            }
            return CelSemantics.notStrictlyFalse(v);
        }
    }

    /**
     * A node inside a loop, charged {@code units} each time it gives a value, as cel-java's listener charges every
     * sub-expression it evaluates (CompiledCondition charges the whole tree once up front, which covers what runs
     * once). A node that fails is not charged, as cel-java's listener is not called for it.
     */
    static final class Counted extends Node {
        final Node inner;
        /** Charged before the node runs: sub-expressions cel-java evaluates first, folded into this node. */
        final long before;
        final long units;

        Counted(Node inner, long before, long units) {
            super(inner.id);
            this.inner = inner;
            this.before = before;
            this.units = units;
        }

        private void first(Frame s) {
            if (before != 0) {
                s.cost.charge(before);
            }
        }

        @Override
        Object eval(Frame s) {
            first(s);
            Object v = inner.eval(s);
            s.cost.charge(units);
            return v;
        }

        @Override
        boolean test(Frame s) {
            // as Node.test, with the charge between the value and the check that it is a boolean (which is the
            // parent's in cel-java, after the listener charged the child)
            first(s);
            Object v = inner instanceof BoolNode b ? (b.test(s) ? Boolean.TRUE : Boolean.FALSE) : inner.eval(s);
            s.cost.charge(units);
            if (v instanceof Boolean b) {
                return b;
            }
            throw mismatch(id, v);
        }

        @Override
        long asLong(Frame s) {
            first(s);
            long v = inner.asLong(s);
            s.cost.charge(units);
            return v;
        }

        @Override
        double asDouble(Frame s) {
            first(s);
            double v = inner.asDouble(s);
            s.cost.charge(units);
            return v;
        }
    }

    /**
     * A comprehension ({@link ClosureCompiler#comprehension}). Bounded as cel-java bounds it: every node of the loop
     * is charged per iteration (the cost meter stops a long one), the lists it builds are capped, and every
     * {@value ClosureCompiler#CLOCK_EVERY} iterations the thread's CPU clock is read against the time backstop.
     * Two cases it hands to cel-java whole ({@link EvalError.Defer}): a step that fails (cel-java carries the error
     * in the accumulator, which a later step may absorb), and more iterations than the compiler allows (cel-java
     * words that error).
     */
    static final class Comprehension extends Node {
        final Node range;
        final Node init;
        final int iter;
        final int accu;
        final Node condition;
        final Node step;
        final Node result;
        final int maxIterations;

        Comprehension(long id, Node range, Node init, int iter, int accu, Node condition, Node step, Node result,
                int maxIterations) {
            super(id);
            this.range = range;
            this.init = init;
            this.iter = iter;
            this.accu = accu;
            this.condition = condition;
            this.step = step;
            this.result = result;
            this.maxIterations = maxIterations;
        }

        @Override
        Object eval(Frame s) {
            Object r = range.eval(s);
            java.util.Collection<?> items;
            if (r instanceof List<?> list) {
                items = list;
            } else if (r instanceof Map<?, ?> map) {
                items = map.keySet();
            } else {
                throw mismatch(id, r); // cel-java words it: "expected a list or a map for iteration range"
            }
            Object acc = init.eval(s);
            if (s.locals == null) {
                s.locals = new Object[MAX_LOCALS];
            }
            Object[] locals = s.locals;
            for (Object x : items) {
                if (++s.iterations > maxIterations) {
                    throw EvalError.Defer.INSTANCE;
                }
                if (s.iterations % CLOCK_EVERY == 0 && ThreadClock.passed(s.deadline)) {
                    throw CompiledCondition.BudgetExceeded.INSTANCE;
                }
                if (!known(x)) {
                    throw EvalError.Defer.INSTANCE;
                }
                locals[iter] = x;
                locals[accu] = acc;
                if (!condition.test(s)) {
                    break;
                }
                try {
                    acc = step.eval(s);
                } catch (EvalError e) {
                    throw EvalError.Defer.INSTANCE;
                }
            }
            locals[accu] = acc;
            Object out = result.eval(s);
            // what cel-java's listener charges for a value a comprehension builds (CostRoles)
            if (out instanceof java.util.Collection<?> col) {
                s.cost.charge((long) CostMeter.ELEMENT_UNITS * col.size());
            } else if (out instanceof Map<?, ?> m) {
                s.cost.charge((long) CostMeter.ELEMENT_UNITS * m.size());
            }
            return out;
        }
    }

    static final class Ternary extends Node {
        final Node condition;
        final Node then;
        final Node otherwise;

        Ternary(long id, Node condition, Node then, Node otherwise) {
            super(id);
            this.condition = condition;
            this.then = then;
            this.otherwise = otherwise;
        }

        @Override
        Object eval(Frame s) {
            return condition.test(s) ? then.eval(s) : otherwise.eval(s);
        }

        @Override
        boolean test(Frame s) {
            return condition.test(s) ? then.test(s) : otherwise.test(s);
        }

        @Override
        long asLong(Frame s) {
            return condition.test(s) ? then.asLong(s) : otherwise.asLong(s);
        }

        @Override
        double asDouble(Frame s) {
            return condition.test(s) ? then.asDouble(s) : otherwise.asDouble(s);
        }
    }

    static final class EqLong extends BoolNode {
        final boolean negated;
        final Node x;
        final Node y;

        EqLong(long id, boolean negated, Node x, Node y) {
            super(id);
            this.negated = negated;
            this.x = x;
            this.y = y;
        }

        @Override
        boolean test(Frame s) {
            long a = x.asLong(s);
            return (a == y.asLong(s)) != negated;
        }
    }

    static final class EqDouble extends BoolNode {
        final boolean negated;
        final Node x;
        final Node y;

        EqDouble(long id, boolean negated, Node x, Node y) {
            super(id);
            this.negated = negated;
            this.x = x;
            this.y = y;
        }

        @Override
        boolean test(Frame s) {
            double a = x.asDouble(s);
            return (a == y.asDouble(s)) != negated;
        }
    }

    static final class EqStringConst extends BoolNode {
        final boolean negated;
        final Node x;
        final String constant;

        final long constantCharge;

        EqStringConst(long id, boolean negated, Node x, String constant) {
            super(id);
            this.negated = negated;
            this.x = x;
            this.constant = constant;
            this.constantCharge = CostMeter.chars(constant.length());
        }

        @Override
        boolean test(Frame s) {
            Object v = x.eval(s);
            if (!(v instanceof String str)) {
                throw EvalError.Defer.INSTANCE;
            }
            s.cost.charge(CostMeter.chars(str.length()) + constantCharge);
            return constant.equals(v) != negated;
        }
    }

    static final class Eq extends BoolNode {
        final boolean negated;
        final Node x;
        final Node y;

        Eq(long id, boolean negated, Node x, Node y) {
            super(id);
            this.negated = negated;
            this.x = x;
            this.y = y;
        }

        @Override
        boolean test(Frame s) {
            // each string operand charged as it gives its value, as cel-java's listener charges it (CostRoles): when
            // the right operand fails, the left one has been charged all the same
            Object a = x.eval(s);
            s.cost.charge(CostMeter.stringChars(a));
            Object b = y.eval(s);
            s.cost.charge(CostMeter.stringChars(b));
            return celEquals(a, b) != negated;
        }
    }

    static final class CmpDoubles extends BoolNode {
        final int op;
        final Node x;
        final Node y;

        CmpDoubles(long id, int op, Node x, Node y) {
            super(id);
            this.op = op;
            this.x = x;
            this.y = y;
        }

        @Override
        boolean test(Frame s) {
            double a = x.asDouble(s);
            return CelSemantics.holdsDoubles(op, a, y.asDouble(s));
        }
    }

    static final class CmpLongs extends BoolNode {
        final int op;
        final Node x;
        final Node y;

        CmpLongs(long id, int op, Node x, Node y) {
            super(id);
            this.op = op;
            this.x = x;
            this.y = y;
        }

        @Override
        boolean test(Frame s) {
            long a = x.asLong(s);
            return CelSemantics.holds(op, Long.compare(a, y.asLong(s)));
        }
    }

    static final class CmpDoubleLong extends BoolNode {
        final int op;
        final Node x;
        final Node y;

        CmpDoubleLong(long id, int op, Node x, Node y) {
            super(id);
            this.op = op;
            this.x = x;
            this.y = y;
        }

        @Override
        boolean test(Frame s) {
            double a = x.asDouble(s);
            return CelSemantics.holds(op, CelSemantics.compareDoubleInt(a, y.asLong(s)));
        }
    }

    static final class CmpLongDouble extends BoolNode {
        final int op;
        final Node x;
        final Node y;

        CmpLongDouble(long id, int op, Node x, Node y) {
            super(id);
            this.op = op;
            this.x = x;
            this.y = y;
        }

        @Override
        boolean test(Frame s) {
            long a = x.asLong(s);
            return CelSemantics.holds(op, CelSemantics.compareIntDouble(a, y.asDouble(s)));
        }
    }

    /** Ordering over run-time values, with cel-java's overloads: int, double (and mixed), string, bool. */
    static final class Cmp extends BoolNode {
        final int op;
        final Node x;
        final Node y;

        Cmp(long id, int op, Node x, Node y) {
            super(id);
            this.op = op;
            this.x = x;
            this.y = y;
        }

        @Override
        boolean test(Frame s) {
            // each string operand charged as it gives its value, as cel-java's listener charges it (see Eq)
            Object a = x.eval(s);
            s.cost.charge(CostMeter.stringChars(a));
            Object b = y.eval(s);
            s.cost.charge(CostMeter.stringChars(b));
            Boolean numbers = CelSemantics.orderNumbers(op, a, b);
            if (numbers != null) {
                return numbers;
            }
            int c;
            if (a instanceof String t && b instanceof String u) {
                c = t.compareTo(u);
            } else if (a instanceof Boolean t && b instanceof Boolean u) {
                c = Boolean.compare(t, u);
            } else {
                throw mismatch(id, a, b);
            }
            return CelSemantics.holds(op, c);
        }
    }

    static final class ArithDouble extends Node {
        final int op;
        final Node x;
        final Node y;

        ArithDouble(long id, int op, Node x, Node y) {
            super(id);
            this.op = op;
            this.x = x;
            this.y = y;
        }

        @Override
        Object eval(Frame s) {
            return asDouble(s);
        }

        @Override
        double asDouble(Frame s) {
            double a = x.asDouble(s);
            return arithDouble(op, a, y.asDouble(s));
        }
    }

    static final class ArithLong extends Node {
        final int op;
        final Node x;
        final Node y;

        ArithLong(long id, int op, Node x, Node y) {
            super(id);
            this.op = op;
            this.x = x;
            this.y = y;
        }

        @Override
        Object eval(Frame s) {
            return asLong(s);
        }

        @Override
        long asLong(Frame s) {
            long a = x.asLong(s);
            return arithLong(id, op, a, y.asLong(s));
        }
    }

    static final class Arith extends Node {
        final int op;
        final Node x;
        final Node y;

        Arith(long id, int op, Node x, Node y) {
            super(id);
            this.op = op;
            this.x = x;
            this.y = y;
        }

        @Override
        Object eval(Frame s) {
            Object a = x.eval(s);
            Object r = arith(id, op, a, y.eval(s));
            if (r instanceof String str) {
                s.cost.charge(CostMeter.chars(str.length()));
            } else if (r instanceof List<?> list) {
                s.cost.charge(CostMeter.ELEMENT_UNITS * list.size());
            }
            return r;
        }
    }

    static final class Negate extends Node {
        final Node x;

        Negate(long id, Node x) {
            super(id);
            this.x = x;
        }

        @Override
        Object eval(Frame s) {
            Object v = x.eval(s);
            if (v instanceof Long l) {
                if (l == Long.MIN_VALUE) {
                    throw new EvalError(id, "long overflow");
                }
                return -l;
            }
            if (v instanceof Double d) {
                return -d;
            }
            throw mismatch(id, v);
        }
    }

    /** {@code x in ['a', 'b']}: a hashed set of the constants. */
    static final class InStrings extends BoolNode {
        final Node x;
        final Set<String> constants;

        /** What cel-java is charged for the list literal it builds and scans (see {@link CostMeter}). */
        final long listCharge;

        InStrings(long id, Node x, Set<String> constants, List<String> list) {
            super(id);
            this.x = x;
            this.constants = constants;
            this.listCharge = CostMeter.ELEMENT_UNITS * list.size() + CostMeter.scanCharge(list);
        }

        @Override
        boolean test(Frame s) {
            Object v = x.eval(s);
            if (!(v instanceof String)) {
                throw EvalError.Defer.INSTANCE;
            }
            s.cost.charge(listCharge);
            return constants.contains(v);
        }
    }

    static final class In extends BoolNode {
        final Node x;
        final Node container;

        In(long id, Node x, Node container) {
            super(id);
            this.x = x;
            this.container = container;
        }

        @Override
        boolean test(Frame s) {
            Object v = x.eval(s);
            Object c = container.eval(s);
            if (c instanceof List<?> list) {
                if (!known(v)) {
                    throw EvalError.Defer.INSTANCE;
                }
                s.cost.charge(CostMeter.scanCharge(list));
                for (Object e : list) {
                    if (celEquals(v, e)) {
                        return true;
                    }
                }
                return false;
            }
            if (c instanceof Map<?, ?> map) {
                if (v instanceof String) {
                    return map.containsKey(v);
                }
                if (known(v) && stringKeys(map)) {
                    return false; // a number or a bool is never a key of a string-keyed map
                }
                throw EvalError.Defer.INSTANCE;
            }
            throw mismatch(id, v, c);
        }
    }

    static final class Index extends Node {
        final Node container;
        final Node key;

        Index(long id, Node container, Node key) {
            super(id);
            this.container = container;
            this.key = key;
        }

        @Override
        Object eval(Frame s) {
            Object c = container.eval(s);
            Object k = key.eval(s);
            if (c instanceof Map<?, ?> map && k instanceof String) {
                Object v = map.get(k);
                if (v == null) {
                    if (map.containsKey(k)) {
                        throw EvalError.Defer.INSTANCE;
                    }
                    throw EvalError.worded(id);
                }
                if (!known(v)) {
                    throw EvalError.Defer.INSTANCE;
                }
                return v;
            }
            if (c instanceof List<?> list && k instanceof Long i) {
                if (i < 0 || i >= list.size()) {
                    throw EvalError.worded(id);
                }
                Object v = list.get((int) (long) i);
                if (!known(v)) {
                    throw EvalError.Defer.INSTANCE;
                }
                return v;
            }
            if (c instanceof Map<?, ?> map && known(k) && stringKeys(map)) {
                throw EvalError.worded(id); // a number or a bool is never a key of a string-keyed map
            }
            throw mismatch(id, c, k);
        }
    }

    static final class Size extends Node {
        final Node x;

        Size(long id, Node x) {
            super(id);
            this.x = x;
        }

        @Override
        Object eval(Frame s) {
            return asLong(s);
        }

        @Override
        long asLong(Frame s) {
            Object v = x.eval(s);
            if (v instanceof String str) {
                s.cost.charge(CostMeter.sizeUnits(str.length()));
                return str.codePointCount(0, str.length());
            }
            if (v instanceof List<?> l) {
                return l.size();
            }
            if (v instanceof Map<?, ?> m) {
                return m.size();
            }
            throw mismatch(id, v);
        }
    }

    static final class StringTest extends BoolNode {
        final int op;
        final Node x;
        final Node arg;

        StringTest(long id, int op, Node x, Node arg) {
            super(id);
            this.op = op;
            this.x = x;
            this.arg = arg;
        }

        @Override
        boolean test(Frame s) {
            // the receiver charged when it gives its value, before the argument runs, as cel-java's listener
            // charges it (CostRoles): when the argument fails, the receiver has been charged all the same
            Object a = x.eval(s);
            long scan = CostMeter.stringChars(a);
            s.cost.charge(scan);
            Object b = arg.eval(s);
            if (a instanceof String t && b instanceof String u) {
                if (op == CONTAINS) {
                    s.cost.charge(scan * CostMeter.chars(u.length()));
                }
                return switch (op) {
                    case STARTS -> t.startsWith(u);
                    case ENDS -> t.endsWith(u);
                    default -> t.contains(u);
                };
            }
            throw mismatch(id, a, b);
        }
    }

    /** {@code s.matches('re')}: the pattern compiled once; an unanchored match, as cel-java runs it. */
    static final class Matches extends BoolNode {
        final Node x;
        final Pattern pattern;

        /** The regex's program size, which the cost of a match grows with ({@link CostMeter#regexUnits}). */
        final int programSize;

        Matches(long id, Node x, Pattern pattern) {
            super(id);
            this.x = x;
            this.pattern = pattern;
            this.programSize = pattern.programSize();
        }

        @Override
        boolean test(Frame s) {
            Object v = x.eval(s);
            if (v instanceof String str) {
                s.cost.charge(CostMeter.regexUnits(str.length(), programSize));
                return pattern.matcher(str).find();
            }
            throw mismatch(id, v);
        }
    }

    static final class Convert extends Node {
        final int to;
        final Node x;

        Convert(long id, int to, Node x) {
            super(id);
            this.to = to;
            this.x = x;
        }

        @Override
        Object eval(Frame s) {
            Object v = x.eval(s);
            switch (to) {
                case TO_INT:
                    if (v instanceof Long) {
                        return v;
                    }
                    if (v instanceof Double d) {
                        return doubleToLong(id, d);
                    }
                    if (v instanceof String str) {
                        try {
                            return Long.parseLong(str);
                        } catch (NumberFormatException e) {
                            throw new EvalError(id, e.getMessage());
                        }
                    }
                    break;
                case TO_DOUBLE:
                    if (v instanceof Double) {
                        return v;
                    }
                    if (v instanceof Long l) {
                        return (double) l;
                    }
                    if (v instanceof String str) {
                        try {
                            return Double.parseDouble(str);
                        } catch (NumberFormatException e) {
                            throw new EvalError(id, e.getMessage());
                        }
                    }
                    break;
                default:
                    if (v instanceof String || v instanceof Long || v instanceof Double || v instanceof Boolean) {
                        return v.toString();
                    }
                    break;
            }
            throw mismatch(id, v);
        }
    }
}
