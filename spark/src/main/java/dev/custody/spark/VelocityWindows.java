package dev.custody.spark;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sequence;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import dev.custody.engine.payload.Action;
import dev.custody.engine.replay.ActionStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.expressions.WindowSpec;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;

/**
 * The {@code wallet.*} and {@code workspace.*} sections of a stream's withdrawals, computed with Spark window
 * functions to the figure the replay's in-memory {@code VelocityLedger} gives (docs/design.md §3.13, §4.4, §15).
 *
 * <p>The ledger's answer for a withdrawal {@code q} (stream position {@code p}, instant {@code t}) on a key is the
 * sum over the records <em>before it in the stream</em> whose instant lies in {@code (t − W, t]}; its own attempt
 * is recorded after its query. Records the ledger drops (too old for any window it still answers for) cannot
 * fall in such a window, so they change nothing. And a query more than the lateness tolerance before the
 * ledger's watermark (the latest instant of any earlier record or query, all keys together) is refused. Computed
 * here as, per key (wallet; workspace; workspace and network):
 * <ol>
 *   <li>{@code A}: a {@code RANGE} window over the key's records ordered by instant, {@code (t − W, t]}, which
 *       also holds the records that come after {@code q} in the stream with an instant at or before {@code t};
 *   <li>minus the records after {@code q} at the same instant ({@code q}'s own attempt among them): a window
 *       over the key and instant ordered by position;
 *   <li>minus the records after {@code q} with an instant in {@code (t − W, t)}: such a record is earlier than
 *       the watermark when it comes (the watermark is then at least {@code t}), i.e. late; late records are few,
 *       and each is joined with the queries of its key whose instant lies between its own and the watermark it
 *       came after, through one-minute buckets of time, so the join is bounded by how late the records are.
 * </ol>
 * The watermark before each record is a running maximum in stream order: the ledger records are sorted by
 * position (one shuffle of two longs a record), each partition's maximum is collected, and the running maximum
 * continues across partitions. Sums are of micro-dollars as {@code decimal(38,0)}, exact like the ledger's
 * 128-bit sums.
 *
 * <p>Package-private; used by {@link CustodySpark}.
 */
final class VelocityWindows {
    static final long HOUR = Duration.ofHours(1).toNanos();
    private static final long[] OUTFLOW = {HOUR, 6 * HOUR, 24 * HOUR};
    private static final long BUCKET = Duration.ofMinutes(1).toNanos();
    private static final DataType MICROS = DataTypes.createDecimalType(38, 0);

    /** A withdrawal with ledger keys (an attempt, and a query when it lacks a section). */
    static final int WITHDRAWAL = 1;
    /** A settlement the ledger takes (realized or not: it moves the watermark either way). */
    static final int SETTLEMENT = 2;

    static final StructType OPS = new StructType()
            .add("pos", DataTypes.LongType, false)
            .add("kind", DataTypes.IntegerType, false)
            .add("t", DataTypes.LongType, false)
            .add("wallet", DataTypes.StringType, false)
            .add("workspace", DataTypes.StringType, false)
            .add("network", DataTypes.StringType, false)
            .add("v", DataTypes.LongType, false)
            .add("query", DataTypes.BooleanType, false);

    /** {@link #OPS} with the input split of the line: the figures then carry it too. */
    static final StructType OPS_SPLIT = OPS.add("split", DataTypes.IntegerType, false);

    private VelocityWindows() {}

    /** The ledger operations of one line (none for most non-withdrawal lines). */
    static List<Row> ops(long pos, long number, String text, Instant now, int maxLine) {
        Object[] op = op(pos, StreamLines.parse(number, text, maxLine), now);
        return op == null ? List.of() : List.of(RowFactory.create(op));
    }

    /** The ledger operation of one line read (the values of an {@link #OPS} row), or null when it has none. */
    static Object[] op(long pos, ActionStream.Line line, Instant now) {
        if (line instanceof ActionStream.ActionLine a) {
            Action action = StreamLines.withInstant(a.action(), now);
            String[] k = StreamLines.keys(action);
            if (k == null || !StreamLines.inRange(action.at())) {
                return null;
            }
            return new Object[] {pos, WITHDRAWAL, StreamLines.nanos(action.at()), k[0], k[1], k[2], 0L,
                    StreamLines.needsVelocity(action)};
        }
        if (line instanceof ActionStream.SettlementLine s && StreamLines.settlementRejected(s) == null) {
            var st = s.settlement();
            long v = st.status().realized() ? st.valueUsd().setScale(6, java.math.RoundingMode.HALF_EVEN)
                    .movePointRight(6).longValueExact() : 0L;
            return new Object[] {pos, SETTLEMENT, StreamLines.nanos(st.at()),
                    st.walletId().toLowerCase(java.util.Locale.ROOT), st.workspaceId().toLowerCase(java.util.Locale.ROOT),
                    st.networkCode(), v, false};
        }
        return null;
    }

