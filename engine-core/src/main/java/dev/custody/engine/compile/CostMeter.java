package dev.custody.engine.compile;

/**
 * Counts the cost of one evaluation in abstract units, and stops it past a limit.
 *
 * <h2>Why a cost, not the clock</h2>
 * A wall-clock budget makes a decision depend on how busy the machine is: the same action, denied for time on
 * a loaded host, is allowed when replayed on a quiet one. A cost is a function of the conditions and the action
 * only, the same on every machine and under every load, as Kubernetes bounds CEL by cost units for the same
 * reason. The engine denies a decision whose cost passes its limit ({@code cost_budget}); the clock remains a
 * far backstop (docs/design.md §3.15).
 *
 * <h2>The cost model</h2>
 * Both evaluators charge the same things (so a condition costs the same, within its size in nodes, whichever
 * evaluates it; the differential property holds them to it). The weights make one unit roughly the same time
 * whatever the work (engine-core/BENCHMARKS.md, "Cost calibration"):
 * <ul>
 *   <li>1 per sub-expression evaluated. cel-java's interpreter is charged per sub-expression it reports to its
 *       evaluation listener, so each iteration of a comprehension is charged for every node of its body. A
 *       compiled condition ({@link CompiledCondition#compiled()}) is charged, once when it starts, every node
 *       outside a comprehension's loop (an upper bound of those it evaluates), and every node inside a loop each
 *       time it gives a value, as cel-java's listener charges it.
 *   <li>Strings: 1 per started {@value #CHARS_PER_UNIT} characters ({@link #chars}) of each string operand of a
 *       comparison ({@code ==}, {@code !=}, {@code <}, …), of the receiver of {@code startsWith} and
 *       {@code endsWith}, and of a string built by {@code +}; 1 per 2 characters of a string whose {@code size}
 *       is taken ({@link #sizeUnits}: cel-java counts code points one by one);
 *       {@code contains} is charged its receiver's units plus their product with its argument's (a naive search
 *       compares every position with the whole argument).
 *   <li>Regexes: {@code matches} is charged {@link #regexUnits} (3 per character of input, plus the
 *       characters times the program size over 200): re2j's automaton spends about that per character.
 *   <li>Lists and maps: {@value #ELEMENT_UNITS} per element of a list or map literal, of a list built by
 *       {@code +} or by a {@code map}/{@code filter} comprehension; {@code in} over a list is charged for every
 *       element it may compare ({@link #scanCharge}).
 * </ul>
 * The default limit ({@link #DEFAULT_LIMIT}) is calibrated so that the most expensive evaluation it admits takes
 * at most 50 ms on the reference machine (engine-core/BENCHMARKS.md, "Cost calibration").
 *
 * <p>Not thread-safe: one meter per evaluation.
 */
public final class CostMeter {
    /** Characters charged as one unit. */
    public static final int CHARS_PER_UNIT = 16;
    /** Units per element of a list or map a condition builds. */
    public static final int ELEMENT_UNITS = 4;
    /** The default cost limit of one decision (calibration: engine-core/BENCHMARKS.md). */
    public static final long DEFAULT_LIMIT = 400_000L;
    /** A limit that is never reached. */
    public static final long UNLIMITED = Long.MAX_VALUE;
    /**
     * False only when the JVM runs with {@code -Dcustody.cost.uncounted=true}: for the benchmark that measures what
     * counting costs (engine-core/BENCHMARKS.md), never for deciding. Without counting nothing but the clock
     * backstop bounds a rule.
     */
    static final boolean COUNTING = !Boolean.getBoolean("custody.cost.uncounted");

    private final long limit;
    private long used;
    /** The compiled forms' frame for the payload of this meter's evaluation, made by the first rule. */
    private ClosureCompiler.Frame frame;

    /**
     * A meter that stops evaluation once more than {@code limit} units are charged.
     *
     * @throws IllegalArgumentException if {@code limit} is not positive
     */
    public CostMeter(long limit) {
        this.limit = checkLimit(limit);
    }

    /**
     * {@code limit}, when it is a valid cost limit (positive), for the builders that take one.
     *
     * @throws IllegalArgumentException if it is not positive
     */
    public static long checkLimit(long limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("cost limit must be positive, got " + limit);
        }
        return limit;
    }

    /** A meter without a limit (for a single condition tried interactively, and for measuring). */
    public static CostMeter unlimited() {
        return new CostMeter(UNLIMITED);
    }

    /** The units charged so far; may pass {@link #limit()} by the last charge, which stopped evaluation. */
    public long used() {
        return used;
    }

    /** The limit. */
    public long limit() {
        return limit;
    }

    /** Whether the charges passed the limit. */
    public boolean exceeded() {
        return used > limit;
    }

    /** Charges {@code units}; past the limit, throws {@link Exceeded}, which no CEL operator absorbs. */
    void charge(long units) {
        if (!COUNTING) {
            return;
        }
        long u = used + units;
        used = u < used ? Long.MAX_VALUE : u; // saturate
        if (used > limit) {
            throw Exceeded.INSTANCE;
        }
    }

    /** The frame a compiled form reads {@code payload} through: one per decision, shared by its rules. */
    ClosureCompiler.Frame frame(dev.custody.engine.check.Payload payload) {
        ClosureCompiler.Frame f = frame;
        if (f == null || f.payload != payload) {
            f = new ClosureCompiler.Frame(payload, this);
            frame = f;
        }
        return f;
    }

    /** Takes back what was charged since {@code used} was {@code mark} (a compiled form that handed over to cel-java). */
    void rewind(long mark) {
        used = mark;
    }

    /** Units for scanning or building {@code length} characters: one per started {@value #CHARS_PER_UNIT}. */
    static long chars(int length) {
        return (length + (long) CHARS_PER_UNIT - 1) / CHARS_PER_UNIT;
    }

    /** Units for {@code size} of a string of {@code length} characters: one per two. */
    static long sizeUnits(int length) {
        return (length + 1L) / 2;
    }

    /** {@link #chars} of a string value; 0 for any other value. */
    static long stringChars(Object value) {
        return value instanceof String s ? chars(s.length()) : 0;
    }

    /** Units for {@code in} scanning a list: per element, {@link #chars} of a string (at least 1), else 1. */
    static long scanCharge(java.util.List<?> list) {
        long c = 0;
        for (Object e : list) {
            c += e instanceof String s ? Math.max(1, chars(s.length())) : 1;
        }
        return c;
    }

    /** Units for matching {@code length} characters with a regex of re2j program size {@code programSize}. */
    static long regexUnits(long length, long programSize) {
        return 3 * length + (length * Math.max(1, programSize) + 199) / 200;
    }

    /**
     * Thrown when a charge passes the limit. An {@link Error} (preallocated, without a stack) so that neither
     * cel-java's {@code &&}/{@code ||} nor the compiled form's absorb it.
     */
    static final class Exceeded extends Error {
        static final Exceeded INSTANCE = new Exceeded();

        private Exceeded() {
            super("cost budget exceeded", null, false, false);
        }
    }
}
