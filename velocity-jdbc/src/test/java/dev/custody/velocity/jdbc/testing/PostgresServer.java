package dev.custody.velocity.jdbc.testing;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server for tests, started by the tests themselves: its own cluster in a temporary directory,
 * on its own free port of 127.0.0.1, independent of any cluster the machine runs (Debian's package starts one on
 * port 5432; this server neither uses nor disturbs it).
 *
 * <p>Once {@link #start()} returns:
 * <ul>
 *   <li>the server accepts TCP connections on {@code 127.0.0.1:}{@link #port()} and on no other address; its Unix
 *       socket is in the temporary directory, not in {@code /var/run/postgresql};</li>
 *   <li>the superuser is {@value #USER} with trust authentication, the encoding UTF8 with the C locale, and the
 *       database {@value #DATABASE} exists, empty: {@link #jdbcUrl()};</li>
 *   <li>durability is PostgreSQL's default, as in production: {@code fsync}, {@code synchronous_commit} and
 *       {@code full_page_writes} are on, so a transaction committed before {@link #kill9()} is there after
 *       {@link #restart()}; only {@code shared_buffers} (32MB) and {@code max_connections} (50) are made small;</li>
 *   <li>when the JVM runs as root, which PostgreSQL refuses to run as, {@code initdb} and {@code postgres} run as
 *       the {@code postgres} system user (created by Debian's package), or as {@code nobody} when there is none;
 *       the temporary directory is handed over to that user, so {@code java.io.tmpdir} must be reachable by it
 *       ({@code /tmp} is);</li>
 *   <li>the server's output goes to a log file in the temporary directory, which {@link #logTail(int)} reads for
 *       failure messages;</li>
 *   <li>the server does not outlive the JVM: {@link #close()} stops it and deletes its directory, and a shutdown
 *       hook does the same for a server a test left open (a JVM killed with SIGKILL leaves it running).</li>
 * </ul>
 * Every failure to start, stop or signal the server is an {@link IOException} whose message says what failed and,
 * where there is one, ends with the server's log tail. When PostgreSQL is not installed at all, {@link #start()}
 * fails (a test must not be skipped for it) with a message saying how to install it.
 *
 * <p>The programs are found with {@code pg_config --bindir}, or else in the highest version of
 * {@code /usr/lib/postgresql/<version>/bin} (Debian's layout). {@code postgres} is started directly, not through
 * {@code pg_ctl}: the postmaster is then the JVM's own child, whose process id is the {@link Process}'s, its output
 * goes straight to the log file, a server that dies while starting is seen at once as a process that exited rather
 * than by polling a daemon until a timeout, and the JVM reaps it after {@link #kill9()} (the container's init may
 * not, and PostgreSQL will not start while its old postmaster's process id still exists, even as a zombie). For the
 * same reason the user is switched with {@code setpriv}, which execs the program, and not with {@code runuser}, which
 * stays as its parent (and stops itself when its child is stopped, which {@link #pause()} does). The server is
 * ready when its {@code postmaster.pid} names that process with the status {@code ready} and {@code pg_isready}
 * answers on the port.
 *
 * <p>One server per JVM is the usual use: {@link #shared()} starts one lazily for all test classes, each of which
 * then takes a database of its own with {@link #createDatabase(String)}. A test that stops, kills or pauses the
 * server starts one of its own with {@link #start()} instead.
 *
 * <p>Thread-safety: an instance is safe for use by several threads. The methods that change or read the server's
 * state are serialized on the instance, so a {@link #restart()} never interleaves with a {@link #pause()}; the
 * accessors of what never changes ({@link #port()}, {@link #jdbcUrl()}, {@link #dataDirectory()}) do not wait.
 */
public final class PostgresServer implements AutoCloseable {

    /** The superuser that {@code initdb} creates and that every URL of this server connects as. */
    public static final String USER = "custody";

    /** The database created when the server starts, the one {@link #jdbcUrl()} names. */
    public static final String DATABASE = "custody";

    private static final String LOOPBACK = "127.0.0.1";
    private static final String NOT_INSTALLED = "PostgreSQL is not installed: apt-get install postgresql";
    private static final Pattern DATABASE_NAME = Pattern.compile("[a-z0-9_]+");
    private static final List<String> RESERVED_DATABASES = List.of("postgres", "template0", "template1");
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration GONE_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration INITDB_TIMEOUT = Duration.ofSeconds(120);
    private static final int LOG_TAIL_LINES = 30;
    private static final int PORT_ATTEMPTS = 3;

    private static PostgresServer shared;

    private final Path binDirectory;
    private final RunAs runAs;
    private final Path directory;
    private final Path dataDirectory;
    private final Path socketDirectory;
    private final Path logFile;
    private final int port;
    private final Thread shutdownHook;

    private Process postmaster;
    private long pid = -1;
    private boolean running;
    private List<Long> pausedPids = List.of();
    private boolean closed;

    private PostgresServer(Path binDirectory, RunAs runAs, Path directory, int port) {
        this.binDirectory = binDirectory;
        this.runAs = runAs;
        this.directory = directory;
        this.dataDirectory = directory.resolve("data");
        this.socketDirectory = directory.resolve("socket");
        this.logFile = directory.resolve("postgres.log");
        this.port = port;
        this.shutdownHook = new Thread(this::closeQuietly, "postgres-server-shutdown-" + port);
    }

    /**
     * Creates a cluster in a new temporary directory and starts PostgreSQL on it, on a free port of 127.0.0.1;
     * returns once the server accepts connections and the database {@value #DATABASE} exists.
     *
     * @return the running server; {@link #close()} stops it and deletes its directory
     * @throws IOException when PostgreSQL is not installed, {@code initdb} fails, or the server does not accept
     *     connections within 60 seconds (the message then ends with the server's log tail)
     */
    public static PostgresServer start() throws IOException {
        Path bin = findBinDirectory();
        RunAs runAs = RunAs.forCurrentUser();
        Path directory = Files.createTempDirectory("custody-postgres-");
        try {
            Files.createDirectory(directory.resolve("socket"));
            runAs.handOver(directory, directory.resolve("socket"));
            initdb(bin, runAs, directory);
            for (int attempt = 1; ; attempt++) {
                PostgresServer server = new PostgresServer(bin, runAs, directory, freePort());
                try {
                    server.launch();
                } catch (PortTakenException e) {
                    if (attempt < PORT_ATTEMPTS) {
                        continue; // another process took the free port between the probe and the bind
                    }
                    throw e;
                }
                try {
                    server.createDatabaseNamed(DATABASE);
                } catch (IOException | RuntimeException e) {
                    server.stopQuietly();
                    throw e;
                }
                Runtime.getRuntime().addShutdownHook(server.shutdownHook);
                return server;
            }
        } catch (IOException | RuntimeException e) {
            deleteRecursively(directory);
            throw e;
        }
    }

    /**
     * The server this JVM's tests share, started on first use and stopped when the JVM exits. Tests that share it
     * each take their own database ({@link #createDatabase(String)}) and must not stop, kill or pause it.
     *
     * @return the shared running server (a new one if a test closed the previous one)
     * @throws IOException as {@link #start()}; a later call tries again
     */
    public static synchronized PostgresServer shared() throws IOException {
        if (shared == null || shared.isClosed()) {
            shared = start();
        }
        return shared;
    }

    /** The JDBC URL of the database {@value #DATABASE}: {@code jdbc:postgresql://127.0.0.1:PORT/custody}. */
    public String jdbcUrl() {
        return jdbcUrl(DATABASE);
    }

    /** The user to connect as, {@value #USER} (the superuser; trust authentication, no password). */
    public String user() {
        return USER;
    }

    /** The TCP port on 127.0.0.1; the same after {@link #restart()}. */
    public int port() {
        return port;
    }

    /**
     * The process id of the postmaster (the server's main process): of the running server, or after
     * {@link #stop()} or {@link #kill9()} of the one that ran last. It changes with every {@link #restart()}.
     */
    public synchronized long pid() {
        return pid;
    }

    /** The cluster's data directory (the {@code -D} of {@code postgres}), the same across restarts. */
    public Path dataDirectory() {
        return dataDirectory;
    }

    /** Whether the server is running (paused counts as running; stopped, killed and closed do not). */
    public synchronized boolean isRunning() {
        return running;
    }

    /**
     * Creates a fresh, empty database on this server, owned by {@value #USER}. A database of that name that exists
     * already is dropped first, its connections terminated, so a test gets the same clean state on every run.
     *
     * @param name the database's name: lower-case letters, digits and underscores, not {@code postgres} nor a
     *     template
     * @return its JDBC URL, {@code jdbc:postgresql://127.0.0.1:PORT/name}
     * @throws IllegalArgumentException when the name is not of that form
     * @throws IllegalStateException when the server is not running
     * @throws IOException when PostgreSQL refuses (the message carries its error)
     */
    public synchronized String createDatabase(String name) throws IOException {
        if (name == null || !DATABASE_NAME.matcher(name).matches() || RESERVED_DATABASES.contains(name)) {
            throw new IllegalArgumentException("a database name is [a-z0-9_]+ and not postgres, template0 or "
                    + "template1: " + name);
        }
        requireRunning("create a database");
        Command.run(List.of(program("dropdb"), "--if-exists", "--force", "-h", LOOPBACK, "-p",
                Integer.toString(port), "-U", USER, name), directory, COMMAND_TIMEOUT).orThrow("drop database " + name);
        createDatabaseNamed(name);
        return jdbcUrl(name);
    }

    /**
     * Kills the server as a crash would: SIGKILL to the postmaster and every process it started (their backends
     * would otherwise go on serving their clients for a moment and keep the shared memory that a restart needs),
     * and returns once they are gone. Nothing is flushed or shut down; {@link #restart()} then runs crash recovery.
     *
     * @throws IllegalStateException when the server is not running
     * @throws IOException when the processes cannot be signalled or are not gone within 10 seconds
     */
    public synchronized void kill9() throws IOException {
        requireRunning("kill");
        signal("STOP", List.of(pid)); // a stopped postmaster forks nothing while its children are listed
        List<Long> all = withDescendants(pid);
        killNow(all);
        awaitGone(all, GONE_TIMEOUT, "the killed server");
        awaitReaped();
        running = false;
        pausedPids = List.of();
    }

    /**
     * Stops the server with PostgreSQL's fast shutdown (SIGINT: open transactions are rolled back, a checkpoint is
     * written); after 30 seconds without exit, SIGKILL as {@link #kill9()}. Resumes a paused server first. Does
     * nothing when the server is not running.
     *
     * @throws IOException when the server cannot be signalled or does not go away even after SIGKILL
     */
    public synchronized void stop() throws IOException {
        if (!running) {
            return;
        }
        signal("INT", List.of(pid));
        if (!pausedPids.isEmpty()) {
            signal("CONT", pausedPids);
            pausedPids = List.of();
        }
        if (!waitUntilGone(List.of(pid), STOP_TIMEOUT)) {
            List<Long> all = withDescendants(pid);
            killNow(all);
            awaitGone(all, GONE_TIMEOUT, "the server, after a fast shutdown of 30 s and SIGKILL");
        }
        awaitReaped();
        running = false;
    }

    /**
     * Starts the server again on the same data directory and port, after {@link #stop()} or {@link #kill9()} (a
     * running server is stopped first), and returns once it accepts connections, crash recovery done.
     *
     * @throws IllegalStateException when the server is closed
     * @throws IOException when the server does not accept connections within 60 seconds (for instance because
     *     another process took the port meanwhile); the message ends with the server's log tail
     */
    public synchronized void restart() throws IOException {
        if (closed) {
            throw new IllegalStateException("the PostgreSQL server on port " + port + " is closed");
        }
        stop();
        launch();
    }

    /**
     * Freezes the server, as a hung database: SIGSTOP to the postmaster, then to every process it started. Connections
     * stay open but nothing answers, and new connections are not served. Does nothing when already paused.
     *
     * @throws IllegalStateException when the server is not running
     * @throws IOException when the processes cannot be signalled
     */
    public synchronized void pause() throws IOException {
        requireRunning("pause");
        if (!pausedPids.isEmpty()) {
            return;
        }
        signal("STOP", List.of(pid)); // first, so that it forks no child after the list is taken
        List<Long> all = new ArrayList<>();
        all.add(pid);
        List<Long> children = descendants(pid);
        signal("STOP", children);
        all.addAll(children);
        pausedPids = List.copyOf(all);
    }

    /**
     * Lets a {@link #pause() paused} server go on: SIGCONT to the processes paused. Does nothing when not paused.
     *
     * @throws IOException when the processes cannot be signalled
     */
    public synchronized void resume() throws IOException {
        if (pausedPids.isEmpty()) {
            return;
        }
        signal("CONT", pausedPids);
        pausedPids = List.of();
    }

    /**
     * The last lines of the server's log (the output of every run of {@code postgres} on this data directory), for
     * failure messages.
     *
     * @param lines how many lines at most
     * @return those lines joined by newlines; empty when there is no log yet
     */
    public String logTail(int lines) {
        return tail(logFile, lines);
    }

    /**
     * Stops the server ({@link #stop()}) and deletes its temporary directory, ignoring failures to delete. Does
     * nothing the second time.
     *
     * @throws IOException when the server cannot be stopped (the directory is deleted all the same)
     */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        removeShutdownHook();
        try {
            stop();
        } catch (IOException | RuntimeException e) {
            // the server must not outlive its directory: kill what is left, without the help of kill(1)
            if (running) {
                List<Long> all = withDescendants(pid);
                killNow(all);
                waitUntilGone(all, GONE_TIMEOUT);
                running = false;
            }
            throw e;
        } finally {
            deleteRecursively(directory);
        }
    }

    @Override
    public String toString() {
        return "PostgreSQL on " + LOOPBACK + ":" + port + " (" + dataDirectory + ")";
    }

    private synchronized boolean isClosed() {
        return closed;
    }

    private String jdbcUrl(String database) {
        return "jdbc:postgresql://" + LOOPBACK + ":" + port + "/" + database;
    }

    private void requireRunning(String what) {
        if (closed || !running) {
            throw new IllegalStateException("cannot " + what + ": the PostgreSQL server on port " + port
                    + " is " + (closed ? "closed" : "not running"));
        }
    }

    private String program(String name) {
        return binDirectory.resolve(name).toString();
    }

    /** Starts {@code postgres} on the data directory and waits until it accepts connections. */
    private void launch() throws IOException {
        long logStart = Files.exists(logFile) ? Files.size(logFile) : 0;
        List<String> command = runAs.command(List.of(program("postgres"), "-D", dataDirectory.toString(),
                "-p", Integer.toString(port), "-k", socketDirectory.toString(),
                "-c", "listen_addresses=" + LOOPBACK,
                "-c", "fsync=on", "-c", "synchronous_commit=on", "-c", "full_page_writes=on",
                "-c", "shared_buffers=32MB", "-c", "max_connections=50"));
        Process process = Command.builder(command, directory, runAs)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                .start();
        process.getOutputStream().close();
        postmaster = process;
        pid = process.pid();
        try {
            awaitReady(process, logStart);
            running = true;
        } catch (IOException | RuntimeException e) {
            try {
                List<Long> all = withDescendants(process.pid());
                killNow(all);
                waitUntilGone(all, GONE_TIMEOUT);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private void awaitReady(Process process, long logStart) throws IOException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        List<String> isReady = List.of(program("pg_isready"), "-q", "-h", LOOPBACK, "-p", Integer.toString(port),
                "-U", USER, "-d", "postgres", "-t", "2");
        while (true) {
            if (!process.isAlive()) {
                String since = logSince(logStart);
                String message = "PostgreSQL exited with status " + exitValue(process) + " while starting on port "
                        + port + "; its log:\n" + lastLines(since, LOG_TAIL_LINES);
                if (since.contains("could not bind") || since.contains("Address already in use")) {
                    throw new PortTakenException(message);
                }
                throw new IOException(message);
            }
            if (lockFileSaysReady(process.pid()) && Command.run(isReady, directory, COMMAND_TIMEOUT).status() == 0) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("PostgreSQL did not accept connections on port " + port + " within "
                        + READY_TIMEOUT.toSeconds() + " s; its log:\n" + logTail(LOG_TAIL_LINES));
            }
            sleep(100);
        }
    }

    /**
     * Whether postmaster.pid names this postmaster and says {@code ready} (its 8th line, written once the server
     * accepts connections): a server that answers on the port is then this one, not another that took the port.
     */
    private boolean lockFileSaysReady(long expectedPid) {
        try {
            List<String> lines = Files.readAllLines(dataDirectory.resolve("postmaster.pid"), StandardCharsets.UTF_8);
            return lines.size() >= 8 && lines.get(0).trim().equals(Long.toString(expectedPid))
                    && lines.get(7).trim().equals("ready");
        } catch (IOException e) {
            return false; // not written yet
        }
    }

    /** Waits until the JVM has reaped the postmaster: PostgreSQL does not start while its process id exists. */
    private void awaitReaped() throws IOException {
        try {
            if (postmaster != null && !postmaster.waitFor(GONE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IOException("the postmaster " + pid + " has not exited after " + GONE_TIMEOUT.toSeconds()
                        + " s");
            }
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    private void createDatabaseNamed(String name) throws IOException {
        Command.run(List.of(program("createdb"), "-h", LOOPBACK, "-p", Integer.toString(port), "-U", USER,
                "-E", "UTF8", "-T", "template0", name), directory, COMMAND_TIMEOUT).orThrow("create database " + name);
    }

    private String logSince(long offset) {
        try (InputStream in = Files.newInputStream(logFile)) {
            in.skipNBytes(offset);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private void closeQuietly() {
        try {
            close();
        } catch (IOException e) {
            // the JVM is exiting: there is nobody left to tell
        }
    }

    private void stopQuietly() {
        try {
            stop();
        } catch (IOException e) {
            // already failing: the caller's exception is the one to report
        }
    }

    private void removeShutdownHook() {
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down, this is the hook running
        }
    }

    // ---- finding PostgreSQL, creating the cluster ----

    private static Path findBinDirectory() throws IOException {
        if (Command.onPath("pg_config").isPresent()) {
            Command.Result bindir = Command.run(List.of("pg_config", "--bindir"), null, COMMAND_TIMEOUT);
            if (bindir.status() == 0) {
                Path candidate = Path.of(bindir.output().trim());
                if (hasServer(candidate)) {
                    return candidate;
                }
            }
        }
        // Debian: pg_config may be libpq-dev's, of another major version than the installed server
        Path debian = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(debian)) {
            try (Stream<Path> versions = Files.list(debian)) {
                Optional<Path> highest = versions
                        .filter(p -> p.getFileName().toString().matches("\\d+(\\.\\d+)?"))
                        .map(p -> p.resolve("bin"))
                        .filter(PostgresServer::hasServer)
                        .max(Comparator.comparingDouble(PostgresServer::debianVersion));
                if (highest.isPresent()) {
                    return highest.get();
                }
            }
        }
        throw new IOException(NOT_INSTALLED + " (no pg_config on the PATH whose --bindir has initdb and postgres, "
                + "no /usr/lib/postgresql/<version>/bin)");
    }

    /** The version of {@code /usr/lib/postgresql/<version>/bin}: 15, or 9.6 before PostgreSQL 10. */
    private static double debianVersion(Path bin) {
        return Double.parseDouble(bin.getParent().getFileName().toString());
    }

    private static boolean hasServer(Path bin) {
        return Stream.of("initdb", "postgres", "pg_isready", "createdb", "dropdb")
                .allMatch(name -> Files.isExecutable(bin.resolve(name)));
    }

    private static void initdb(Path bin, RunAs runAs, Path directory) throws IOException {
        Path log = directory.resolve("initdb.log");
        List<String> command = runAs.command(List.of(bin.resolve("initdb").toString(),
                "-D", directory.resolve("data").toString(), "-U", USER, "--auth=trust", "--encoding=UTF8",
                "--no-locale"));
        Process process = Command.builder(command, directory, runAs)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        process.getOutputStream().close();
        try {
            if (!process.waitFor(INITDB_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IOException("initdb did not finish within " + INITDB_TIMEOUT.toSeconds() + " s; its output:\n"
                        + tail(log, LOG_TAIL_LINES));
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            throw interrupted(e);
        }
        if (process.exitValue() != 0) {
            throw new IOException("initdb failed with status " + process.exitValue() + runAs.describe()
                    + "; its output:\n" + tail(log, LOG_TAIL_LINES));
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
            return socket.getLocalPort();
        }
    }

    // ---- processes and signals ----

    private static List<Long> descendants(long pid) {
        return ProcessHandle.of(pid)
                .map(handle -> handle.descendants().map(ProcessHandle::pid).collect(Collectors.toList()))
                .orElse(List.of());
    }

    /** The process and every process it started, itself first. */
    private static List<Long> withDescendants(long pid) {
        List<Long> all = new ArrayList<>();
        all.add(pid);
        all.addAll(descendants(pid));
        return all;
    }

    /** SIGKILL, through the JDK rather than kill(1), so that killing never depends on another program. */
    private static void killNow(List<Long> pids) {
        pids.forEach(p -> ProcessHandle.of(p).ifPresent(ProcessHandle::destroyForcibly));
    }

    /** Sends a signal with kill(1); a process that exited meanwhile is not an error, any other failure is. */
    private static void signal(String signal, List<Long> pids) throws IOException {
        if (pids.isEmpty()) {
            return;
        }
        List<String> command = new ArrayList<>(List.of("kill", "-s", signal));
        pids.forEach(p -> command.add(Long.toString(p)));
        Command.Result result = Command.run(command, null, COMMAND_TIMEOUT);
        boolean onlyGone = result.output().lines().allMatch(line -> line.contains("No such process"));
        if (result.status() != 0 && !onlyGone) {
            throw new IOException("could not send SIG" + signal + " to the PostgreSQL processes " + pids + ": "
                    + result.output().trim());
        }
    }

    private static void awaitGone(List<Long> pids, Duration timeout, String what) throws IOException {
        if (!waitUntilGone(pids, timeout)) {
            List<Long> left = pids.stream().filter(PostgresServer::isLive).collect(Collectors.toList());
            throw new IOException(what + " is still running after " + timeout.toSeconds() + " s: processes " + left);
        }
    }

    private static boolean waitUntilGone(List<Long> pids, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (pids.stream().anyMatch(PostgresServer::isLive)) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            sleep(20);
        }
        return true;
    }

    /**
     * Whether a process exists and is not a zombie: the children of a killed postmaster are re-parented to an init
     * that may never reap them, and a zombie holds no memory nor socket.
     */
    private static boolean isLive(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.UTF_8);
            int end = stat.lastIndexOf(')'); // the command name, in parentheses, may itself hold spaces
            char state = end >= 0 && end + 2 < stat.length() ? stat.charAt(end + 2) : '?';
            return state != 'Z' && state != 'X';
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        }
    }

    private static Object exitValue(Process process) {
        try {
            return process.exitValue();
        } catch (IllegalThreadStateException e) {
            return "unknown";
        }
    }

    private static void sleep(long millis) throws InterruptedIOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    private static InterruptedIOException interrupted(InterruptedException e) {
        Thread.currentThread().interrupt();
        InterruptedIOException io = new InterruptedIOException("interrupted while waiting for PostgreSQL");
        io.initCause(e);
        return io;
    }

    // ---- files ----

    private static String tail(Path file, int lines) {
        try {
            return lastLines(new String(Files.readAllBytes(file), StandardCharsets.UTF_8), lines);
        } catch (IOException e) {
            return "";
        }
    }

    private static String lastLines(String text, int lines) {
        List<String> all = text.lines().collect(Collectors.toList());
        return String.join("\n", all.subList(Math.max(0, all.size() - Math.max(0, lines)), all.size()));
    }

    private static void deleteRecursively(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    // a temporary directory left behind is not worth failing a test for
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // idem
        }
    }

    /** A launch that failed because another process took the port: {@link #start()} tries another one. */
    private static final class PortTakenException extends IOException {
        private static final long serialVersionUID = 1L;

        PortTakenException(String message) {
            super(message);
        }
    }

    /**
     * Who runs {@code initdb} and {@code postgres}: the current user, or when that is root (PostgreSQL refuses to
     * run as root) an unprivileged one, through {@code setpriv} (which execs the program, so that the JVM's child is
     * the postmaster itself).
     */
    private static final class RunAs {
        static final RunAs CURRENT = new RunAs(null, List.of(), null);

        private final String user;
        private final List<String> prefix;
        private final String uidGid;

        private RunAs(String user, List<String> prefix, String uidGid) {
            this.user = user;
            this.prefix = prefix;
            this.uidGid = uidGid;
        }

        static RunAs forCurrentUser() throws IOException {
            if (!"0".equals(Command.run(List.of("id", "-u"), null, COMMAND_TIMEOUT).orThrow("id -u").trim())) {
                return CURRENT;
            }
            for (String user : List.of("postgres", "nobody")) {
                Command.Result uid = Command.run(List.of("id", "-u", user), null, COMMAND_TIMEOUT);
                Command.Result gid = Command.run(List.of("id", "-g", user), null, COMMAND_TIMEOUT);
                if (uid.status() != 0 || gid.status() != 0) {
                    continue;
                }
                String u = uid.output().trim();
                String g = gid.output().trim();
                if (Command.onPath("setpriv").isPresent()) {
                    return new RunAs(user, List.of("setpriv", "--reuid=" + u, "--regid=" + g, "--clear-groups", "--"),
                            u + ":" + g);
                }
                throw new IOException("PostgreSQL does not run as root and setpriv (util-linux) is not on the PATH to "
                        + "run it as " + user + ": apt-get install util-linux");
            }
            throw new IOException("PostgreSQL does not run as root and there is neither a postgres nor a nobody user "
                    + "to run it as");
        }

        List<String> command(List<String> program) {
            List<String> command = new ArrayList<>(prefix);
            command.addAll(program);
            return command;
        }

        /** Gives the directories to the user the server runs as (Java creates temporary directories 0700). */
        void handOver(Path... directories) throws IOException {
            if (uidGid == null) {
                return;
            }
            List<String> command = new ArrayList<>(List.of("chown", uidGid));
            Arrays.stream(directories).forEach(d -> command.add(d.toString()));
            Command.run(command, null, COMMAND_TIMEOUT).orThrow("chown the server's directory to " + user);
        }

        /** Environment of the server's programs: no PG* variable of the caller's, messages in English. */
        void environment(Map<String, String> environment, Path directory) {
            environment.keySet().removeIf(key -> key.startsWith("PG"));
            environment.put("LC_ALL", "C");
            if (user != null) {
                environment.put("HOME", directory.toString());
                environment.put("USER", user);
                environment.put("LOGNAME", user);
            }
        }

        String describe() {
            return user == null ? "" : " (run as the user " + user + ")";
        }
    }

    /** Runs short commands, their output captured. */
    private static final class Command {

        record Result(int status, String output, List<String> command) {
            String orThrow(String what) throws IOException {
                if (status != 0) {
                    throw new IOException("could not " + what + ": " + command.get(0) + " exited with status " + status
                            + (output.isBlank() ? "" : ": " + output.trim()));
                }
                return output;
            }
        }

        static ProcessBuilder builder(List<String> command, Path directory, RunAs runAs) {
            ProcessBuilder builder = new ProcessBuilder(command);
            if (directory != null) {
                builder.directory(directory.toFile());
            }
            (runAs == null ? RunAs.CURRENT : runAs).environment(builder.environment(), directory);
            return builder;
        }

        static Result run(List<String> command, Path directory, Duration timeout) throws IOException {
            Process process = builder(command, directory, null).redirectErrorStream(true).start();
            process.getOutputStream().close();
            CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
                try (InputStream in = process.getInputStream()) {
                    return new String(in.readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    return "";
                }
            });
            try {
                if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly();
                    throw new IOException(command.get(0) + " did not finish within " + timeout.toSeconds() + " s");
                }
                return new Result(process.exitValue(), output.get(timeout.toMillis(), TimeUnit.MILLISECONDS), command);
            } catch (InterruptedException e) {
                process.destroyForcibly();
                throw interrupted(e);
            } catch (ExecutionException | TimeoutException e) {
                return new Result(process.exitValue(), "", command);
            }
        }

        static Optional<Path> onPath(String program) {
            String path = System.getenv("PATH");
            if (path == null) {
                return Optional.empty();
            }
            return Arrays.stream(path.split(File.pathSeparator))
                    .filter(dir -> !dir.isEmpty())
                    .map(dir -> Path.of(dir, program))
                    .filter(Files::isExecutable)
                    .findFirst();
        }
    }
}
