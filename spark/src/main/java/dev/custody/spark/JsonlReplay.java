package dev.custody.spark;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.Decision;
import dev.custody.engine.replay.ActionStream;
import dev.custody.engine.replay.DecisionRecords;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.Reader;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;
import org.apache.hadoop.mapreduce.lib.output.TextOutputFormat;
import org.apache.spark.Partitioner;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.CollectionAccumulator;
import org.apache.spark.util.LongAccumulator;
import scala.Tuple2;

/**
 * The replay of JSONL streams to JSONL records in one pass over the input (issue 28): what {@link ReplayJob} runs
 * for {@code --policies} with JSONL in and out.
 *
 * <p>Each input split is read, decided and written by one task, in its order, to the part file of the same
 * number ({@code part-r-NNNNN}), so the part files in name order are the records in stream order without a sort.
 * A line is handed to the reader as the bytes Hadoop read ({@code ActionStream.parse(RawLine)}, the CLI's byte
 * path), and each record is written as UTF-8 bytes to a reused buffer: no {@code String} or {@code UTF8String}
 * per line. The summary's counts are accumulators of the writing (result) stage, which Spark applies once per
 * partition.
 *
 * <p>Line numbers: a split knows where its lines are in bytes, not which line of the file its first one is.
 * Records carry a line number only for malformed lines, so a task writes those of a split that does not start
 * its file with a placeholder ({@code -(10^15 + n)}, n its place in the split, never a real line number), and the
 * driver, which learns every split's line count from the job, rewrites the few part files that hold one. With
 * {@link CustodySpark.VelocityMode#DERIVE} the lines are read twice (the ledger operations, then the decisions),
 * and the figures, shuffled to the split of their line and sorted by position there, are merged with its lines.
 *
 * <p>Not thread-safe (one job at a time; a {@code main}'s helper).
 */
final class JsonlReplay {
    /** Where a placeholder line number starts: {@code -(PLACEHOLDER + n)}. */
    static final long PLACEHOLDER = 1_000_000_000_000_000L;
    private static final Pattern PLACED = Pattern.compile("([,{])\"line\":-1(\\d{15})([,}])");
    private static final JsonFactory JSON = new JsonFactory();

    /** A byte buffer whose bytes are read in place. */
    private static final class Buffer extends ByteArrayOutputStream {
        Buffer() {
            super(512);
        }

        byte[] bytes() {
            return buf;
        }
    }

    /** The counts of a finished replay. */
    record Counts(long total, long allow, long deny, long failClosed, long noMatch, long malformed, long compile) {}

    private final SparkSession spark;
    private final JavaSparkContext sc;
    private final List<Path> files;

    JsonlReplay(SparkSession spark, List<Path> files) {
        this.spark = spark;
        this.sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
        this.files = files;
    }

    /** The lines of every file, one partition per split, with the file's rank and whether a split starts its file. */
    private record Input(JavaRDD<Tuple2<LongWritable, Text>> lines, int[] fileOf, boolean[] firstOfFile) {}

    @SuppressWarnings("unchecked")
    private Input input() {
        Configuration conf = sc.hadoopConfiguration();
        List<JavaRDD<Tuple2<LongWritable, Text>>> parts = new ArrayList<>();
        List<Integer> fileOf = new ArrayList<>();
        for (int f = 0; f < files.size(); f++) {
            JavaPairRDD<LongWritable, Text> rdd = sc.newAPIHadoopFile(files.get(f).toString(), TextInputFormat.class,
                    LongWritable.class, Text.class, conf);
            for (int i = 0; i < rdd.getNumPartitions(); i++) {
                fileOf.add(f);
            }
            parts.add(rdd.rdd().toJavaRDD());
        }
        JavaRDD<Tuple2<LongWritable, Text>> all = parts.size() == 1 ? parts.get(0)
                : sc.union(parts.toArray(JavaRDD[]::new));
        int[] ranks = fileOf.stream().mapToInt(Integer::intValue).toArray();
        boolean[] first = new boolean[ranks.length];
        for (int p = 0; p < ranks.length; p++) {
            first[p] = p == 0 || ranks[p] != ranks[p - 1];
        }
        return new Input(all, ranks, first);
    }