    /**
     * For every withdrawal that lacks a velocity section: {@code pos}, {@code refused_m} (the watermark that
     * refuses its query, else null) and the figures {@code wallet_o1, wallet_o6, wallet_o24, wallet_c,
     * workspace_…, network_…} (micro-dollars and counts; null when refused); and {@code split} when the
     * operations carry it ({@link #OPS_SPLIT}).
     */
    static Dataset<Row> figures(SparkSession spark, Dataset<Row> ops, Duration lateness) {
        JavaRDD<Row> sorted = ops.sort("pos").javaRDD().persist(StorageLevel.MEMORY_AND_DISK());
        List<Long> maxima = sorted.mapPartitions(it -> {
            long m = Long.MIN_VALUE;
            while (it.hasNext()) {
                m = Math.max(m, it.next().getLong(2));
            }
            return List.of(m).iterator();
        }).collect();
        long[] before = new long[maxima.size()];
        long running = Long.MIN_VALUE;
        for (int p = 0; p < before.length; p++) {
            before[p] = running;
            running = Math.max(running, maxima.get(p));
        }
        int width = ops.schema().size();
        boolean split = width > OPS.size();
        JavaRDD<Row> withM = sorted.mapPartitionsWithIndex((p, it) -> new Iterator<Row>() {
            long m = before[p];

            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public Row next() {
                Row r = it.next();
                Object[] v = new Object[width + 1];
                for (int i = 0; i < width; i++) {
                    v[i] = r.get(i);
                }
                v[width] = m == Long.MIN_VALUE ? null : m;
                m = Math.max(m, r.getLong(2));
                return RowFactory.create(v);
            }
        }, true);
        Dataset<Row> o = spark.createDataFrame(withM, ops.schema().add("m", DataTypes.LongType, true))
                .withColumn("late", coalesce(col("t").lt(col("m")), lit(false)))
                .withColumn("refused", col("query").and(coalesce(col("t").lt(col("m").minus(lateness.toNanos())), lit(false))))
                .persist(StorageLevel.MEMORY_AND_DISK());

        Dataset<Row> queries = o.filter(col("query").and(col("refused").unary_$bang()));
        Dataset<Row> perScope = scopes(o, queries);
        List<Column> figures = new ArrayList<>();
        for (int s = 0; s < SCOPES.length; s++) {
            for (String f : new String[] {"o1", "o6", "o24", "c"}) {
                figures.add(functions.max(when(col("scope").equalTo(s), col(f))).as(SCOPES[s] + "_" + f));
            }
        }
        Dataset<Row> answered = perScope.groupBy("pos").agg(figures.get(0), figures.subList(1, figures.size()).toArray(Column[]::new));
        return o.filter(col("query"))
                .select(split ? new Column[] {col("pos"), when(col("refused"), col("m")).as("refused_m"), col("split")}
                        : new Column[] {col("pos"), when(col("refused"), col("m")).as("refused_m")})
                .join(answered, seq("pos"), "left");
    }

    private static final String[] SCOPES = {"wallet", "workspace", "network"};

    private static scala.collection.immutable.Seq<String> seq(String... names) {
        return scala.collection.immutable.List.from(scala.jdk.javaapi.CollectionConverters.asScala(List.of(names)));
    }

    /** One row per scope of a ledger operation: the scope's number and its key. */
    private static Dataset<Row> byScope(Dataset<Row> rows) {
        return rows.withColumn("scope", explode(functions.array(lit(0), lit(1), lit(2))))
                .withColumn("key", when(col("scope").equalTo(0), concat_ws("\u0000", lit("w"), col("wallet")))
                        .when(col("scope").equalTo(1), concat_ws("\u0000", lit("s"), col("workspace")))
                        .otherwise(concat_ws("\u0000", lit("n"), col("workspace"), col("network"))));
    }

