package dev.custody.spark;

import static org.apache.spark.sql.functions.col;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.Decision;
import dev.custody.engine.payload.Action;
import dev.custody.engine.replay.ActionStream;
import dev.custody.engine.replay.DecisionRecords;
import dev.custody.engine.replay.StreamLedger;
import dev.custody.engine.velocity.Velocity;
import java.io.IOException;
import java.io.Serializable;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Replay and diff of an action stream on Apache Spark (docs/design.md §7): the decisions {@code custody replay}
 * gives, computed by executors through engine-core's one decision path.
 *
 * <p>How: the {@link PolicySet} (the policy files' bytes) is broadcast and each executor JVM compiles it once;
 * lines are read by {@code ActionReader} and decided by {@link PolicyEngine} inside {@code mapPartitions}, so the
 * failure kinds, fail-closed rules and time budget are the library's. With {@link VelocityMode#DERIVE} the absent
 * {@code wallet}/{@code workspace} sections of withdrawals are computed first with window functions
 * ({@link VelocityWindows}), to the figures of the replay's in-memory ledger (lateness tolerance: one hour, as
 * {@code custody replay}); with {@link VelocityMode#GIVEN} actions are decided exactly as given, without a
 * shuffle. {@code --assume-settled} (outflow that depends on earlier decisions) is not offered by this Dataset API;
 * {@link ReplayJob}'s JSONL replay offers it, deciding per group of ledger keys ({@code KeyedLedger}).
 *
 * <p>Input rows are those of {@link ActionInput#read}: {@code pos} (stream order), {@code line}, {@code value}.
 * {@link #replay} returns one row per action line and per malformed line ({@link #DECISIONS}), ordered by
 * {@code pos}, whose {@code record} column is the line {@code custody replay --format jsonl} writes for it.
 * Stateless and thread-safe; the datasets it returns are lazy, as Spark's are.
 */
public final class CustodySpark {
    /** The replay ledger's lateness tolerance (docs/design.md §4.4). */
    public static final Duration LATENESS = Duration.ofHours(1);

    /** Where velocity sections come from. */
    public enum VelocityMode {
        /** Absent sections are derived from the stream's settlement records and attempts. */
        DERIVE,
        /** Actions are decided exactly as given. */
        GIVEN
    }

    /**
     * Options of a replay.
     *
     * @param velocity where velocity sections come from
     * @param explain whether records carry the trace of every evaluated rule
     * @param maxLine the longest line read, in characters; a longer one is one malformed record
     */
    public record Options(VelocityMode velocity, boolean explain, int maxLine) implements Serializable {
        public Options {
            Objects.requireNonNull(velocity, "velocity");
            if (maxLine < 1) {
                throw new IllegalArgumentException("maxLine must be at least 1, got " + maxLine);
            }
        }

        /** Derived velocity, no trace, the default line limit. */
        public static Options defaults() {
            return new Options(VelocityMode.DERIVE, false, ActionStream.DEFAULT_MAX_LINE);
        }
    }

    /** The columns of a replay's decisions. */
    public static final StructType DECISIONS = new StructType()
            .add("pos", DataTypes.LongType, false)
            .add("stream_line", DataTypes.LongType, false)
            .add("id", DataTypes.StringType, true)
            .add("action", DataTypes.StringType, true)
            .add("decision", DataTypes.StringType, false)
            .add("policy_id", DataTypes.StringType, true)
            .add("rule_id", DataTypes.StringType, true)
            .add("reason", DataTypes.StringType, true)
            .add("fail_closed", DataTypes.BooleanType, false)
            .add("failure", DataTypes.StringType, true)
            .add("error", DataTypes.StringType, true)
            .add("bundle_revision", DataTypes.StringType, true)
            .add("elapsed_us", DataTypes.LongType, false)
            .add("line", DataTypes.LongType, true)
            .add("column", DataTypes.IntegerType, true)
            .add("record", DataTypes.StringType, false);

    /** The columns of a diff's changes: the action, and each side's decision. */
    public static final StructType CHANGES = new StructType()
            .add("pos", DataTypes.LongType, false)
            .add("id", DataTypes.StringType, true)
            .add("line", DataTypes.LongType, false)
            .add("action", DataTypes.StringType, false)
            .add("base_decision", DataTypes.StringType, false)
            .add("base_rule_id", DataTypes.StringType, true)
            .add("head_decision", DataTypes.StringType, false)
            .add("head_rule_id", DataTypes.StringType, true)
            .add("record", DataTypes.StringType, false);

    private static final JsonFactory JSON = new JsonFactory();

    private CustodySpark() {}

    /** Replays a stream (rows of {@link ActionInput#read}) against policies: one decision row per record. */
    public static Dataset<Row> replay(SparkSession spark, Dataset<Row> actions, PolicySet policies, Options options) {
        JavaRDD<Row> rows = decided(spark, actions, List.of(policies), options).flatMap(r -> {
            Outcome o = (Outcome) r;
            return (o.malformed != null ? List.of(malformedRow(o, options.explain()))
                    : List.of(decisionRow(o, o.decisions.get(0), options.explain()))).iterator();
        });
        return spark.createDataFrame(rows, DECISIONS);
    }

    /**
     * The actions whose decision or attribution differs between two policy sets ({@code custody diff}): the same
     * stream, velocity derived once for both sides. Malformed lines are not changes.
     */
    public static Dataset<Row> diff(SparkSession spark, Dataset<Row> actions, PolicySet base, PolicySet head,
            Options options) {
        JavaRDD<Row> rows = decided(spark, actions, List.of(base, head), options).flatMap(r -> {
            Outcome o = (Outcome) r;
            if (o.malformed != null || !DecisionRecords.changed(o.decisions.get(0), o.decisions.get(1))) {
                return java.util.Collections.emptyIterator();
            }
            return List.of(changeRow(o)).iterator();
        });
        return spark.createDataFrame(rows, CHANGES);
    }

    /** What became of one line: its decisions (one per policy set) or its malformed record. */
    private static final class Outcome implements Serializable {
        private static final long serialVersionUID = 1L;
        final long pos;
        final long line;
        final transient List<Decision> decisions;
        final transient ActionStream.MalformedLine malformed;

        Outcome(long pos, long line, List<Decision> decisions, ActionStream.MalformedLine malformed) {
            this.pos = pos;
            this.line = line;
            this.decisions = decisions;
            this.malformed = malformed;
        }
    }

    /** Lines decided in stream order, one {@link Outcome} per record (within a partition; never shuffled). */
    private static JavaRDD<Object> decided(SparkSession spark, Dataset<Row> actions, List<PolicySet> sets,
            Options options) {
        Instant now = sets.get(0).now();
        for (PolicySet s : sets) {
            if (!s.now().equals(now)) {
                throw new IllegalArgumentException("policy sets of one run must share their instant");
            }
        }
        JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
        Broadcast<List<PolicySet>> policies = sc.broadcast(List.copyOf(sets));
        int maxLine = options.maxLine();
        boolean explain = options.explain();
        Dataset<Row> input = actions.select(col("pos"), col("line"), col("value"));
        if (options.velocity() == VelocityMode.GIVEN) {
            return input.sort("pos").javaRDD().mapPartitions(it -> {
                List<PolicyEngine> engines = engines(policies.value());
                return new Mapped(it, r -> given(r, engines, maxLine, explain));
            });
        }
        Dataset<Row> figures = figures(spark, input, now, maxLine);
        Dataset<Row> joined = input.join(figures, scala.collection.immutable.List.from(
                scala.jdk.javaapi.CollectionConverters.asScala(List.of("pos"))), "left").sort("pos");
        return joined.javaRDD().mapPartitions(it -> {
            List<PolicyEngine> engines = engines(policies.value());
            return new Mapped(it, r -> derived(r, engines, now, maxLine, explain));
        });
    }

    /**
     * The derived figures of every withdrawal that lacks a velocity section ({@code pos}, {@code refused_m}, then
     * {@code wallet_o1 … network_c}; see {@link VelocityWindows#figures}).
     */
    static Dataset<Row> figures(SparkSession spark, Dataset<Row> input, Instant now, int maxLine) {
        Dataset<Row> ops = spark.createDataFrame(input.javaRDD().flatMap(r ->
                VelocityWindows.ops(r.getLong(0), r.getLong(1), r.getString(2), now, maxLine).iterator()),
                VelocityWindows.OPS);
        return VelocityWindows.figures(spark, ops, LATENESS);
    }

    private static List<PolicyEngine> engines(List<PolicySet> sets) {
        return sets.stream().map(PolicySet::engine).toList();
    }

    private static Object given(Row r, List<PolicyEngine> engines, int maxLine, boolean explain) {
        long pos = r.getLong(0);
        ActionStream.Line line = StreamLines.parse(r.getLong(1), r.getString(2), maxLine);
        if (line instanceof ActionStream.MalformedLine m) {
            return new Outcome(pos, m.number(), null, m);
        }
        if (line instanceof ActionStream.ActionLine a) {
            List<Decision> ds = new ArrayList<>(engines.size());
            for (PolicyEngine e : engines) {
                ds.add(e.evaluate(a.action(), explain));
            }
            return new Outcome(pos, a.number(), ds, null);
        }
        return null;
    }

    private static Object derived(Row r, List<PolicyEngine> engines, Instant now, int maxLine, boolean explain) {
        long pos = r.getLong(0);
        ActionStream.Line line = StreamLines.parse(r.getLong(1), r.getString(2), maxLine);
        if (line instanceof ActionStream.MalformedLine m) {
            return new Outcome(pos, m.number(), null, m);
        }
        if (line instanceof ActionStream.SettlementLine s) {
            StreamLedger.Rejected rejected = StreamLines.settlementRejected(s);
            return rejected == null ? null : new Outcome(pos, s.number(), null, StreamLines.malformed(s, rejected));
        }
        ActionStream.ActionLine a = (ActionStream.ActionLine) line;
        JsonlReplay.Figures f = JsonlReplay.Figures.of(r);
        List<Decision> ds = new ArrayList<>(engines.size());
        for (PolicyEngine e : engines) {
            ds.add(derivedDecision(a, f, e, now, explain));
        }
        return new Outcome(pos, a.number(), ds, null);
    }

    /**
     * The decision on an action line with velocity derived: its absent sections filled from its figures (null when
     * it has none), or the ledger's refusal as a fail-closed decision.
     */
    static Decision derivedDecision(ActionStream.ActionLine a, JsonlReplay.Figures f, PolicyEngine engine, Instant now,
            boolean explain) {
        Action action = StreamLines.withInstant(a.action(), now);
        String[] keys = StreamLines.keys(action);
        if (keys != null && StreamLines.needsVelocity(action)) {
            if (!StreamLines.inRange(action.at())) {
                String error = StreamLines.rangeError(action, keys);
                if (error != null) {
                    return StreamLines.unavailable(action, error);
                }
            } else if (f != null && f.refusedM != null) {
                return StreamLines.unavailable(action, StreamLines.lateError(action.at(), f.refusedM, LATENESS));
            } else if (f == null || f.velocity() == null) {
                throw new IllegalStateException("no velocity figures for line " + a.number());
            } else {
                Velocity v = f.velocity();
                if (action.sections().get("wallet") == null) {
                    action = action.withSection("wallet", v.walletSection());
                }
                if (action.sections().get("workspace") == null) {
                    action = action.withSection("workspace", v.workspaceSection());
                }
            }
        }
        return engine.evaluate(action, explain);
    }

    /** A partition's rows mapped one by one, nulls dropped. */
    private static final class Mapped implements Iterator<Object> {
        private final Iterator<Row> rows;
        private final java.util.function.Function<Row, Object> f;
        private Object next;

        Mapped(Iterator<Row> rows, java.util.function.Function<Row, Object> f) {
            this.rows = rows;
            this.f = f;
        }

        @Override
        public boolean hasNext() {
            while (next == null && rows.hasNext()) {
                next = f.apply(rows.next());
            }
            return next != null;
        }

        @Override
        public Object next() {
            if (!hasNext()) {
                throw new java.util.NoSuchElementException();
            }
            Object o = next;
            next = null;
            return o;
        }
    }

    private static Row decisionRow(Outcome o, Decision d, boolean explain) {
        String record = json(g -> DecisionRecords.write(g, d, explain));
        return RowFactory.create(o.pos, o.line, d.actionId(), d.action() == null ? null : d.action().wireName(),
                d.outcome().name(), d.policyId(), d.ruleId(), d.reason(), d.failClosed(),
                d.failure() == null ? null : d.failure().wireName(), d.error(), d.bundleRevision(), d.elapsedNanos() / 1000,
                null, null, record);
    }

    private static Row malformedRow(Outcome o, boolean explain) {
        ActionStream.MalformedLine m = o.malformed;
        String record = json(g -> DecisionRecords.malformed(g, m, explain));
        return RowFactory.create(o.pos, o.line, m.id(), null, "DENY", null, null, null, true, "malformed_action",
                DecisionRecords.MALFORMED_PREFIX + m.message(), null, 0L, m.number(), m.column() > 0 ? m.column() : null,
                record);
    }

    private static Row changeRow(Outcome o) {
        Decision base = o.decisions.get(0);
        Decision head = o.decisions.get(1);
        String record = json(g -> DecisionRecords.change(g, base.actionId(), o.line, base.action().wireName(), base, head));
        return RowFactory.create(o.pos, base.actionId(), o.line, base.action().wireName(), base.outcome().name(),
                base.ruleId(), head.outcome().name(), head.ruleId(), record);
    }

    private interface JsonBody {
        void write(JsonGenerator g) throws IOException;
    }

    private static String json(JsonBody body) {
        StringWriter w = new StringWriter(320);
        try (JsonGenerator g = JSON.createGenerator(w)) {
            body.write(g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }
}