    /** The number of input splits (partitions of the job's stages). */
    int splits() {
        return input().lines().getNumPartitions();
    }

    /** Replays the files to JSONL part files under {@code out}; returns the counts. */
    Counts replay(PolicySet policies, CustodySpark.Options options, String out) throws IOException {
        return replay(policies, options, false, out);
    }

    /**
     * Replays the files to JSONL part files under {@code out}; returns the counts.
     *
     * @param assumeSettled {@code custody replay --assume-settled}: every withdrawal that is not denied realizes its
     *     value (needs {@link CustodySpark.VelocityMode#DERIVE})
     */
    Counts replay(PolicySet policies, CustodySpark.Options options, boolean assumeSettled, String out)
            throws IOException {
        if (assumeSettled && options.velocity() != CustodySpark.VelocityMode.DERIVE) {
            throw new IllegalArgumentException("`--assume-settled` needs a velocity ledger; it cannot be used with "
                    + "`--velocity given`");
        }
        Map<String, String> groups = Map.of();
        for (int run = 0; ; run++) {
            CollectionAccumulator<List<String>> conflicts = sc.sc().collectionAccumulator("conflicts");
            Counts counts = replay(policies, options, assumeSettled, groups, conflicts, out);
            if (conflicts.value().isEmpty()) {
                return counts;
            }
            if (run > 0) {
                // not reached: the first run reports every wallet of several workspaces, and the second joins them all
                throw new IllegalStateException("wallets still span several groups after joining them: "
                        + conflicts.value().get(0));
            }
            // a wallet under several workspaces: join them into one group, and run again
            groups = KeyedLedger.join(groups, conflicts.value());
            Path dir = new Path(out);
            if (!dir.getFileSystem(sc.hadoopConfiguration()).delete(dir, true)) {
                throw new IOException("cannot remove `" + out + "` to run again");
            }
        }
    }

    private Counts replay(PolicySet policies, CustodySpark.Options options, boolean assumeSettled,
            Map<String, String> groups, CollectionAccumulator<List<String>> conflicts, String out) throws IOException {
        Input in = input();
        int n = in.lines().getNumPartitions();
        Broadcast<PolicySet> set = sc.broadcast(policies);
        int maxLine = options.maxLine();
        boolean explain = options.explain();
        // empty files only: no split, nothing to derive
        boolean derive = options.velocity() == CustodySpark.VelocityMode.DERIVE && n > 0;
        java.time.Instant now = policies.now();
        int[] fileOf = in.fileOf();
        boolean[] firstOfFile = in.firstOfFile();
        Tally tally = new Tally(spark);
        JavaRDD<Text> records;
        if (!derive) {
            records = in.lines().mapPartitions(it -> new Records(TaskContext.getPartitionId(), it, null,
                    set.value().engine(), fileOf, firstOfFile, maxLine, explain, false, now, tally));
        } else {
            int tasks = Math.max(1, Integer.parseInt(spark.conf().get("spark.sql.shuffle.partitions", Integer.toString(n))));
            Broadcast<Map<String, String>> grouping = sc.broadcast(new java.util.HashMap<>(groups));
            java.time.Duration lateness = CustodySpark.LATENESS;
            JavaPairRDD<SplitPos, KeyedLedger.Op> ops = in.lines().mapPartitionsToPair(it -> new KeyedLedger.SplitOps(
                    new SplitLines(TaskContext.getPartitionId(), it, fileOf, firstOfFile, maxLine), tasks,
                    grouping.value(), now, assumeSettled ? set.value().engine() : null));
            JavaRDD<Figures> figures = ops
                    .repartitionAndSortWithinPartitions(new SplitPartitioner(tasks), Comparator.<SplitPos>naturalOrder())
                    .mapPartitions(it -> new KeyedLedger.Figuring(it, n, lateness,
                            assumeSettled ? set.value().engine() : null, now, conflicts));
            JavaPairRDD<SplitPos, Figures> bySplit = figures
                    .mapToPair(f -> new Tuple2<>(new SplitPos(f.split, f.pos), f))
                    .repartitionAndSortWithinPartitions(new SplitPartitioner(n), Comparator.<SplitPos>naturalOrder());
            records = in.lines().zipPartitions(bySplit.values(), (lines, figs) -> new Records(
                    TaskContext.getPartitionId(), lines, figs, set.value().engine(), fileOf, firstOfFile, maxLine,
                    explain, true, now, tally));
        }
        records.mapToPair(t -> new Tuple2<>(NullWritable.get(), t))
                .saveAsNewAPIHadoopFile(out, NullWritable.class, Text.class, TextOutputFormat.class, sc.hadoopConfiguration());
        if (!conflicts.value().isEmpty()) {
            return null;
        }
        placeLines(out, tally, fileOf);
        return tally.counts();
    }

