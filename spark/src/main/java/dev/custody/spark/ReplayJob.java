package dev.custody.spark;

import dev.custody.engine.PolicyEngine;
import static org.apache.spark.sql.functions.col;

import dev.custody.engine.files.Finding;
import dev.custody.engine.files.PolicyDocument;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The Spark job of docs/design.md §7: replays a stream against policies (or diffs two policy sets over it) and
 * writes one record per action line.
 *
 * <pre>
 * java -cp 'spark/target/custody-spark.jar:spark/target/lib/*' dev.custody.spark.ReplayJob --master 'local[2]' \
 *     --policies examples/policies --actions examples/actions/stream.jsonl --out /tmp/decisions
 * spark-submit --class dev.custody.spark.ReplayJob spark/target/custody-spark.jar --policies … --actions … --out …
 * </pre>
 *
 * Exit codes as {@code custody}'s (docs/design.md §5): 0 done; 1 malformed lines, policies that do not load or
 * compile, or (with {@code --fail-on-change}) changes; 2 a usage error; 3 an I/O error (a missing path, an existing
 * output). Errors are one line on stderr. Not thread-safe (a {@code main}).
 */
public final class ReplayJob {
    static final int OK = 0;
    static final int INPUT = 1;
    static final int USAGE = 2;
    static final int IO = 3;

    private static final String USAGE_TEXT = """
            usage: ReplayJob (--policies PATH... | --base PATH... --head PATH...) --actions PATH --out DIR
                             [--out-format jsonl|parquet] [--velocity derive|given] [--master URL]
                             [--now INSTANT] [--time-budget DURATION] [--explain] [--max-line-length N]
                             [--cost-limit UNITS] [--assume-settled] [--fail-on-change]
              --actions PATH   a file, directory or glob of JSONL (or Parquet) action streams
              --out DIR        where the records go (must not exist): JSONL text or Parquet part files
              --velocity       derive (default): absent wallet/workspace sections from the stream; given: as given
              --master URL     Spark master (e.g. local[2]); spark-submit sets it otherwise
              --now INSTANT    instant of actions without `at` (default: the job's start)
              --time-budget D  CPU-time backstop of one evaluation (default: 1s)
              --cost-limit N   cost limit of one evaluation, in units (default: 400000); past it: DENY, cost_budget
              --assume-settled every withdrawal that is not denied realizes its value_usd for the later ones
                               (with --velocity derive, JSONL in and out, not with --base/--head)
            """;

    /** The parsed command line. */
    record Args(List<Path> policies, List<Path> base, List<Path> head, String actions, String out, boolean parquet,
            CustodySpark.VelocityMode velocity, String master, Instant now, Duration timeBudget, long costLimit,
            boolean explain, int maxLine, boolean failOnChange, boolean assumeSettled) {
        boolean diff() {
            return !base.isEmpty();
        }
    }

    /** A command-line problem: one line, exit 2. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    private ReplayJob() {}

    public static void main(String[] args) {
        int code = run(args, System.out, System.err);
        if (code != OK) {
            System.exit(code);
        }
    }

    /** Runs the job; returns the exit code. */
    static int run(String[] argv, PrintStream out, PrintStream err) {
        Args args;
        try {
            args = parse(argv);
        } catch (UsageException e) {
            err.println("error: " + e.getMessage());
            err.println("(run with --help for the options)");
            return USAGE;
        }
        if (args == null) {
            out.print(USAGE_TEXT);
            return OK;
        }
        try {
            return execute(args, err);
        } catch (NoSuchFileException e) {
            err.println("error: `" + e.getFile() + "` does not exist");
            return IO;
        } catch (java.nio.file.FileAlreadyExistsException e) {
            err.println("error: `" + e.getFile() + "` already exists; give --out a new directory");
            return IO;
        } catch (FileSystemException e) {
            err.println("error: cannot read `" + e.getFile() + "`" + (e.getReason() == null ? "" : ": " + e.getReason()));
            return IO;
        } catch (IOException e) {
            err.println("error: i/o error: " + firstLine(e.getMessage()));
            return IO;
        } catch (IllegalArgumentException e) {
            err.println("error: " + firstLine(e.getMessage()));
            return USAGE;
        } catch (RuntimeException e) {
            err.println("error: internal error: " + e.getClass().getSimpleName() + ": " + firstLine(e.getMessage()));
            return IO;
        }
    }

