package dev.custody.spark;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Reads an action stream into the rows {@link CustodySpark#replay} takes: {@code pos} (the stream order, unique),
 * {@code line} (the 1-based line number in its file, as {@code custody replay} numbers it) and {@code value} (the
 * line's text).
 *
 * <p>The path is a file, a directory (every file under it, except names starting with {@code _} or {@code .}) or
 * a glob. Several files are one stream: files in the lexicographic order of their paths, lines in file order
 * (line numbers restart in each file). JSONL is read as {@code custody replay} reads it: lines end at {@code \n},
 * {@code \r\n} or {@code \r}, a byte-order mark before a file's first line is dropped, blank lines are skipped,
 * and bytes that are not UTF-8 are read as U+0000 so that their line becomes one malformed record. Parquet files
 * (all files ending in {@code .parquet}) have the fields of an action as columns (sections as structs); each row
 * is turned into the JSON object of its non-null columns and read by the same reader, its line being its row
 * number in the file.
 *
 * <p>Reading JSONL with line numbers costs one extra pass that only counts lines per split (split sizes are not
 * known in lines before that). Stateless and thread-safe.
 */
public final class ActionInput {
    /** The schema of the rows: {@code pos}, {@code line}, {@code value}. */
    public static final StructType SCHEMA = new StructType()
            .add("pos", DataTypes.LongType, false)
            .add("line", DataTypes.LongType, false)
            .add("value", DataTypes.StringType, false);

    private ActionInput() {}

    /** The files a path names, sorted by path. */
    static List<Path> files(Configuration conf, String path) throws IOException {
        Path p = new Path(path);
        FileSystem fs = p.getFileSystem(conf);
        FileStatus[] matches = fs.globStatus(p);
        if (matches == null || matches.length == 0) {
            throw new NoSuchFileException(path);
        }
        List<Path> out = new ArrayList<>();
        for (FileStatus m : matches) {
            if (m.isDirectory()) {
                RemoteIterator<LocatedFileStatus> it = fs.listFiles(m.getPath(), true);
                while (it.hasNext()) {
                    LocatedFileStatus f = it.next();
                    if (!hidden(m.getPath(), f.getPath())) {
                        out.add(f.getPath());
                    }
                }
            } else {
                out.add(m.getPath());
            }
        }
        out.sort((a, b) -> a.toString().compareTo(b.toString()));
        return out;
    }

    private static boolean hidden(Path root, Path file) {
        for (Path q = file; q != null && !q.equals(root); q = q.getParent()) {
            if (q.getName().startsWith("_") || q.getName().startsWith(".")) {
                return true;
            }
        }
        return false;
    }

    /** Whether these files are Parquet (every one ends in {@code .parquet}); mixed formats are refused. */
    static boolean parquet(List<Path> files, String path) {
        long n = files.stream().filter(f -> f.getName().endsWith(".parquet")).count();
        if (n > 0 && n < files.size()) {
            throw new IllegalArgumentException("`" + path + "` mixes Parquet and other files; give one format");
        }
        return n > 0 && n == files.size();
    }

    /**
     * Reads the stream at a path.
     *
     * @throws NoSuchFileException when nothing matches the path
     * @throws IOException when the files cannot be listed
     * @throws IllegalArgumentException when the path mixes Parquet and other files
     */
    public static Dataset<Row> read(SparkSession spark, String path) throws IOException {
        Configuration conf = spark.sparkContext().hadoopConfiguration();
        List<Path> files = files(conf, path);
        if (files.isEmpty()) {
            return spark.createDataFrame(List.of(), SCHEMA);
        }
        return parquet(files, path) ? parquet(spark, files) : jsonl(spark, conf, files);
    }

    private static Dataset<Row> jsonl(SparkSession spark, Configuration conf, List<Path> files) {
        JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
        List<JavaRDD<byte[]>> parts = new ArrayList<>();
        List<Integer> fileOfPartition = new ArrayList<>();
        for (int f = 0; f < files.size(); f++) {
            JavaPairRDD<LongWritable, Text> rdd = sc.newAPIHadoopFile(files.get(f).toString(), TextInputFormat.class,
                    LongWritable.class, Text.class, conf);
            for (int i = 0; i < rdd.getNumPartitions(); i++) {
                fileOfPartition.add(f);
            }
            parts.add(rdd.map(t -> t._2().copyBytes()));
        }
        JavaRDD<byte[]> all = parts.size() == 1 ? parts.get(0) : sc.union(parts.toArray(JavaRDD[]::new));
        // the extra pass: lines per split, so that each line gets its number in its file and its place in the stream
        List<Long> counts = all.mapPartitions(it -> {
            long n = 0;
            for (; it.hasNext(); it.next()) {
                n++;
            }
            return List.of(n).iterator();
        }).collect();
        int n = counts.size();
        long[] start = new long[n];
        long[] firstLine = new long[n];
        boolean[] firstOfFile = new boolean[n];
        long pos = 0;
        long line = 0;
        for (int p = 0; p < n; p++) {
            if (p == 0 || !fileOfPartition.get(p).equals(fileOfPartition.get(p - 1))) {
                line = 0;
                firstOfFile[p] = true;
            }
            start[p] = pos;
            firstLine[p] = line + 1;
            pos += counts.get(p);
            line += counts.get(p);
        }
        JavaRDD<Row> rows = all.mapPartitionsWithIndex((p, it) -> new LineRows(it, start[p], firstLine[p], firstOfFile[p]),
                true);
        return spark.createDataFrame(rows, SCHEMA);
    }

    /** Numbers a split's lines, decodes them and drops blank ones (and a file's leading byte-order mark). */
    private static final class LineRows implements Iterator<Row> {
        private final Iterator<byte[]> lines;
        private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE)
                .replaceWith("\0");
        private long pos;
        private long line;
        private boolean first;
        private Row next;

        LineRows(Iterator<byte[]> lines, long pos, long line, boolean firstOfFile) {
            this.lines = lines;
            this.pos = pos;
            this.line = line;
            this.first = firstOfFile;
        }

        @Override
        public boolean hasNext() {
            while (next == null && lines.hasNext()) {
                String text = decode(lines.next());
                if (first && !text.isEmpty() && text.charAt(0) == '\uFEFF') {
                    text = text.substring(1);
                }
                first = false;
                if (!text.isBlank()) {
                    next = RowFactory.create(pos, line, text);
                }
                pos++;
                line++;
            }
            return next != null;
        }

        @Override
        public Row next() {
            if (!hasNext()) {
                throw new java.util.NoSuchElementException();
            }
            Row r = next;
            next = null;
            return r;
        }

        private String decode(byte[] bytes) {
            try {
                CharBuffer c = utf8.reset().decode(ByteBuffer.wrap(bytes));
                return c.toString();
            } catch (CharacterCodingException e) {
                // cannot happen with REPLACE; keep the line as one malformed record all the same
                return "\0";
            }
        }
    }

    private static Dataset<Row> parquet(SparkSession spark, List<Path> files) {
        // a row's place: its file's rank in path order, then its row number in the file
        Column paths = functions.array(files.stream().map(f -> functions.lit(
                f.toUri().toString().replaceFirst("^file:///", "file:/"))).toArray(Column[]::new));
        Dataset<Row> raw = spark.read().parquet(files.stream().map(Path::toString).toArray(String[]::new));
        Column[] data = java.util.Arrays.stream(raw.columns()).map(functions::col).toArray(Column[]::new);
        // a local file is file:///x or file:/x depending on who names it: compare the short form
        Column file = functions.array_position(paths,
                functions.regexp_replace(functions.col("_metadata.file_path"), "^file:///", "file:/"));
        return raw.select(file.minus(1).multiply(1L << 40).plus(functions.col("_metadata.row_index")).as("pos"),
                functions.col("_metadata.row_index").plus(1L).as("line"),
                functions.to_json(functions.struct(data), java.util.Map.of(
                        "timestampFormat", "yyyy-MM-dd'T'HH:mm:ss[.SSSSSS]XXX", "ignoreNullFields", "true")).as("value"));
    }
}