    /** Rewrites the part files that hold placeholder line numbers, now that every split's line count is known. */
    private void placeLines(String out, Tally tally, int[] fileOf) throws IOException {
        long[] lines = new long[fileOf.length];
        boolean[] placed = new boolean[fileOf.length];
        for (long[] s : tally.splits.value()) {
            lines[(int) s[0]] = s[1];
            placed[(int) s[0]] = s[2] > 0;
        }
        long before = 0;
        Path dir = new Path(out);
        FileSystem fs = dir.getFileSystem(sc.hadoopConfiguration());
        for (int p = 0; p < lines.length; p++) {
            if (p > 0 && fileOf[p] != fileOf[p - 1]) {
                before = 0;
            }
            if (placed[p]) {
                Path part = new Path(dir, String.format("part-r-%05d", p));
                Path fixed = new Path(dir, String.format(".part-r-%05d.lines", p));
                long base = before;
                try (BufferedReader r = new BufferedReader(new InputStreamReader(fs.open(part), StandardCharsets.UTF_8));
                        FSDataOutputStream w = fs.create(fixed, true)) {
                    for (String line; (line = r.readLine()) != null; ) {
                        Matcher m = PLACED.matcher(line);
                        StringBuilder b = new StringBuilder(line.length());
                        while (m.find()) {
                            m.appendReplacement(b, m.group(1) + "\"line\":" + (base + Long.parseLong(m.group(2)))
                                    + m.group(3));
                        }
                        m.appendTail(b);
                        b.append('\n');
                        w.write(b.toString().getBytes(StandardCharsets.UTF_8));
                    }
                }
                if (!fs.delete(part, false) || !fs.rename(fixed, part)) {
                    throw new IOException("cannot replace `" + part + "`");
                }
            }
            before += lines[p];
        }
    }

    /** The job's accumulators: the summary's counts, and per split {index, lines, placeholders}. */
    static final class Tally implements Serializable {
        private static final long serialVersionUID = 1L;
        final LongAccumulator total;
        final LongAccumulator allow;
        final LongAccumulator deny;
        final LongAccumulator failClosed;
        final LongAccumulator noMatch;
        final LongAccumulator malformed;
        final LongAccumulator compile;
        final CollectionAccumulator<long[]> splits;

        Tally(SparkSession spark) {
            var c = spark.sparkContext();
            total = c.longAccumulator("decisions");
            allow = c.longAccumulator("allow");
            deny = c.longAccumulator("deny");
            failClosed = c.longAccumulator("fail_closed");
            noMatch = c.longAccumulator("no_match");
            malformed = c.longAccumulator("malformed");
            compile = c.longAccumulator("compile");
            splits = c.collectionAccumulator("splits");
        }

        Counts counts() {
            return new Counts(total.value(), allow.value(), deny.value(), failClosed.value(), noMatch.value(),
                    malformed.value(), compile.value());
        }
    }

