package dev.custody.engine.compile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.common.primitives.UnsignedLong;
import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.checker.CelStandardDeclarations.StandardFunction;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.Operator;
import dev.cel.common.types.SimpleType;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@link CelSemantics} against cel-java 0.14.0 itself: every ordering and equality operator over every pair of
 * numeric types (int, uint, double) and boundary values of each (±2^53 and ±2^53±1, ±2^62, ±2^63 and the doubles
 * next to them, Long.MIN/MAX, uint 2^63 and 2^64-1, {@code -0.0}, NaN, the infinities, the largest and smallest
 * doubles, uints whose conversion to double is a rounding tie), evaluated by cel-java's interpreter in the
 * engine's options (heterogeneous comparison on); and {@code &&}, {@code ||}, {@code !}, {@code ?:} over true,
 * false and an error on either side. Also the operator table: every name is cel-java's.
 */
class CelSemanticsTest {
    private static final Cel CEL = CelFactory.standardCelBuilder()
            .setOptions(CelEnvironment.options(1000, 1000))
            .addVar("a", SimpleType.DYN)
            .addVar("b", SimpleType.DYN)
            .addVar("c", SimpleType.DYN)
            .addVar("z", SimpleType.INT)
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .build();

    private static final long P53 = 1L << 53;
    private static final long P62 = 1L << 62;