    /** The figures of every scope (one row per answered query and scope: pos, scope, o1, o6, o24, c). */
    private static Dataset<Row> scopes(Dataset<Row> o, Dataset<Row> queries) {
        // records: a settlement's outflow at 2·pos, a withdrawal's attempt at 2·pos + 1 (after its own query)
        Dataset<Row> settlements = o.filter(col("kind").equalTo(SETTLEMENT).and(col("v").gt(0)))
                .select(col("wallet"), col("workspace"), col("network"), col("t"), col("pos").multiply(2).as("sp"),
                        col("v").cast(MICROS).as("v"), lit(0L).as("c"), lit(false).as("q"), col("late"), col("m"));
        Dataset<Row> attempts = o.filter(col("kind").equalTo(WITHDRAWAL))
                .select(col("wallet"), col("workspace"), col("network"), col("t"), col("pos").multiply(2).plus(1).as("sp"),
                        lit(0).cast(MICROS).as("v"), lit(1L).as("c"), lit(false).as("q"), col("late"), col("m"));
        Dataset<Row> asked = queries
                .select(col("wallet"), col("workspace"), col("network"), col("t"), col("pos").multiply(2).as("sp"),
                        lit(0).cast(MICROS).as("v"), lit(0L).as("c"), lit(true).as("q"), lit(false).as("late"), col("m"));
        Dataset<Row> all = byScope(settlements.unionByName(attempts).unionByName(asked))
                .drop("wallet", "workspace", "network");

        WindowSpec byTime = Window.partitionBy("key").orderBy("t");
        WindowSpec tiesAfter = Window.partitionBy("key", "t").orderBy("sp")
                .rowsBetween(1, Window.unboundedFollowing());
        Dataset<Row> framed = all
                .withColumn("a1", sum("v").over(byTime.rangeBetween(-(OUTFLOW[0] - 1), 0)))
                .withColumn("a6", sum("v").over(byTime.rangeBetween(-(OUTFLOW[1] - 1), 0)))
                .withColumn("a24", sum("v").over(byTime.rangeBetween(-(OUTFLOW[2] - 1), 0)))
                .withColumn("ac", sum("c").over(byTime.rangeBetween(-(HOUR - 1), 0)))
                .withColumn("tv", coalesce(sum("v").over(tiesAfter), lit(0).cast(MICROS)))
                .withColumn("tc", coalesce(sum("c").over(tiesAfter), lit(0L)))
                .filter(col("q"))
                .select(col("key"), col("scope"), col("t"), col("sp"),
                        col("a1").minus(col("tv")).as("o1"), col("a6").minus(col("tv")).as("o6"),
                        col("a24").minus(col("tv")).as("o24"), col("ac").minus(col("tc")).as("c"));

        // late records: each reaches the queries of its key between its own instant and the watermark it came after
        Dataset<Row> late = all.filter(col("late").and(col("q").unary_$bang()))
                .withColumn("reach", when(col("c").gt(0), lit(HOUR)).otherwise(lit(OUTFLOW[2])))
                .withColumn("bucket", explode(sequence(expr("(t + 1) div " + BUCKET),
                        expr("least(t + reach - 1, m) div " + BUCKET))))
                .select(col("key"), col("bucket"), col("t").as("lt"), col("sp").as("lsp"), col("v").as("lv"),
                        col("c").as("lc"));
        Dataset<Row> correction = framed.select(col("key"), col("t"), col("sp"), col("scope"),
                        expr("t div " + BUCKET).as("bucket"))
                .join(late, seq("key", "bucket"))
                .filter(col("lsp").gt(col("sp")).and(col("lt").lt(col("t")))
                        .and(col("lt").gt(col("t").minus(OUTFLOW[2]))))
                .groupBy("sp", "scope")
                .agg(sum(when(col("lt").gt(col("t").minus(OUTFLOW[0])), col("lv")).otherwise(lit(0).cast(MICROS))).as("l1"),
                        sum(when(col("lt").gt(col("t").minus(OUTFLOW[1])), col("lv")).otherwise(lit(0).cast(MICROS))).as("l6"),
                        sum(col("lv")).as("l24"),
                        sum(when(col("lt").gt(col("t").minus(HOUR)), col("lc")).otherwise(lit(0L))).as("lc"));

        return framed.join(correction, seq("sp", "scope"), "left")
                .select(expr("sp div 2").as("pos"), col("scope"),
                        col("o1").minus(coalesce(col("l1"), lit(0).cast(MICROS))).as("o1"),
                        col("o6").minus(coalesce(col("l6"), lit(0).cast(MICROS))).as("o6"),
                        col("o24").minus(coalesce(col("l24"), lit(0).cast(MICROS))).as("o24"),
                        col("c").minus(coalesce(col("lc"), lit(0L))).as("c"));
    }

    /** The figures of a row as the ledger's sections would carry them. */
    static dev.custody.engine.velocity.Velocity velocity(Row r) {
        return new dev.custody.engine.velocity.Velocity(figures(r, "wallet"), figures(r, "workspace"), figures(r, "network"));
    }

    private static dev.custody.engine.velocity.Velocity.Figures figures(Row r, String scope) {
        return new dev.custody.engine.velocity.Velocity.Figures(usd(r, scope + "_o1"), usd(r, scope + "_o6"),
                usd(r, scope + "_o24"), r.getLong(r.fieldIndex(scope + "_c")));
    }

    private static java.math.BigDecimal usd(Row r, String field) {
        java.math.BigDecimal micros = r.getDecimal(r.fieldIndex(field));
        return new java.math.BigDecimal(micros.toBigIntegerExact(), 6);
    }
}