    /** One line of a split: its position in the stream, its number (or placeholder) and its bytes. */
    static final class SplitLines {
        final int split;
        final Iterator<Tuple2<LongWritable, Text>> lines;
        final long posBase;
        final boolean firstOfFile;
        final int maxLine;
        final ActionStream reader;
        long n;
        long pos;
        long number;
        byte[] bytes;
        int offset;
        int length;

        SplitLines(int split, Iterator<Tuple2<LongWritable, Text>> lines, int[] fileOf, boolean[] firstOfFile, int maxLine) {
            this.split = split;
            this.lines = lines;
            this.posBase = (long) fileOf[split] << 40;
            this.firstOfFile = firstOfFile[split];
            this.maxLine = maxLine;
            this.reader = new ActionStream(Reader.nullReader(), maxLine);
        }

        /** Moves to the next line that is not blank; false at the end of the split. */
        boolean advance() {
            while (lines.hasNext()) {
                Tuple2<LongWritable, Text> t = lines.next();
                n++;
                Text text = t._2();
                bytes = text.getBytes();
                offset = 0;
                length = text.getLength();
                long at = t._1().get();
                if (at == 0 && length >= 3 && bytes[0] == (byte) 0xEF && bytes[1] == (byte) 0xBB && bytes[2] == (byte) 0xBF) {
                    offset = 3;
                    length -= 3;
                }
                if (blank(bytes, offset, length)) {
                    continue;
                }
                pos = posBase + at;
                number = firstOfFile ? n : -(PLACEHOLDER + n);
                return true;
            }
            return false;
        }

        /** The line as the replay reads it. */
        ActionStream.Line parse() {
            if (length > maxLine) {
                String text = dev.custody.engine.check.ActionReader.decode(bytes, offset, length);
                if (text.length() > maxLine) {
                    return reader.parse(new ActionStream.RawLine(number, null, text.length()));
                }
            }
            return reader.parse(new ActionStream.RawLine(number, bytes, offset, length, length));
        }