    private static final long[] INTS = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -P62, -P53 - 1, -P53, -P53 + 1, -2, -1, 0,
        1, 2, P53 - 1, P53, P53 + 1, P53 + 2, P62, P62 + 1, Long.MAX_VALUE - 1024, Long.MAX_VALUE - 1, Long.MAX_VALUE};

    /** uints as their 64 bits: 2^63 and above are negative longs. */
    private static final long[] UINTS = {0, 1, 2, P53 - 1, P53, P53 + 1, P62, Long.MAX_VALUE, Long.MIN_VALUE,
        Long.MIN_VALUE + 1, Long.MIN_VALUE + 1024, Long.MIN_VALUE + 1025, Long.MIN_VALUE + 3 * 1024, Long.MIN_VALUE + 2048,
        -2048, -1025, -1024, -1023, -2, -1};

    private static final double[] DOUBLES = {-0.0, 0.0, Double.MIN_VALUE, -Double.MIN_VALUE, 0.5, -0.5, 1.0, -1.0, 2.0,
        0x1p53, -0x1p53, 0x1p53 + 2, -0x1p53 - 2, Math.nextDown(0x1p53), 0x1p62, -0x1p62, Math.nextUp(0x1p62),
        0x1p63, -0x1p63, Math.nextDown(0x1p63), Math.nextUp(0x1p63), Math.nextUp(-0x1p63), Math.nextDown(-0x1p63),
        0x1p64, Math.nextDown(0x1p64), Math.nextUp(0x1p64), Double.MAX_VALUE, -Double.MAX_VALUE,
        Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN, 9.223372036854775E18};

    private enum Kind { INT, UINT, DOUBLE }

    /** A value of one numeric kind: its cel-java object and, for the core, its primitive bits. */
    private record Num(Kind kind, long bits, double d) {
        Object cel() {
            return switch (kind) {
                case INT -> bits;
                case UINT -> UnsignedLong.fromLongBits(bits);
                case DOUBLE -> d;
            };
        }

        @Override
        public String toString() {
            return switch (kind) {
                case INT -> bits + "";
                case UINT -> Long.toUnsignedString(bits) + "u";
                case DOUBLE -> d + "";
            };
        }
    }

    private static List<Num> values(Kind kind) {
        List<Num> out = new ArrayList<>();
        switch (kind) {
            case INT -> {
                for (long v : INTS) {
                    out.add(new Num(Kind.INT, v, 0));
                }
            }
            case UINT -> {
                for (long v : UINTS) {
                    out.add(new Num(Kind.UINT, v, 0));
                }
            }
            case DOUBLE -> {
                for (double v : DOUBLES) {
                    out.add(new Num(Kind.DOUBLE, 0, v));
                }
            }
        }
        return out;
    }

    /** The core's three-way comparison of two values of any kinds; Integer.MIN_VALUE for two doubles. */
    private static int compare(Num x, Num y) {
        return switch (x.kind) {
            case INT -> switch (y.kind) {
                case INT -> Long.compare(x.bits, y.bits);
                case UINT -> CelSemantics.compareIntUint(x.bits, y.bits);
                case DOUBLE -> CelSemantics.compareIntDouble(x.bits, y.d);
            };
            case UINT -> switch (y.kind) {
                case INT -> CelSemantics.compareUintInt(x.bits, y.bits);
                case UINT -> CelSemantics.compareUints(x.bits, y.bits);
                case DOUBLE -> CelSemantics.compareUintDouble(x.bits, y.d);
            };
            case DOUBLE -> switch (y.kind) {
                case INT -> CelSemantics.compareDoubleInt(x.d, y.bits);
                case UINT -> CelSemantics.compareDoubleUint(x.d, y.bits);
                case DOUBLE -> Integer.MIN_VALUE;
            };
        };
    }

    private static boolean core(String op, Num x, Num y) {
        if (x.kind == Kind.DOUBLE && y.kind == Kind.DOUBLE) {
            return switch (op) {
                case "==" -> CelSemantics.equalsDoubles(x.d, y.d);
                case "!=" -> !CelSemantics.equalsDoubles(x.d, y.d);
                default -> CelSemantics.holdsDoubles(code(op), x.d, y.d);
            };
        }
        int c = compare(x, y);
        return switch (op) {
            case "==" -> c == 0;
            case "!=" -> c != 0;
            default -> CelSemantics.holds(code(op), c);
        };
    }

    private static int code(String op) {
        return switch (op) {
            case "<" -> CelSemantics.LT;
            case "<=" -> CelSemantics.LE;
            case ">" -> CelSemantics.GT;
            default -> CelSemantics.GE;
        };
    }

    private static CelRuntime.Program program(String expression) throws Exception {
        CelAbstractSyntaxTree ast = CEL.compile(expression).getAst();
        return CEL.createProgram(ast);
    }

    @Test
    void numericComparisonAndEqualityAreCelJavas() throws Exception {
        int checked = 0;
        List<String> differences = new ArrayList<>();
        for (String op : List.of("<", "<=", ">", ">=", "==", "!=")) {
            CelRuntime.Program program = program("a " + op + " b");
            for (Kind ka : Kind.values()) {
                for (Kind kb : Kind.values()) {
                    for (Num x : values(ka)) {
                        for (Num y : values(kb)) {
                            Object expected = program.eval(Map.of("a", x.cel(), "b", y.cel()));
                            boolean actual = core(op, x, y);
                            if (!Boolean.valueOf(actual).equals(expected)) {
                                differences.add(x + " " + op + " " + y + ": cel-java " + expected + ", core " + actual);
                            }
                            checked++;
                        }
                    }
                }
            }
        }
        assertEquals(List.of(), differences);
        assertEquals(6 * 72 * 72, checked, "operator and pair cases checked");
    }

    @Test
    void theObjectLevelHelpersAgreeWithThePrimitiveOnes() throws Exception {
        CelRuntime.Program eq = program("a == b");
        CelRuntime.Program lt = program("a < b");
        CelRuntime.Program ge = program("a >= b");
        List<Object> all = new ArrayList<>();
        for (long v : INTS) {
            all.add(v);
        }
        for (double v : DOUBLES) {
            all.add(v);
        }
        for (Object x : all) {
            for (Object y : all) {
                Map<String, Object> vars = Map.of("a", x, "b", y);
                assertEquals(eq.eval(vars), CelSemantics.sameObject(x, y) || CelSemantics.equalNumbers(x, y),
                        x + " == " + y);
                assertEquals(lt.eval(vars), CelSemantics.orderNumbers(CelSemantics.LT, x, y), x + " < " + y);
                assertEquals(ge.eval(vars), CelSemantics.orderNumbers(CelSemantics.GE, x, y), x + " >= " + y);
            }
        }
        assertEquals(null, CelSemantics.equalNumbers(1L, "1"));
        assertEquals(null, CelSemantics.orderNumbers(CelSemantics.LT, "a", 1.0));
    }

    @Test
    void oneObjectIsEqualToItselfEvenANaN() throws Exception {
        Double nan = Double.NaN;
        assertEquals(Boolean.TRUE, program("a == b").eval(Map.of("a", nan, "b", nan)));
        assertEquals(Boolean.FALSE, program("a == b").eval(Map.of("a", nan, "b", Double.valueOf(Double.NaN))));
        assertEquals(Boolean.TRUE, program("[0.0 / 0.0].all(x, x == x && x in [x])").eval(Map.of()));
        assertTrue(CelSemantics.sameObject(nan, nan));
        assertFalse(CelSemantics.equalNumbers(nan, nan));
        assertTrue(ClosureCompiler.celEquals(nan, nan));
        assertTrue(ClosureCompiler.celEquals(List.of(nan), List.of(nan))); // element by element, as cel-java
    }

    @Test
    void theDeparturesFromTheSpecificationThatTheEngineInherits() {
        // cel-java's int against uint is off by one at 2^63-1
        assertEquals(-1, CelSemantics.compareIntUint(Long.MAX_VALUE, Long.MAX_VALUE));
        assertEquals(0, CelSemantics.compareIntUint(Long.MAX_VALUE - 1, Long.MAX_VALUE - 1));
        // cel-java orders -0.0 below int 0 and finds them unequal; two doubles compare with the primitive operators
        assertEquals(-1, CelSemantics.compareDoubleInt(-0.0, 0));
        assertFalse(CelSemantics.equalsDoubleInt(-0.0, 0));
        assertTrue(CelSemantics.equalsDoubles(-0.0, 0.0));
        // an int above 2^53 equals the double it rounds to
        assertTrue(CelSemantics.equalsDoubleInt(0x1p53, P53 + 1));
        assertEquals(1, CelSemantics.compareDoubleInt(Double.NaN, Long.MAX_VALUE));
        assertEquals(0x1p64, CelSemantics.uintToDouble(-1L));
        assertEquals(0x1p63, CelSemantics.uintToDouble(Long.MIN_VALUE + 1024)); // a tie, to even
        assertEquals(0x1p63 + 2048, CelSemantics.uintToDouble(Long.MIN_VALUE + 1025));
    }

    /** An operand of the logical operators: its text in a condition, and its three-valued form for the core. */
    private record Operand(String text, Object value) {}

    private static final Object ERROR = new Object();
    private static final Object OTHER_ERROR = new Object();

    private static final List<Operand> OPERANDS = List.of(new Operand("true", Boolean.TRUE),
            new Operand("false", Boolean.FALSE), new Operand("(1 / z > 0)", ERROR));

    /** What cel-java gives: a Boolean or ERROR for an evaluation error. */
    private static Object celJava(String expression) throws Exception {
        try {
            return program(expression).eval(Map.of("z", 0L));
        } catch (CelEvaluationException e) {
            return ERROR;
        }
    }

    @Test
    void errorAbsorptionIsCelJavas() throws Exception {
        for (Operand l : OPERANDS) {
            assertEquals(celJava("!" + l.text), CelSemantics.not(l.value), "!" + l.text);
            for (Operand r : OPERANDS) {
                String and = l.text + " && " + r.text;
                String or = l.text + " || " + r.text;
                assertEquals(celJava(and), CelSemantics.and(l.value, r.value), and);
                assertEquals(celJava(or), CelSemantics.or(l.value, r.value), or);
                // the left error wins over the right one
                Object right = r.value == ERROR ? OTHER_ERROR : r.value;
                Object a = CelSemantics.and(l.value, right);
                Object o = CelSemantics.or(l.value, right);
                if (l.value == ERROR && !Boolean.FALSE.equals(right)) {
                    assertEquals(ERROR, a, and);
                }
                if (l.value == ERROR && !Boolean.TRUE.equals(right)) {
                    assertEquals(ERROR, o, or);
                }
                // the condition of ?: passes its error; otherwise the chosen branch is the result
                String conditional = l.text + " ? " + r.text + " : false";
                Object expected = l.value == ERROR ? ERROR : Boolean.TRUE.equals(l.value) ? r.value : Boolean.FALSE;
                assertEquals(celJava(conditional), expected, conditional);
            }
        }
        assertTrue(CelSemantics.isFalse(Boolean.FALSE));
        assertFalse(CelSemantics.isFalse(ERROR));
        assertTrue(CelSemantics.isTrue(Boolean.TRUE));
        assertFalse(CelSemantics.isTrue(ERROR));
        assertTrue(CelSemantics.notStrictlyFalse(ERROR));
        assertFalse(CelSemantics.notStrictlyFalse(Boolean.FALSE));
        assertTrue(CelSemantics.notStrictlyFalse(Boolean.TRUE));
    }

    @Test
    void allOverAnErrorIsWhatNotStrictlyFalseSays() throws Exception {
        // `all` stops at the first false element (its loop condition is @not_strictly_false of the accumulator):
        // an error does not stop it, so a later false decides; with no false the error is the result
        assertEquals(Boolean.FALSE, celJava("[1, 0, 2].all(x, 1 / (x - 1 + z) > -5 && x != 2)"));
        assertEquals(ERROR, celJava("[1, 0].all(x, 2 / (x - 1 + z) > -5)"));
        assertFalse(CelSemantics.notStrictlyFalse(Boolean.FALSE));
        assertTrue(CelSemantics.notStrictlyFalse(ERROR));
    }

    @Test
    void theOperatorTableIsCelJavas() {
        Map<CelSemantics.Call, String> expected = new HashMap<>();
        expected.put(CelSemantics.Call.AND, Operator.LOGICAL_AND.getFunction());
        expected.put(CelSemantics.Call.OR, Operator.LOGICAL_OR.getFunction());
        expected.put(CelSemantics.Call.NOT, Operator.LOGICAL_NOT.getFunction());
        expected.put(CelSemantics.Call.CONDITIONAL, Operator.CONDITIONAL.getFunction());
        expected.put(CelSemantics.Call.NOT_STRICTLY_FALSE, Operator.NOT_STRICTLY_FALSE.getFunction());
        expected.put(CelSemantics.Call.EQUALS, Operator.EQUALS.getFunction());
        expected.put(CelSemantics.Call.NOT_EQUALS, Operator.NOT_EQUALS.getFunction());
        expected.put(CelSemantics.Call.LESS, Operator.LESS.getFunction());
        expected.put(CelSemantics.Call.LESS_EQUALS, Operator.LESS_EQUALS.getFunction());
        expected.put(CelSemantics.Call.GREATER, Operator.GREATER.getFunction());
        expected.put(CelSemantics.Call.GREATER_EQUALS, Operator.GREATER_EQUALS.getFunction());
        expected.put(CelSemantics.Call.ADD, Operator.ADD.getFunction());
        expected.put(CelSemantics.Call.SUBTRACT, Operator.SUBTRACT.getFunction());
        expected.put(CelSemantics.Call.MULTIPLY, Operator.MULTIPLY.getFunction());
        expected.put(CelSemantics.Call.DIVIDE, Operator.DIVIDE.getFunction());
        expected.put(CelSemantics.Call.MODULO, Operator.MODULO.getFunction());
        expected.put(CelSemantics.Call.NEGATE, Operator.NEGATE.getFunction());
        expected.put(CelSemantics.Call.INDEX, Operator.INDEX.getFunction());
        expected.put(CelSemantics.Call.IN, Operator.IN.getFunction());
        expected.put(CelSemantics.Call.SIZE, StandardFunction.SIZE.functionName());
        expected.put(CelSemantics.Call.STARTS_WITH, StandardFunction.STARTS_WITH.functionName());
        expected.put(CelSemantics.Call.ENDS_WITH, StandardFunction.ENDS_WITH.functionName());
        expected.put(CelSemantics.Call.CONTAINS, StandardFunction.CONTAINS.functionName());
        expected.put(CelSemantics.Call.MATCHES, StandardFunction.MATCHES.functionName());
        expected.put(CelSemantics.Call.INT, StandardFunction.INT.functionName());
        expected.put(CelSemantics.Call.DOUBLE, StandardFunction.DOUBLE.functionName());
        expected.put(CelSemantics.Call.STRING, StandardFunction.STRING.functionName());
        for (CelSemantics.Call c : CelSemantics.Call.values()) {
            if (c == CelSemantics.Call.OTHER) {
                assertEquals(null, c.function());
                continue;
            }
            assertEquals(expected.get(c), c.function(), c.name());
            assertEquals(c, CelSemantics.call(c.function()));
        }
        assertEquals(CelSemantics.Call.OTHER, CelSemantics.call("getHours"));
        assertEquals(CelSemantics.Call.OTHER, CelSemantics.call("_in_")); // the old name is not produced any more
        // the names as they appear in a checked tree
        assertEquals("_&&_", CelSemantics.AND);
        assertEquals("@in", CelSemantics.IN);
        assertEquals("startsWith", CelSemantics.STARTS_WITH);
        // how operators are written, for messages
        assertEquals("<=", CelSemantics.symbol(CelSemantics.LESS_EQUALS).orElseThrow());
        assertEquals("in", CelSemantics.symbol(CelSemantics.IN).orElseThrow());
        assertEquals("!", CelSemantics.symbol(CelSemantics.NOT).orElseThrow());
        assertEquals("-", CelSemantics.symbol(CelSemantics.NEGATE).orElseThrow());
        assertEquals("[]", CelSemantics.symbol(CelSemantics.INDEX).orElseThrow());
        assertEquals("?:", CelSemantics.symbol(CelSemantics.CONDITIONAL).orElseThrow());
        assertTrue(CelSemantics.symbol(CelSemantics.SIZE).isEmpty());
        // the classification the parts use
        assertTrue(CelSemantics.Call.LESS.isOrdering() && !CelSemantics.Call.EQUALS.isOrdering());
        assertTrue(CelSemantics.Call.NOT_EQUALS.isEquality() && !CelSemantics.Call.LESS.isEquality());
        assertTrue(CelSemantics.Call.NOT.isLogical() && !CelSemantics.Call.CONDITIONAL.isLogical());
        assertEquals(CelSemantics.GE, CelSemantics.ordering(CelSemantics.Call.GREATER_EQUALS));
        assertEquals(-1, CelSemantics.ordering(CelSemantics.Call.EQUALS));
    }

    @Test
    void noPartOfEngineCoreSpellsAnOperatorNameOfItsOwn() throws Exception {
        // every part classifies calls through CelSemantics: a name spelled as a literal is a part with its own table
        Path main = Path.of("src/main/java/dev/custody/engine");
        assertTrue(Files.isDirectory(main), main.toAbsolutePath().toString());
        List<String> operators = new ArrayList<>();
        for (Operator o : Operator.values()) {
            if (!o.getFunction().matches("[A-Za-z_]+") || o.getFunction().contains("_")) {
                operators.add(o.getFunction()); // _&&_, @in, !_, -_, ... (not the macro names, common words)
            }
        }
        List<String> functions = List.of(CelSemantics.STARTS_WITH, CelSemantics.ENDS_WITH, CelSemantics.MATCHES,
                CelSemantics.CONTAINS, CelSemantics.SIZE, CelSemantics.INT, CelSemantics.DOUBLE, CelSemantics.STRING);
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(main)) {
            for (Path f : (Iterable<Path>) files.filter(x -> x.toString().endsWith(".java"))::iterator) {
                String text = Files.readString(f);
                for (String name : operators) {
                    if (text.contains("\"" + name + "\"")) {
                        found.add(f + ": " + name);
                    }
                }
                if (f.getParent().endsWith("compile")) {
                    for (String name : functions) {
                        if (text.contains("\"" + name + "\"")) {
                            found.add(f + ": " + name);
                        }
                    }
                }
            }
        }
        assertEquals(List.of(), found);
        assertTrue(operators.containsAll(List.of("_&&_", "_||_", "!_", "_?_:_", "_<_", "_==_", "-_", "@in", "_[_]")),
                operators.toString());
    }

    @Test
    void aFailingCelJavaEvaluationIsNotMistakenForAValue() {
        try {
            program("a < b").eval(Map.of("a", "x", "b", 1L));
            fail("a string against an int has no overload");
        } catch (Exception e) {
            assertTrue(e.getMessage().contains("No matching overload") || e.getMessage().contains("no matching overload"),
                    e.getMessage());
        }
    }
}