    static Args parse(String[] argv) throws UsageException {
        List<Path> policies = new ArrayList<>();
        List<Path> base = new ArrayList<>();
        List<Path> head = new ArrayList<>();
        String actions = null;
        String out = null;
        String outFormat = "jsonl";
        String velocity = "derive";
        String master = null;
        Instant now = null;
        Duration budget = PolicyEngine.DEFAULT_TIME_BUDGET;
        long costLimit = dev.custody.engine.compile.CostMeter.DEFAULT_LIMIT;
        boolean explain = false;
        boolean failOnChange = false;
        boolean assumeSettled = false;
        int maxLine = dev.custody.engine.replay.ActionStream.DEFAULT_MAX_LINE;
        List<Path> target = null;
        for (int i = 0; i < argv.length; i++) {
            String a = argv[i];
            if (!a.startsWith("--") && target != null) {
                target.add(Path.of(a));
                continue;
            }
            target = null;
            switch (a) {
                case "--help", "-h" -> {
                    return null;
                }
                case "--policies" -> target = add(policies, argv, ++i, a);
                case "--base" -> target = add(base, argv, ++i, a);
                case "--head" -> target = add(head, argv, ++i, a);
                case "--actions" -> actions = value(argv, ++i, a);
                case "--out" -> out = value(argv, ++i, a);
                case "--out-format" -> outFormat = choice(value(argv, ++i, a), a, "jsonl", "parquet");
                case "--velocity" -> velocity = choice(value(argv, ++i, a), a, "derive", "given");
                case "--master" -> master = value(argv, ++i, a);
                case "--explain" -> explain = true;
                case "--fail-on-change" -> failOnChange = true;
                case "--now" -> {
                    String v = value(argv, ++i, a);
                    try {
                        now = Instant.parse(v);
                    } catch (DateTimeParseException e) {
                        throw new UsageException("`" + v + "` is not an ISO-8601 instant for --now (e.g. 2026-11-02T14:05:00Z)");
                    }
                }
                case "--time-budget" -> budget = duration(value(argv, ++i, a));
                case "--cost-limit" -> {
                    // as custody replay reads it: a positive whole number, `_` allowed between digits
                    String v = value(argv, ++i, a);
                    try {
                        costLimit = Long.parseLong(v.trim().replace("_", ""));
                    } catch (NumberFormatException e) {
                        throw new UsageException("`" + v + "` is not a whole number of cost units such as `1000000`");
                    }
                    if (costLimit < 1) {
                        throw new UsageException("cost limit `" + v + "` must be positive");
                    }
                }
                case "--max-line-length" -> {
                    String v = value(argv, ++i, a);
                    try {
                        maxLine = Integer.parseInt(v);
                    } catch (NumberFormatException e) {
                        maxLine = 0;
                    }
                    if (maxLine < 1) {
                        throw new UsageException("`" + v + "` is not a positive number for --max-line-length");
                    }
                }
                case "--assume-settled" -> assumeSettled = true;
                default -> throw new UsageException(a.startsWith("-") ? "unknown option `" + a + "`"
                        : "unexpected argument `" + a + "`");
            }
        }
        if (actions == null) {
            throw new UsageException("missing --actions PATH");
        }
        if (out == null) {
            throw new UsageException("missing --out DIR");
        }
        if (policies.isEmpty() == base.isEmpty() || base.isEmpty() != head.isEmpty()) {
            throw new UsageException("give --policies PATH..., or --base PATH... and --head PATH... for a diff");
        }
        if (failOnChange && base.isEmpty()) {
            throw new UsageException("--fail-on-change needs --base and --head");
        }
        if (assumeSettled && velocity.equals("given")) {
            throw new UsageException("`--assume-settled` needs a velocity ledger; it cannot be used with `--velocity given`");
        }
        if (assumeSettled && !base.isEmpty()) {
            throw new UsageException("--assume-settled is not offered with --base and --head: give it to `custody diff`");
        }
        if (assumeSettled && outFormat.equals("parquet")) {
            throw new UsageException("--assume-settled needs JSONL records: not with --out-format parquet");
        }
        return new Args(policies, base, head, actions, out, outFormat.equals("parquet"),
                velocity.equals("given") ? CustodySpark.VelocityMode.GIVEN : CustodySpark.VelocityMode.DERIVE, master,
                now, budget, costLimit, explain, maxLine, failOnChange, assumeSettled);
    }

    private static List<Path> add(List<Path> list, String[] argv, int i, String option) throws UsageException {
        list.add(Path.of(value(argv, i, option)));
        return list;
    }

    private static String value(String[] argv, int i, String option) throws UsageException {
        if (i >= argv.length || argv[i].startsWith("--")) {
            throw new UsageException(option + " needs a value");
        }
        return argv[i];
    }

    private static String choice(String v, String option, String... allowed) throws UsageException {
        for (String s : allowed) {
            if (s.equals(v)) {
                return v;
            }
        }
        throw new UsageException("`" + v + "` is not one of " + String.join(", ", allowed) + " for " + option);
    }