        private static boolean blank(byte[] b, int from, int length) {
            for (int i = from; i < from + length; i++) {
                int c = b[i] & 0xFF;
                if (c >= 0x80) {
                    return dev.custody.engine.check.ActionReader.decode(b, from, length).isBlank();
                }
                if (c != ' ' && (c < 0x09 || c > 0x0D) && (c < 0x1C || c > 0x1F)) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * A query's figures without their schema: what the shuffle to the line's split carries. The ledger's
     * refusal ({@code refusedM}, the watermark that refused it), or its figures, or neither (a query the window
     * functions did not answer).
     */
    static final class Figures implements java.io.Externalizable {
        private static final long serialVersionUID = 1L;
        int split;
        long pos;
        Long refusedM;
        dev.custody.engine.velocity.Velocity velocity;

        public Figures() {}

        private Figures(int split, long pos, Long refusedM, dev.custody.engine.velocity.Velocity velocity) {
            this.split = split;
            this.pos = pos;
            this.refusedM = refusedM;
            this.velocity = velocity;
        }

        /** A query refused by the ledger whose watermark was {@code watermark}. */
        static Figures refused(int split, long pos, long watermark) {
            return new Figures(split, pos, watermark, null);
        }

        /** A query answered with the ledger's figures. */
        static Figures of(int split, long pos, dev.custody.engine.velocity.Velocity velocity) {
            return new Figures(split, pos, null, velocity);
        }

        /** The figures of a row of {@link VelocityWindows#figures} (micro-dollars), split 0 when it has none. */
        static Figures of(Row r) {
            long pos = r.getLong(r.fieldIndex("pos"));
            int refused = r.fieldIndex("refused_m");
            if (!r.isNullAt(refused)) {
                return new Figures(0, pos, r.getLong(refused), null);
            }
            if (r.isNullAt(r.fieldIndex("wallet_o1"))) {
                return new Figures(0, pos, null, null);
            }
            dev.custody.engine.velocity.Velocity.Figures[] f = new dev.custody.engine.velocity.Velocity.Figures[3];
            String[] scopes = {"wallet", "workspace", "network"};
            for (int s = 0; s < 3; s++) {
                f[s] = new dev.custody.engine.velocity.Velocity.Figures(dollars(r.getDecimal(r.fieldIndex(scopes[s] + "_o1"))),
                        dollars(r.getDecimal(r.fieldIndex(scopes[s] + "_o6"))),
                        dollars(r.getDecimal(r.fieldIndex(scopes[s] + "_o24"))), r.getLong(r.fieldIndex(scopes[s] + "_c")));
            }
            return new Figures(0, pos, null, new dev.custody.engine.velocity.Velocity(f[0], f[1], f[2]));
        }

        dev.custody.engine.velocity.Velocity velocity() {
            return velocity;
        }

        private static java.math.BigDecimal dollars(java.math.BigDecimal micros) {
            return new java.math.BigDecimal(micros.toBigIntegerExact(), 6);
        }

        @Override
        public void writeExternal(java.io.ObjectOutput out) throws IOException {
            out.writeInt(split);
            out.writeLong(pos);
            out.writeByte(refusedM != null ? 1 : velocity != null ? 2 : 0);
            if (refusedM != null) {
                out.writeLong(refusedM);
            } else if (velocity != null) {
                for (var f : List.of(velocity.wallet(), velocity.workspace(), velocity.network())) {
                    KeyedLedger.writeDecimal(out, f.outflow1h());
                    KeyedLedger.writeDecimal(out, f.outflow6h());
                    KeyedLedger.writeDecimal(out, f.outflow24h());
                    out.writeLong(f.withdrawalCount1h());
                }
            }
        }

        @Override
        public void readExternal(java.io.ObjectInput in) throws IOException {
            split = in.readInt();
            pos = in.readLong();
            int kind = in.readByte();
            if (kind == 1) {
                refusedM = in.readLong();
            } else if (kind == 2) {
                var f = new dev.custody.engine.velocity.Velocity.Figures[3];
                for (int s = 0; s < 3; s++) {
                    f[s] = new dev.custody.engine.velocity.Velocity.Figures(KeyedLedger.readDecimal(in),
                            KeyedLedger.readDecimal(in), KeyedLedger.readDecimal(in), in.readLong());
                }
                velocity = new dev.custody.engine.velocity.Velocity(f[0], f[1], f[2]);
            }
        }
    }

    /**
     * The key of a query's figures: its line's split, then its position (for the group tasks' shuffle: the task, then
     * the position). A class, not a record, so that Kryo can build it ({@link KryoClasses}).
     */
    static final class SplitPos implements Comparable<SplitPos>, java.io.Externalizable {
        private static final long serialVersionUID = 1L;
        private int split;
        private long pos;

        public SplitPos() {}

        SplitPos(int split, long pos) {
            this.split = split;
            this.pos = pos;
        }

        int split() {
            return split;
        }

        long pos() {
            return pos;
        }

        @Override
        public int compareTo(SplitPos o) {
            return split != o.split ? Integer.compare(split, o.split) : Long.compare(pos, o.pos);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof SplitPos p && p.split == split && p.pos == pos;
        }

        @Override
        public int hashCode() {
            return 31 * split + Long.hashCode(pos);
        }

        @Override
        public void writeExternal(java.io.ObjectOutput out) throws IOException {
            out.writeInt(split);
            out.writeLong(pos);
        }

        @Override
        public void readExternal(java.io.ObjectInput in) throws IOException {
            split = in.readInt();
            pos = in.readLong();
        }
    }

    /** Figures go to the partition of their line's split. */
    static final class SplitPartitioner extends Partitioner {
        private static final long serialVersionUID = 1L;
        private final int n;

        SplitPartitioner(int n) {
            this.n = n;
        }

        @Override
        public int numPartitions() {
            return n;
        }

        @Override
        public int getPartition(Object key) {
            return ((SplitPos) key).split();
        }
    }

    /** A split's records: its lines decided in order, each record the bytes {@code custody replay} writes for it. */
    private static final class Records implements Iterator<Text> {
        private final SplitLines in;
        private final Iterator<Figures> figures;
        private final PolicyEngine engine;
        private final boolean explain;
        private final boolean derive;
        private final java.time.Instant now;
        private final Tally tally;
        private final Buffer buffer = new Buffer();
        private final Text text = new Text();
        private Figures figure;
        private boolean ready;
        private boolean done;
        private long total;
        private long allow;
        private long deny;
        private long failClosed;
        private long noMatch;
        private long malformed;
        private long compile;
        private long placed;

        Records(int split, Iterator<Tuple2<LongWritable, Text>> lines, Iterator<Figures> figures, PolicyEngine engine,
                int[] fileOf, boolean[] firstOfFile, int maxLine, boolean explain, boolean derive, java.time.Instant now,
                Tally tally) {
            this.in = new SplitLines(split, lines, fileOf, firstOfFile, maxLine);
            this.figures = figures;
            this.engine = engine;
            this.explain = explain;
            this.derive = derive;
            this.now = now;
            this.tally = tally;
        }

        @Override
        public boolean hasNext() {
            while (!ready && !done) {
                if (!in.advance()) {
                    done = true;
                    tally.total.add(total);
                    tally.allow.add(allow);
                    tally.deny.add(deny);
                    tally.failClosed.add(failClosed);
                    tally.noMatch.add(noMatch);
                    tally.malformed.add(malformed);
                    tally.compile.add(compile);
                    tally.splits.add(new long[] {in.split, in.n, placed});
                    return false;
                }
                ready = decide(in.parse());
            }
            return ready;
        }

        @Override
        public Text next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            ready = false;
            return text;
        }

        /** Decides one line into {@link #text}; false when it gives no record (a settlement the ledger takes). */
        private boolean decide(ActionStream.Line line) {
            buffer.reset();
            try (JsonGenerator g = JSON.createGenerator((OutputStream) buffer, JsonEncoding.UTF8)) {
                if (line instanceof ActionStream.MalformedLine m) {
                    DecisionRecords.malformed(g, m, explain);
                    count(m);
                } else if (line instanceof ActionStream.SettlementLine s) {
                    if (!derive) {
                        return false;
                    }
                    var rejected = StreamLines.settlementRejected(s);
                    if (rejected == null) {
                        return false;
                    }
                    ActionStream.MalformedLine m = StreamLines.malformed(s, rejected);
                    DecisionRecords.malformed(g, m, explain);
                    count(m);
                } else {
                    ActionStream.ActionLine a = (ActionStream.ActionLine) line;
                    Decision d = derive ? CustodySpark.derivedDecision(a, figure(in.pos), engine, now, explain)
                            : engine.evaluate(a.action(), explain);
                    DecisionRecords.write(g, d, explain);
                    count(d);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            text.set(buffer.bytes(), 0, buffer.size());
            return true;
        }

        /** The figures of the query at this position, or null when it has none. */
        private Figures figure(long pos) {
            while ((figure == null || figure.pos < pos) && figures.hasNext()) {
                figure = figures.next();
            }
            return figure != null && figure.pos == pos ? figure : null;
        }

        private void count(ActionStream.MalformedLine m) {
            total++;
            deny++;
            failClosed++;
            malformed++;
            if (m.number() < 0) {
                placed++;
            }
        }

        private void count(Decision d) {
            total++;
            switch (d.outcome()) {
                case ALLOW -> allow++;
                case NO_MATCH -> noMatch++;
                default -> deny++;
            }
            if (d.failClosed()) {
                failClosed++;
            }
            String failure = d.failure() == null ? null : d.failure().wireName();
            if ("malformed_action".equals(failure)) {
                // as the summary has always counted them: lines and withdrawals whose velocity the ledger refuses
                malformed++;
            } else if ("compile".equals(failure) || "load".equals(failure)) {
                compile++;
            }
        }
    }
}
