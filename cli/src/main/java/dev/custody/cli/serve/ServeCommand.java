package dev.custody.cli.serve;

import dev.custody.cli.CliEnvironment;
import dev.custody.cli.CliException;
import dev.custody.cli.CliRoot;
import dev.custody.cli.Converters;
import dev.custody.cli.DebugOption;
import dev.custody.cli.ExitCode;
import dev.custody.cli.VersionProvider;
import dev.custody.client.CustodyClient;
import dev.custody.client.CustodyClientConfig;
import dev.custody.engine.files.FilePolicySource;
import dev.custody.engine.EngineObserver;
import dev.custody.engine.files.FilePolicySource;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.PolicySource;
import dev.custody.engine.compile.CostMeter;
import dev.custody.engine.log.DecisionLog;
import dev.custody.engine.log.JsonLinesDecisionSink;
import dev.custody.engine.metrics.EngineMetrics;
import dev.custody.engine.policy.BundleError;
import dev.custody.engine.policy.Policy;
import dev.custody.velocity.jdbc.JdbcVelocityLedger;
import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code custody serve}: the decision server, an HTTP sidecar in the manner of {@code opa run --server} for services
 * that are not on the JVM (docs/design.md §8 "Decision server"; routes and answers in {@link DecisionHandler}).
 *
 * <h2>One decision path</h2>
 * A request is decided by the same {@link PolicyEngine} every verb uses ({@code evaluate(action, false)}, as
 * {@code custody replay --velocity given} decides each line: under the action's own {@code workspace_id}, velocity
 * sections as given), its record written by replay's writer ({@link dev.custody.engine.replay.DecisionRecords}) plus
 * a {@code decision_id}; the decision log is the engine's ({@link DecisionLog} to a {@link JsonLinesDecisionSink},
 * the format {@code custody replay --from-log} reads back) and the engine's meters are {@link EngineMetrics}, in
 * Micrometer's Prometheus registry beside {@code http_server_requests}.
 *
 * <h2>Policies</h2>
 * {@code --policies} files are re-read on every bundle load and watched ({@link PolicyWatcher}): a change drops
 * the cached bundles, so the next request is decided on the new files, under their new {@code bundle_revision}.
 * {@code --from-api} fetches one workspace's policies through the client instead, every {@code --poll-interval}
 * ({@link ApiPolicySource}). {@code /ready} answers 200 once the source has answered (files read cleanly, or the
 * first fetch succeeded).
 *
 * <h2>The decision log's modes</h2>
 * {@code --decision-log-mode async} (the default) is {@link DecisionLog#of}: a decision never waits for its log line,
 * which is dropped (and counted) when the disk cannot keep up, and what is queued at a {@code kill -9} is lost.
 * {@code durable} is {@link DecisionLog#durable}: the handler answers {@code 200} only once
 * {@link DecisionLog#awaitDurable} says the request's decisions are written and fsynced, else {@code 503}
 * ({@link DecisionHandler}). Retention ({@code --decision-log-keep}) defaults to 5 rotated files for async, as
 * before, and to all of them for durable: a log that promises each record survives should not delete it later
 * unless told to.
 *
 * <h2>Why Jetty</h2>
 * The HTTP layer is Jetty 12.1's core {@code Handler} API ({@code jetty-server}, no servlet layer), not the JDK's
 * {@code com.sun.net.httpserver}. Measured on the 2-core machine with {@code wrk -t1 -c32} on a trivial handler,
 * Jetty answered 74,500 requests/s at p99 4.7 ms; the JDK server 45,000/s, and that only with
 * {@code -Dsun.net.httpserver.nodelay=true} (724/s without: Nagle's algorithm against delayed ACKs), a JVM-wide
 * switch a library cannot set for its user. More than speed: the JDK server reads a request on a worker thread
 * with blocking I/O and has no per-connection idle or read time-out of its own (only JVM-wide properties), so a
 * client stalled mid-request holds a thread; Jetty reads with non-blocking I/O, its idle time-out closes a stalled
 * connection without a thread waiting on it, and its {@code GracefulHandler} drains the requests in flight on
 * SIGTERM. The cost is the size of the fat jar (Jetty's server, http, io and util jars, about 2 MB).
 *
 * <h2>Security</h2>
 * With {@code --token-file}, every route but {@code /health} and {@code /ready} needs
 * {@code Authorization: Bearer <token>}, compared in constant time ({@link BearerToken}). Without one, the server
 * refuses to bind an address that is not loopback (exit 2).
 *
 * <h2>Stopping</h2>
 * SIGTERM (and SIGINT): stop accepting, finish the requests in flight (up to 10 s), flush the decision log, exit 0.
 */
@Command(name = "serve",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {"Serve decisions over HTTP: a sidecar for services that are not on the JVM.",
            "POST /v1/decisions, POST /v1/decisions/batch, POST /v1/settlements (with --ledger), GET /health, /ready, "
                    + "/metrics (Prometheus)."},
        footerHeading = "%nExamples:%n",
        footer = {
            "  custody serve --policies policies/",
            "  curl -s -XPOST localhost:8181/v1/decisions -d @action.json",
            "  custody serve --policies policies/ --addr 0.0.0.0:8181 --token-file /etc/custody/token \\",
            "      --decision-log /var/log/custody/decisions.jsonl",
            "  CUSTODY_BASE_URL=https://custody.example/api/v1 custody serve --from-api --workspace-id 7d0c…",
            "  custody serve --policies policies/ --ledger /var/lib/custody/velocity.db",
            "  custody serve --policies policies/ --ledger 'jdbc:postgresql://db:5432/custody?user=custody'",
            "  custody serve --policies policies/ --decision-log decisions.jsonl \\",
            "      --decision-log-mode durable",
            "",
            "Records are those of `custody replay --velocity given --format jsonl`, plus decision_id.",
            "--decision-log-mode async (default) never delays an answer: it drops (and",
            "counts) decisions the disk cannot keep up with and can lose the last ms of",
            "them on kill -9. durable answers 200 only once the decision is written and",
            "fsynced (one fsync per batch of concurrent requests), 503 if it cannot be.",
            "--decision-log-keep N deletes the oldest rotated file past N; all never does.",
            "Policy files are watched: the request after a change is decided on the new files.",
            "SIGTERM: stop accepting, finish requests in flight (up to 10 s), flush the log, exit 0.",
        })
public final class ServeCommand implements Callable<Integer> {
    static {
        // Jetty logs through SLF4J and the tool ships no SLF4J provider: without this, SLF4J's own warning that it
        // found none ("No SLF4J providers were found") is the first thing every `custody serve` prints
        if (System.getProperty("slf4j.internal.verbosity") == null) {
            System.setProperty("slf4j.internal.verbosity", "ERROR");
        }
    }

    /** The default address: loopback only. */
    static final String DEFAULT_ADDR = "127.0.0.1:8181";

    @ParentCommand
    CliRoot root;

    @Mixin
    DebugOption debug;

    @Spec
    CommandSpec spec;

    @Option(names = "--policies", arity = "1..*", paramLabel = "PATH",
            description = "Policy files or directories (recursive), watched for changes.")
    List<Path> policies;

    @Option(names = "--from-api", description = "Fetch the policies of --workspace-id through the custody API "
            + "($CUSTODY_BASE_URL or --base-url, $CUSTODY_API_KEY, $CUSTODY_API_SECRET) instead of --policies.")
    boolean fromApi;

    @Option(names = "--workspace-id", paramLabel = "UUID", description = "The workspace whose policies --from-api fetches.")
    String workspaceId;

    @Option(names = "--base-url", paramLabel = "URL", description = "Base URL of the API, including /api/v1 "
            + "(default: $CUSTODY_BASE_URL).")
    String baseUrl;

    @Option(names = "--poll-interval", paramLabel = "DURATION", defaultValue = "30s",
            converter = Converters.DurationConverter.class,
            description = "How often --from-api fetches the policies again (default: ${DEFAULT-VALUE}).")
    Duration pollInterval;

    @Option(names = "--addr", paramLabel = "HOST:PORT", defaultValue = DEFAULT_ADDR,
            description = "Address to listen on (default: ${DEFAULT-VALUE}); port 0 picks a free one. "
                    + "A non-loopback address needs --token-file.")
    String addr;

    @Option(names = "--decision-log", paramLabel = "FILE",
            description = "Append every decision to FILE (JSON lines, as `custody replay --from-log` reads them).")
    Path decisionLog;

    @Option(names = "--ledger", paramLabel = "URL",
            description = "Keep velocity in a durable ledger: jdbc:sqlite:PATH or a plain path (SQLite), or "
                    + "jdbc:postgresql://HOST:PORT/DB?user=U (PostgreSQL, for several replicas). Withdrawals without "
                    + "wallet/workspace sections get them from it, as `custody replay --velocity derive` does; every "
                    + "withdrawal's attempt is committed before its answer; POST /v1/settlements records settlements.")
    String ledgerUrl;

    @Option(names = "--ledger-lateness", paramLabel = "DURATION", defaultValue = "1h",
            converter = Converters.DurationConverter.class,
            description = "How late a record or an action may come, against the latest instant the ledger has seen "
                    + "(default: ${DEFAULT-VALUE}, as replay's); older figures are refused and the action denied.")
    Duration ledgerLateness;

    @Option(names = "--ledger-timeout", paramLabel = "DURATION", defaultValue = "2s",
            converter = Converters.DurationConverter.class,
            description = "The longest a request waits for the ledger (default: ${DEFAULT-VALUE}); past it the "
                    + "withdrawal is denied fail-closed (failure `ledger`).")
    Duration ledgerTimeout;

    @Option(names = "--ledger-sync", paramLabel = "full|normal", defaultValue = "full",
            description = "SQLite: fsync each commit before answering (full, the default: an answered attempt survives "
                    + "kill -9 and power loss), or write it to the OS only (normal: survives kill -9, not power loss). "
                    + "PostgreSQL follows its synchronous_commit.")
    String ledgerSync;

    @Option(names = "--decision-log-mode", paramLabel = "MODE", defaultValue = "async",
            description = "async (default): never delays a decision, drops and counts decisions the log cannot keep "
                    + "up with; durable: answers 200 only after the decision is written and fsynced, 503 when it "
                    + "cannot be.")
    String decisionLogMode;

    @Option(names = "--decision-log-keep", paramLabel = "N|all",
            description = "Rotated decision log files to keep; each rotation deletes the oldest past N; `all` never "
                    + "deletes one (FILE.000001, FILE.000002, …). Default: 5 for async, all for durable.")
    String decisionLogKeep;

    @Option(names = "--decision-log-max-bytes", paramLabel = "SIZE", defaultValue = "64M",
            description = "Rotate the decision log when it would pass SIZE bytes (K, M, G suffixes; default: "
                    + "${DEFAULT-VALUE}).")
    String decisionLogMaxBytes;

    @Option(names = "--token-file", paramLabel = "FILE",
            description = "Require `Authorization: Bearer <token>` (the file's content) on every route but /health and /ready.")
    Path tokenFile;

    @Option(names = "--idle-timeout", paramLabel = "DURATION", defaultValue = "30s",
            converter = Converters.DurationConverter.class,
            description = "Close a connection on which nothing moves for this long, mid-request included "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration idleTimeout;

    @Option(names = "--read-timeout", paramLabel = "DURATION", defaultValue = "10s",
            converter = Converters.DurationConverter.class,
            description = "Answer 408 when a request body is not complete this long after its headers "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration readTimeout;

    @Option(names = "--max-threads", paramLabel = "N", defaultValue = "64",
            description = "Most HTTP worker threads (default: ${DEFAULT-VALUE}).")
    int maxThreads;

    @Option(names = "--cost-limit", paramLabel = "UNITS", defaultValue = "" + CostMeter.DEFAULT_LIMIT,
            converter = Converters.CostLimitConverter.class,
            description = "Cost limit of one evaluation, in units (default: ${DEFAULT-VALUE}); past it the decision is "
                    + "DENY, failure cost_budget.")
    long costLimit;

    @Option(names = "--time-budget", paramLabel = "DURATION", defaultValue = "1s",
            converter = Converters.DurationConverter.class,
            description = "Wall-clock backstop of one evaluation (default: ${DEFAULT-VALUE}).")
    Duration timeBudget;

    /** The process environment ($CUSTODY_BASE_URL, $CUSTODY_API_KEY, $CUSTODY_API_SECRET); tests replace it. */
    java.util.function.Function<String, String> env = System::getenv;

    @Override
    public Integer call() throws Exception {
        CountDownLatch stop = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        Running running = start();
        // after start: a usage error must not have replaced the handlers of the JVM it runs in
        Signals.onTermination(stop::countDown, stopped);
        PrintWriter err = spec.commandLine().getErr();
        err.println("custody serve: listening on " + running.uri() + " (" + running.describe() + ")");
        err.flush();
        stop.await();
        err.println("custody serve: stopping: finishing requests in flight (up to "
                + DecisionServer.DRAIN.toSeconds() + " s)");
        err.flush();
        try {
            running.stop();
        } finally {
            stopped.countDown();
        }
        err.println("custody serve: stopped");
        err.flush();
        return ExitCode.OK;
    }

    /**
     * Checks the options, builds the engine over the policy source and starts serving; the caller stops it.
     * What {@link #call()} runs before it waits for a signal, and what the in-process tests run.
     */
    Running start() throws Exception {
        CliEnvironment env = root.environment();
        PrintWriter err = spec.commandLine().getErr();
        Address address = Address.parse(addr);
        BearerToken token = tokenFile == null ? null : token(tokenFile);
        if (token == null && !address.loopback()) {
            throw CliException.usage("refusing to listen on `" + addr + "` without `--token-file`: an address other "
                    + "than loopback needs bearer auth");
        }
        if (fromApi == (policies != null)) {
            throw CliException.usage("give either `--policies PATH…` or `--from-api`");
        }
        if (fromApi && (workspaceId == null || workspaceId.isBlank())) {
            throw CliException.usage("`--from-api` needs `--workspace-id`");
        }
        if (!fromApi && workspaceId != null) {
            throw CliException.usage("`--workspace-id` is for `--from-api`; policy files name their workspace themselves");
        }
        if (maxThreads < 8) {
            throw CliException.usage("`--max-threads` must be at least 8, got " + maxThreads);
        }
        positive("--idle-timeout", idleTimeout);
        positive("--read-timeout", readTimeout);
        positive("--poll-interval", pollInterval);
        positive("--ledger-timeout", ledgerTimeout);
        if (ledgerLateness.isNegative() || ledgerLateness.compareTo(Duration.ofHours(24)) > 0) {
            throw CliException.usage("`--ledger-lateness` must be between 0 and 24h, got " + ledgerLateness);
        }
        if (!ledgerSync.equals("full") && !ledgerSync.equals("normal")) {
            throw CliException.usage("`--ledger-sync` is full or normal, got `" + ledgerSync + "`");
        }
        String ledgerJdbc = null;
        if (ledgerUrl != null) {
            try {
                ledgerJdbc = JdbcVelocityLedger.jdbcUrl(ledgerUrl);
            } catch (IllegalArgumentException e) {
                throw CliException.usage(e.getMessage());
            }
            if (ledgerJdbc.startsWith("jdbc:sqlite:")) {
                Path file = Path.of(ledgerJdbc.substring("jdbc:sqlite:".length()).replaceFirst("\\?.*$", ""))
                        .toAbsolutePath();
                if (!Files.isDirectory(file.getParent())) {
                    throw new NoSuchFileException(file.getParent().toString(), null,
                            "the directory of the ledger file does not exist");
                }
            }
        }
        if (policies != null) {
            for (Path p : policies) {
                if (!Files.exists(p)) {
                    throw new NoSuchFileException(p.toString());
                }
            }
        }

        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Counter reloads = Counter.builder("custody.serve.policy.changes")
                .description("Changes of the policy source seen (file events, or a fetch that differed)")
                .register(registry);
        DecisionLog log = decisionLog == null ? logOptionsUnused() : decisionLog();
        AtomicReference<PolicyEngine> engineRef = new AtomicReference<>();
        Runnable invalidate = () -> {
            PolicyEngine e = engineRef.get();
            if (e != null) {
                e.invalidateAll();
            }
            reloads.increment(); // after: once it is counted, every request that starts reloads
        };
        ReadySource source;
        ApiPolicySource api = null;
        if (fromApi) {
            api = new ApiPolicySource(client(env), workspaceId, invalidate);
            ApiPolicySource held = api;
            source = new ReadySource(held, held::fetched);
        } else {
            source = new ReadySource(FilePolicySource.watching(policies)::policies, null);
        }
        Reporter reporter = new Reporter(err);
        EngineMetrics metricsObserver = (log == null ? EngineMetrics.builder(registry)
                : EngineMetrics.builder(registry).decisionLog(log)).build();
        PolicyEngine.Builder builder = PolicyEngine.builder(source)
                .clock(Clock.systemUTC())
                .costLimit(costLimit)
                .timeBudget(timeBudget)
                .observer(metricsObserver)
                .observer(reporter);
        if (log != null) {
            builder.observer(log);
        }
        PolicyEngine engine = builder.build();
        engineRef.set(engine);
        JdbcVelocityLedger ledger = ledgerJdbc == null ? null
                : JdbcVelocityLedger.builder(ledgerJdbc).lateness(ledgerLateness).timeout(ledgerTimeout)
                        .powerLossSafe(ledgerSync.equals("full")).build();
        LedgerDecisions ledgerDecisions = null;
        if (ledger != null) {
            // the decisions the ledger takes itself (it did not answer) reach the same observers as the engine's
            List<EngineObserver> outside = new java.util.ArrayList<>(List.of(metricsObserver, reporter));
            if (log != null) {
                outside.add(log);
            }
            ledgerDecisions = new LedgerDecisions(engine, ledger, Clock.systemUTC(), new EngineObserver() {
                @Override
                public void decided(String ws, dev.custody.engine.payload.Action action, dev.custody.engine.Decision d,
                        long nanos) {
                    for (EngineObserver o : outside) {
                        o.decided(ws, action, d, nanos);
                    }
                }
            });
        }

        PolicyWatcher watcher = null;
        ScheduledExecutorService poller = null;
        try {
            if (fromApi) {
                poller = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "custody-serve-poller");
                    t.setDaemon(true);
                    return t;
                });
                ApiPolicySource polled = api;
                poller.scheduleWithFixedDelay(() -> poll(polled, reporter), 0, pollInterval.toMillis(), TimeUnit.MILLISECONDS);
            } else {
                watcher = PolicyWatcher.start(policies, path -> invalidate.run());
                try {
                    source.policies(PolicySource.NO_WORKSPACE);
                } catch (Exception e) {
                    reporter.loadFailed(PolicySource.NO_WORKSPACE, e.getMessage());
                }
            }
            DecisionHandler handler = new DecisionHandler(engine, ledger, ledgerDecisions, token, source::ready,
                    registry::scrape, new HttpMetrics(registry), readTimeout);
            if (log != null && log.isDurable()) {
                handler.awaitDurable(log);
            }
            DecisionServer server;
            try {
                server = DecisionServer.start(handler, new DecisionServer.Settings(address.host(), address.port(),
                        idleTimeout, maxThreads));
            } catch (IOException e) {
                throw CliException.io("cannot listen on `" + addr + "`: " + oneLine(e));
            }
            String what = fromApi ? "policies of workspace `" + workspaceId + "` from " + baseUrl(env)
                    : "policies from " + policies.stream().map(p -> "`" + p + "`").toList().toString()
                            .replace("[", "").replace("]", "") + ", watched";
            return new Running(server, watcher, poller, log, ledger, registry, what
                    + (ledger != null ? ", velocity ledger on " + ledgerDescription(ledgerJdbc) : "")
                    + (token != null ? ", bearer auth" : ""));
        } catch (Exception | Error e) {
            if (watcher != null) {
                watcher.close();
            }
            if (poller != null) {
                poller.shutdownNow();
            }
            if (log != null) {
                log.close(1000);
            }
            if (ledger != null) {
                ledger.close();
            }
            throw e;
        }
    }

    /** The ledger's URL as the start line shows it: without its query (which may carry a password). */
    private static String ledgerDescription(String jdbc) {
        int q = jdbc.indexOf('?');
        return "`" + (q < 0 ? jdbc : jdbc.substring(0, q)) + "`";
    }

    /** The decision log the options ask for: its mode, retention and size. */
    private DecisionLog decisionLog() {
        boolean durable = switch (decisionLogMode) {
            case "async" -> false;
            case "durable" -> true;
            default -> throw CliException.usage("`--decision-log-mode` is async or durable, got `" + decisionLogMode + "`");
        };
        JsonLinesDecisionSink.Builder sink = JsonLinesDecisionSink.builder(decisionLog).maxBytes(bytes(decisionLogMaxBytes));
        String keep = decisionLogKeep != null ? decisionLogKeep : durable ? "all" : "5";
        if ("all".equals(keep)) {
            sink.keepAll();
        } else {
            try {
                sink.keep(Integer.parseInt(keep));
            } catch (IllegalArgumentException e) { // NumberFormatException included
                throw CliException.usage("`--decision-log-keep` is a number of files (0 or more) or `all`, got `" + keep + "`");
            }
        }
        JsonLinesDecisionSink built;
        try {
            built = sink.build();
        } catch (java.io.UncheckedIOException e) {
            throw CliException.io(e.getMessage() + ": " + oneLine(e.getCause()));
        }
        return durable ? DecisionLog.durable(built) : DecisionLog.of(built);
    }

    /** Without {@code --decision-log}: no log, and its other options are a usage error. */
    private DecisionLog logOptionsUnused() {
        picocli.CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
        if (parsed != null && (parsed.hasMatchedOption("--decision-log-mode") || parsed.hasMatchedOption("--decision-log-keep")
                || parsed.hasMatchedOption("--decision-log-max-bytes"))) {
            throw CliException.usage("`--decision-log-mode`, `--decision-log-keep` and `--decision-log-max-bytes` "
                    + "need `--decision-log FILE`");
        }
        return null;
    }

    /** {@code 1048576}, {@code 64M}, {@code 512k}, {@code 1G}: a positive number of bytes. */
    static long bytes(String text) {
        String t = text.trim().toUpperCase(java.util.Locale.ROOT);
        long unit = t.endsWith("K") ? 1L << 10 : t.endsWith("M") ? 1L << 20 : t.endsWith("G") ? 1L << 30 : 1;
        try {
            long n = Long.parseLong(unit == 1 ? t : t.substring(0, t.length() - 1));
            if (n >= 1 && n <= Long.MAX_VALUE / unit) {
                return n * unit;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw CliException.usage("`--decision-log-max-bytes` must be a positive size such as 64M, got `" + text + "`");
    }

    private static void positive(String option, Duration d) {
        if (d.isZero() || d.isNegative()) {
            throw CliException.usage("`" + option + "` must be positive, got " + d);
        }
    }

    private static void poll(ApiPolicySource api, Reporter reporter) {
        try {
            if (api.refresh()) {
                reporter.note("fetched " + api.size() + " polic" + (api.size() == 1 ? "y" : "ies") + " from the API");
            }
        } catch (RuntimeException e) { // CustodyClientException and what else a poll throws
            reporter.note("warning: fetching the policies failed: " + oneLine(e)
                    + (api.fetched() ? "; still deciding on the last ones fetched" : "; every action is denied until a fetch succeeds"));
        }
    }

    private String baseUrl(CliEnvironment env) {
        return baseUrl != null ? baseUrl : this.env.apply("CUSTODY_BASE_URL");
    }

    private CustodyClient client(CliEnvironment env) {
        String url = baseUrl(env);
        if (url == null || url.isBlank()) {
            throw CliException.usage("no base url: pass `--base-url` or set `CUSTODY_BASE_URL`");
        }
        try {
            CustodyClientConfig config = CustodyClientConfig.builder(url)
                    .credentials(this.env.apply("CUSTODY_API_KEY"), this.env.apply("CUSTODY_API_SECRET"))
                    .build();
            return CustodyClient.builder(config).build();
        } catch (IllegalArgumentException e) {
            throw CliException.usage(e.getMessage());
        }
    }

    private static BearerToken token(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw CliException.io("cannot read the token file `" + file + "`: " + oneLine(e));
        }
        try {
            return BearerToken.of(text);
        } catch (IllegalArgumentException e) {
            throw CliException.input("bad token file `" + file + "`: " + e.getMessage());
        }
    }

    private static String oneLine(Throwable t) {
        String m = t.getMessage();
        return m == null ? t.getClass().getSimpleName() : m.lines().findFirst().orElse(m);
    }

    /** A running server and what it owns; {@link #stop()} drains it and flushes the log. Thread-safe. */
    static final class Running {
        private final DecisionServer server;
        private final PolicyWatcher watcher;
        private final ScheduledExecutorService poller;
        private final DecisionLog log;
        private final JdbcVelocityLedger ledger;
        private final PrometheusMeterRegistry registry;
        private final String description;

        Running(DecisionServer server, PolicyWatcher watcher, ScheduledExecutorService poller, DecisionLog log,
                JdbcVelocityLedger ledger, PrometheusMeterRegistry registry, String description) {
            this.server = server;
            this.watcher = watcher;
            this.poller = poller;
            this.log = log;
            this.ledger = ledger;
            this.registry = registry;
            this.description = description;
        }

        java.net.URI uri() {
            return server.uri();
        }

        String describe() {
            return description;
        }

        PrometheusMeterRegistry registry() {
            return registry;
        }

        /** Stops accepting, finishes requests in flight (up to 10 s), stops watching, flushes the decision log. */
        void stop() throws Exception {
            try {
                server.drain();
            } finally {
                if (watcher != null) {
                    watcher.close();
                }
                if (poller != null) {
                    poller.shutdownNow();
                }
                if (log != null) {
                    log.close(DecisionServer.DRAIN.toMillis());
                }
                if (ledger != null) {
                    ledger.close();
                }
            }
        }
    }

    /** The policy source, telling {@code /ready} once it has answered. Thread-safe. */
    static final class ReadySource implements PolicySource {
        private final PolicySource source;
        private final java.util.function.BooleanSupplier answered;
        private volatile boolean ready;

        /** @param answered whether the source has answered, or null to count its first successful load */
        ReadySource(PolicySource source, java.util.function.BooleanSupplier answered) {
            this.source = Objects.requireNonNull(source, "source");
            this.answered = answered;
        }

        @Override
        public List<Policy> policies(String workspaceId) throws Exception {
            List<Policy> out = source.policies(workspaceId);
            ready = true;
            return out;
        }

        boolean ready() {
            return answered != null ? answered.getAsBoolean() : ready;
        }
    }

    /**
     * Says on stderr what goes wrong with the policies, once per distinct message (a broken file fails every load,
     * and loads that fail are not cached: a request each). Thread-safe.
     */
    static final class Reporter implements EngineObserver {
        private final PrintWriter err;
        private String last;

        Reporter(PrintWriter err) {
            this.err = err;
        }

        @Override
        public void bundleLoaded(String workspaceId, List<BundleError> errors) {
            if (errors.isEmpty()) {
                synchronized (this) {
                    last = null;
                }
                return;
            }
            StringBuilder b = new StringBuilder("error: the policies").append(PolicySource.NO_WORKSPACE.equals(workspaceId)
                    ? " for actions without a workspace do not compile; those actions are denied (fail_closed):"
                    : " of workspace `" + workspaceId + "` do not compile; its actions are denied (fail_closed):");
            errors.forEach(e -> b.append("\n  ").append(e.describe()));
            once(b.toString());
        }

        @Override
        public void loadFailed(String workspaceId, String message) {
            once("error: the policies could not be loaded; actions are denied (fail_closed): " + message);
        }

        void note(String line) {
            synchronized (this) {
                err.println("custody serve: " + line);
                err.flush();
            }
        }

        private synchronized void once(String text) {
            if (text.equals(last)) {
                return;
            }
            last = text;
            err.println(text);
            err.flush();
        }
    }

    /** A {@code HOST:PORT} address ({@code [v6]:PORT} for IPv6 literals). */
    record Address(String host, int port, boolean loopback) {
        static Address parse(String text) {
            int colon = text.lastIndexOf(':');
            if (colon <= 0 || colon == text.length() - 1) {
                throw CliException.usage("`--addr` must be HOST:PORT, got `" + text + "`");
            }
            String host = text.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int port;
            try {
                port = Integer.parseInt(text.substring(colon + 1));
            } catch (NumberFormatException e) {
                port = -1;
            }
            if (port < 0 || port > 65535) {
                throw CliException.usage("`--addr` has no valid port (0-65535): `" + text + "`");
            }
            boolean loopback;
            try {
                InetAddress[] all = InetAddress.getAllByName(host);
                loopback = all.length > 0;
                for (InetAddress a : all) {
                    loopback &= a.isLoopbackAddress();
                }
            } catch (UnknownHostException e) {
                throw CliException.usage("`--addr` names an unknown host: `" + host + "`");
            }
            return new Address(host, port, loopback);
        }
    }
}