    private static Duration duration(String v) throws UsageException {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)(ms|s)").matcher(v);
        if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
            throw new UsageException("`" + v + "` is not a duration for --time-budget (e.g. 100ms, 2s)");
        }
        long n = Long.parseLong(m.group(1));
        return m.group(2).equals("ms") ? Duration.ofMillis(n) : Duration.ofSeconds(n);
    }

    private static int execute(Args args, PrintStream err) throws IOException {
        Instant now = args.now() == null ? Instant.now() : args.now();
        PolicySet policies = args.diff() ? null
                : PolicySet.read(args.policies(), now, args.timeBudget()).withCostLimit(args.costLimit());
        PolicySet base = args.diff() ? PolicySet.read(args.base(), now, args.timeBudget()).withCostLimit(args.costLimit())
                : null;
        PolicySet head = args.diff() ? PolicySet.read(args.head(), now, args.timeBudget()).withCostLimit(args.costLimit())
                : null;
        boolean loadFailed = false;
        for (PolicySet s : args.diff() ? List.of(base, head) : List.of(policies)) {
            String label = s == policies ? "policies" : s == base ? "base policies" : "head policies";
            loadFailed |= reportReadErrors(s, label, err);
        }
        // a missing stream fails before Spark starts (the files are listed again by the job, on the same file system)
        ActionInput.files(new org.apache.hadoop.conf.Configuration(), args.actions());
        if (args.master() == null && System.getProperty("spark.master") == null) {
            throw new IllegalArgumentException("no Spark master: give --master URL (e.g. local[2]) or run through spark-submit");
        }
        SparkSession.Builder builder = SparkSession.builder().appName("custody-replay");
        if (System.getProperty("spark.serializer") == null) {
            // the shuffled classes in their compact forms through Kryo (KryoClasses), unless the cluster names a serializer
            builder.config("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
                    .config("spark.kryo.registrator", KryoClasses.class.getName());
        }
        if (args.master() != null) {
            builder.master(args.master());
            if (args.master().startsWith("local")) {
                builder.config("spark.ui.enabled", "false");
            }
        }
        boolean own = SparkSession.getActiveSession().isEmpty() && SparkSession.getDefaultSession().isEmpty();
        SparkSession spark = builder.getOrCreate();
        TaskCpu cpu = Boolean.getBoolean("custody.metrics") ? new TaskCpu() : null;
        if (cpu != null) {
            spark.sparkContext().addSparkListener(cpu);
        }
        try {
            if (own) {
                spark.sparkContext().setLogLevel("WARN");
            }
            org.apache.hadoop.fs.Path outPath = new org.apache.hadoop.fs.Path(args.out());
            FileSystem fs = outPath.getFileSystem(spark.sparkContext().hadoopConfiguration());
            if (fs.exists(outPath)) {
                throw new java.nio.file.FileAlreadyExistsException(args.out());
            }
            CustodySpark.Options options = new CustodySpark.Options(args.velocity(), args.explain(), args.maxLine());
            List<org.apache.hadoop.fs.Path> files = ActionInput.files(spark.sparkContext().hadoopConfiguration(),
                    args.actions());
            boolean jsonl = !args.diff() && !args.parquet() && !files.isEmpty() && !ActionInput.parquet(files, args.actions());
            if (args.assumeSettled() && !jsonl && !files.isEmpty()) {
                throw new IllegalArgumentException("--assume-settled needs a JSONL stream: not with Parquet input");
            }
            if (jsonl) {
                // JSONL in and out: one pass over the input, in split order, no sort (JsonlReplay)
                JsonlReplay job = new JsonlReplay(spark, files);
                shufflePartitions(spark, job.splits());
                JsonlReplay.Counts counts = job.replay(policies, options, args.assumeSettled(), args.out());
                if (cpu != null) {
                    cpu.report(spark, counts.total(), err);
                }
                return summary(counts, args, loadFailed, err);
            }
            Dataset<Row> actions = ActionInput.read(spark, args.actions());
            shufflePartitions(spark, actions.rdd().getNumPartitions());
            Dataset<Row> records = args.diff() ? CustodySpark.diff(spark, actions, base, head, options)
                    : CustodySpark.replay(spark, actions, policies, options);
            if (args.parquet()) {
                records.drop("record").write().parquet(args.out());
            } else {
                records.select(col("record")).write().text(args.out());
            }
            return summary(spark, args, loadFailed, err);
        } finally {
            if (own) {
                spark.stop();
            }
        }
    }

    /** Prints each document's read errors, as {@code custody replay} does; true when there were any. */
    private static boolean reportReadErrors(PolicySet set, String label, PrintStream err) {
        List<Finding> errors = new ArrayList<>();
        for (PolicyDocument d : set.documents()) {
            errors.addAll(d.readErrors());
        }
        if (errors.isEmpty()) {
            return false;
        }
        err.println("error: the " + label + " could not be loaded; every action is denied (fail_closed):");
        errors.forEach(f -> err.println("  " + f.oneLine()));
        return true;
    }

    /**
     * The executors' CPU time, summed over tasks from Spark's task metrics: with {@code -Dcustody.metrics=true},
     * one more line on stderr (for the benchmarks; the job's other output is unchanged).
     */
    static final class TaskCpu extends org.apache.spark.scheduler.SparkListener {
        private final java.util.concurrent.atomic.LongAdder cpuNanos = new java.util.concurrent.atomic.LongAdder();
        private final java.util.concurrent.atomic.LongAdder runMillis = new java.util.concurrent.atomic.LongAdder();
        private final java.util.concurrent.atomic.LongAdder tasks = new java.util.concurrent.atomic.LongAdder();

        @Override
        public void onTaskEnd(org.apache.spark.scheduler.SparkListenerTaskEnd end) {
            if (end.taskMetrics() != null) {
                cpuNanos.add(end.taskMetrics().executorCpuTime());
                runMillis.add(end.taskMetrics().executorRunTime());
                tasks.increment();
            }
        }

        void report(SparkSession spark, long decisions, PrintStream err) {
            try {
                spark.sparkContext().listenerBus().waitUntilEmpty();
            } catch (java.util.concurrent.TimeoutException e) {
                err.println("(executor CPU: the listener bus did not drain; the figure is partial)");
            }
            err.println(String.format(Locale.ROOT, "executor CPU: %.2f s in %d tasks (%.2f µs a decision); task run time "
                    + "%.2f s", cpuNanos.sum() / 1e9, tasks.sum(), cpuNanos.sum() / 1e3 / Math.max(1, decisions),
                    runMillis.sum() / 1e3));
        }
    }

    /**
     * Shuffle partitions as many as input splits (at least 2), unless the configuration names a number: the
     * shuffled rows (ledger operations, figures) are smaller than the lines, and Spark's default of 200 is a task
     * per partition even for a small stream.
     */
    private static void shufflePartitions(SparkSession spark, int splits) {
        if (!spark.sparkContext().getConf().contains("spark.sql.shuffle.partitions")) {
            spark.conf().set("spark.sql.shuffle.partitions", Integer.toString(Math.max(2, splits)));
        }
    }

    /** The summary line and the exit code of a JSONL replay, from the job's counts. */
    private static int summary(JsonlReplay.Counts c, Args args, boolean loadFailed, PrintStream err) {
        return summary(c.total(), c.allow(), c.deny(), c.failClosed(), c.noMatch(), c.malformed(), c.compile(), args,
                loadFailed, err);
    }

    /** Reads the written records back for the summary line and the exit code. */
    private static int summary(SparkSession spark, Args args, boolean loadFailed, PrintStream err) {
        Dataset<Row> written = args.parquet() ? spark.read().parquet(args.out())
                : spark.read().schema(args.diff() ? "id string, line long" : "decision string, fail_closed boolean, "
                        + "failure string").json(args.out());
        if (args.diff()) {
            long changed = written.count();
            err.println(changed + " changed decision" + (changed == 1 ? "" : "s") + " written to " + args.out());
            return loadFailed || (args.failOnChange() && changed > 0) ? INPUT : OK;
        }
        long total = 0;
        long allow = 0;
        long deny = 0;
        long noMatch = 0;
        long failClosed = 0;
        long malformed = 0;
        long compile = 0;
        for (Row r : written.groupBy("decision", "fail_closed", "failure").count().collectAsList()) {
            long n = r.getLong(3);
            total += n;
            switch (r.getString(0)) {
                case "ALLOW" -> allow += n;
                case "NO_MATCH" -> noMatch += n;
                default -> deny += n;
            }
            if (r.getBoolean(1)) {
                failClosed += n;
            }
            String failure = r.getString(2);
            if ("malformed_action".equals(failure)) {
                malformed += n;
            } else if ("compile".equals(failure) || "load".equals(failure)) {
                compile += n;
            }
        }
        return summary(total, allow, deny, failClosed, noMatch, malformed, compile, args, loadFailed, err);
    }

    private static int summary(long total, long allow, long deny, long failClosed, long noMatch, long malformed,
            long compile, Args args, boolean loadFailed, PrintStream err) {
        err.println(String.format(Locale.ROOT, "%d decisions: %d ALLOW, %d DENY (%d fail-closed), %d NO_MATCH; "
                + "%d malformed lines; written to %s", total, allow, deny, failClosed, noMatch, malformed, args.out()));
        if (compile > 0 && !loadFailed) {
            err.println("error: " + compile + " actions were denied because their policies do not load or compile "
                    + "(failure `compile`/`load`); run `custody lint` on the policies");
        }
        return malformed > 0 || compile > 0 || loadFailed ? INPUT : OK;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
