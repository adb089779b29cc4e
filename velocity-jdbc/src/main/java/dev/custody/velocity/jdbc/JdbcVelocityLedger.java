package dev.custody.velocity.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.custody.engine.velocity.Settlement;
import dev.custody.engine.velocity.Velocity;
import dev.custody.engine.velocity.VelocityException;
import dev.custody.engine.velocity.VelocityLedger;
import dev.custody.engine.velocity.VelocitySource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * A durable {@link VelocitySource}: the velocity ledger on a SQL database, SQLite (embedded, the default) or
 * PostgreSQL (several replicas of one service on one database), with exactly the meaning of the in-memory
 * {@link VelocityLedger} (docs/design.md §18): the same window bounds {@code (t - W, t]}, the same lateness
 * tolerance and refusal, the same watermark (the latest instant seen in a record or a query: the data's own time,
 * never the machine's clock), the same rounding to micro-dollars, instants kept to the nanosecond. Given the same
 * calls in the same order it gives the same figures, which the tests check against {@code VelocityLedger} on both
 * databases.
 *
 * <pre>{@code
 * JdbcVelocityLedger ledger = JdbcVelocityLedger.builder(dataSource).lateness(Duration.ofHours(1)).build();
 * // deciding a withdrawal: its figures before it, and its attempt, in one step, once per action id
 * JdbcVelocityLedger.Attempted a = ledger.attempt(action.id(), workspaceId, walletId, networkCode, at);
 * // a withdrawal reached a terminal state
 * ledger.recordSettlement(settlement);
 * }</pre>
 *
 * <h2>Durability and idempotency</h2>
 * Every call returns after the transaction that holds its work has committed: an attempt or a settlement that was
 * acknowledged survives a {@code kill -9} of the process (and, with SQLite's {@code synchronous=FULL} and
 * PostgreSQL's default {@code synchronous_commit}, a power loss). An attempt with an action id is recorded once:
 * a retry (another call with the same id, from any thread or replica, even while the first is in flight) records
 * nothing and is answered with the figures the first one was given, so it is decided alike. A settlement with an
 * {@code id} is recorded once; one without is recorded every time it is given.
 *
 * <h2>Group commit</h2>
 * Calls from all threads go through one queue to one committer thread, which applies what is queued (up to
 * {@link Builder#maxBatch} operations) in one transaction, in arrival order, and then answers each caller: many
 * concurrent calls share one commit (one fsync). The operations of one {@link #apply} call stay together and in
 * order, so a batch of actions is decided as a replay would decide them, each seeing the attempts before it. On
 * PostgreSQL each transaction first takes one advisory lock, so the transactions of every replica form one order.
 *
 * <h2>Failure</h2>
 * A call that cannot be answered within {@link Builder#timeout} (default 2 s), or whose transaction fails (the
 * database down, a connection lost), throws {@link VelocityException}: the caller denies, fail-closed. Nothing of
 * a failed transaction is recorded; a call that timed out may still be recorded afterwards, as an attempt of a
 * denied action (attempts count whatever became of them). While the database fails, calls fail at once and the
 * committer tries the database again every 250 ms; {@link #available()} says whether the last try succeeded.
 *
 * <h2>Schema and retention</h2>
 * The ledger creates and migrates its own tables (all named {@code velocity_*}; versions in {@code velocity_schema},
 * docs/design.md §18). Every figure is answered from index seeks on running sums: two per window, whatever the
 * number of rows. Rows that no longer fall in any window the ledger answers for (older than 24 h + lateness for
 * outflow and ids, 1 h + lateness for attempts, measured against the watermark) are deleted as the watermark
 * moves on.
 *
 * <p>Thread-safe. {@link #close()} answers what is queued and stops the committer (and closes the pool when the
 * ledger built it).
 */
public final class JdbcVelocityLedger implements VelocitySource, AutoCloseable {
    /** The default longest wait of a call for its commit. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
    /** The default most operations in one transaction. */
    public static final int DEFAULT_MAX_BATCH = 512;

    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    private static final long PROBE_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final int MAX_QUEUED = 100_000;
    /** SQLite's result code for a database held by another connection. */
    private static final int SQLITE_BUSY = 5;

    private final DataSource dataSource;
    private final AutoCloseable owned;
    private final Duration lateness;
    private final Duration timeout;
    private final int maxBatch;
    private final boolean powerLossSafe;
    private final LinkedBlockingQueue<Unit> queue = new LinkedBlockingQueue<>(MAX_QUEUED);
    private final Thread committer;
    private volatile boolean available;
    private volatile String lastError = "the database has not been reached yet";
    private volatile Dialect dialect;
    private volatile boolean closed;
    // committer thread only
    private LedgerConnection connection;
    private long lastTry = System.nanoTime() - PROBE_NANOS;

    private JdbcVelocityLedger(Builder b) {
        this.dataSource = b.dataSource;
        this.owned = b.owned;
        this.lateness = b.lateness;
        this.timeout = b.timeout;
        this.maxBatch = b.maxBatch;
        this.powerLossSafe = b.powerLossSafe;
        this.committer = new Thread(this::commitLoop, "custody-velocity-ledger");
        committer.setDaemon(true);
        committer.start();
    }

    /** A builder of a ledger over the caller's {@link DataSource}, which the ledger does not close. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(Objects.requireNonNull(dataSource, "dataSource"), null);
    }

    /**
     * A builder of a ledger over its own connection pool (HikariCP) for a URL: {@code jdbc:sqlite:PATH} or a plain
     * file path (SQLite), or {@code jdbc:postgresql://HOST:PORT/DB?user=…} (PostgreSQL). The pool connects lazily,
     * so a database that is down at start delays nothing; the ledger closes the pool.
     *
     * @throws IllegalArgumentException for another kind of {@code jdbc:} URL
     */
    public static Builder builder(String url) {
        String jdbc = jdbcUrl(url);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbc);
        config.setPoolName("custody-velocity-ledger");
        config.setInitializationFailTimeout(-1);
        config.setConnectionTimeout(2_000);
        config.setValidationTimeout(1_000);
        config.setAutoCommit(false);
        if (jdbc.startsWith("jdbc:sqlite:")) {
            // one writer: the committer's connection is all the ledger uses
            config.setMaximumPoolSize(1);
        } else {
            config.setMaximumPoolSize(2);
            config.addDataSourceProperty("connectTimeout", "2");
            config.addDataSourceProperty("loginTimeout", "2");
            config.addDataSourceProperty("socketTimeout", "10");
            config.addDataSourceProperty("tcpKeepAlive", "true");
            // a JDBC batch of inserts goes out as multi-row inserts
            config.addDataSourceProperty("reWriteBatchedInserts", "true");
        }
        HikariDataSource pool = new HikariDataSource(config);
        return new Builder(pool, pool);
    }

    /**
     * The JDBC URL of a {@code --ledger} argument: a {@code jdbc:sqlite:} or {@code jdbc:postgresql:} URL as it is, a
     * plain path as {@code jdbc:sqlite:PATH}.
     *
     * @throws IllegalArgumentException for another kind of {@code jdbc:} URL, or an empty one
     */
    public static String jdbcUrl(String url) {
        Objects.requireNonNull(url, "url");
        if (url.isBlank()) {
            throw new IllegalArgumentException("the ledger URL is empty");
        }
        if (url.startsWith("jdbc:sqlite:") || url.startsWith("jdbc:postgresql:")) {
            return url;
        }
        if (url.startsWith("jdbc:")) {
            throw new IllegalArgumentException("unsupported ledger URL `" + url + "`: use jdbc:sqlite:PATH, a plain path "
                    + "(SQLite) or jdbc:postgresql://HOST:PORT/DATABASE");
        }
        return "jdbc:sqlite:" + url;
    }

    // ---- operations ----------------------------------------------------------------------------------------------

    /** One thing to do in the ledger, for {@link #apply}. */
    public sealed interface Operation permits Query, RecordAttempt, RecordSettlement {}

    /**
     * The figures as of {@code at}: {@link VelocitySource#velocity}. A query moves the watermark, as the in-memory
     * ledger's does.
     */
    public record Query(String workspaceId, String walletId, String networkCode, Instant at) implements Operation {
        public Query {
            Objects.requireNonNull(workspaceId, "workspaceId");
            Objects.requireNonNull(walletId, "walletId");
            Objects.requireNonNull(networkCode, "networkCode");
            Objects.requireNonNull(at, "at");
        }
    }

    /**
     * A withdrawal attempt: its figures as of {@code at} (before it: an action never counts itself), then the attempt
     * itself, in one step. With an {@code actionId}, recorded once ({@link Attempted#retry()}).
     *
     * @param actionId the action's id, or null for an attempt that is recorded every time
     * @param networkCode the network, or null to record no per-network attempt (the figures then have zero network
     *     figures)
     */
    public record RecordAttempt(String actionId, String workspaceId, String walletId, String networkCode, Instant at)
            implements Operation {
        public RecordAttempt {
            Objects.requireNonNull(workspaceId, "workspaceId");
            Objects.requireNonNull(walletId, "walletId");
            Objects.requireNonNull(at, "at");
        }
    }

    /** A settlement: realized outflow when executed or success; with an {@code id}, recorded once. */
    public record RecordSettlement(Settlement settlement) implements Operation {
        public RecordSettlement {
            Objects.requireNonNull(settlement, "settlement");
        }
    }

    /** What an operation gave. */
    public sealed interface Outcome permits Figures, Attempted, Settled {}

    /**
     * Figures, or why they cannot be given: exactly one of the two is non-null. A refusal is what
     * {@link VelocityLedger#velocity} would throw: an instant more than the lateness before the watermark, or out
     * of the supported range.
     */
    public record Figures(Velocity velocity, String refusal) implements Outcome {
        public Figures {
            if ((velocity == null) == (refusal == null)) {
                throw new IllegalArgumentException("figures have either a velocity or a refusal");
            }
        }

        static Figures of(Velocity v) {
            return new Figures(v, null);
        }

        static Figures refused(String message) {
            return new Figures(null, message);
        }

        /** Whether the figures were refused. */
        public boolean refused() {
            return refusal != null;
        }
    }

    /**
     * What an attempt gave.
     *
     * @param retry whether its action id had already been recorded: nothing was recorded now, and {@code figures}
     *     are those the first attempt was given
     * @param figures the figures before the attempt (or its refusal); null only with a {@code conflict}
     * @param conflict non-null when the attempt cannot be recorded as given: its id had been recorded for another
     *     withdrawal (its wallet, workspace or network differ; a retry's instant may differ, it is answered as of the
     *     first), or an id or key cannot be held (a NUL, a lone surrogate, over 512 characters). Nothing was recorded,
     *     and the action must be denied
     * @param recorded whether an attempt was counted now (false for a retry, a conflict, and an attempt too old to
     *     fall in any window, which the in-memory ledger drops too)
     */
    public record Attempted(boolean retry, Figures figures, String conflict, boolean recorded) implements Outcome {
        public Attempted {
            if ((figures == null) == (conflict == null)) {
                throw new IllegalArgumentException("an attempt has either figures or a conflict");
            }
        }
    }

    /**
     * What a settlement gave.
     *
     * @param status what became of it
     * @param refusal why it was refused, for {@link Status#REFUSED}; else null
     */
    public record Settled(Status status, String refusal) implements Outcome {
        public Settled {
            Objects.requireNonNull(status, "status");
        }

        /** What became of a settlement. */
        public enum Status {
            /** Recorded (a {@code failed} one realizes nothing, but its id is remembered). */
            RECORDED,
            /** Its id had been recorded: nothing was recorded now. */
            DUPLICATE,
            /**
             * Older than any window the ledger still answers for (24 h + lateness before the watermark): it could
             * change no figure the ledger can still give, and was not recorded, as the in-memory ledger drops it.
             */
            TOO_OLD,
            /** The running sums of its keys would overflow ({@code refusal} says which); nothing was recorded. */
            REFUSED,
            /**
             * Its id had been recorded with other content (keys, value, status or instant; {@code refusal} says what):
             * nothing was recorded. A settlement id names one settlement; a second state of one withdrawal under the
             * same id is refused, never silently ignored.
             */
            CONFLICT
        }
    }

    /**
     * Applies the operations in order, in one transaction, and returns their outcomes in the same order, once
     * committed.
     *
     * @throws IllegalArgumentException when a settlement's value or instant is out of the ledger's range, or one of
     *     its ids cannot be held (a NUL, a lone surrogate, over 512 characters); checked before anything is recorded.
     *     An attempt with such an id is refused alone (its {@link Attempted#conflict()}).
     * @throws VelocityException when the ledger cannot answer (database down, time-out, closed): nothing may be
     *     assumed recorded
     */
    public List<Outcome> apply(List<? extends Operation> operations) {
        List<Operation> ops = List.copyOf(operations);
        for (Operation op : ops) {
            if (op instanceof RecordSettlement s) {
                VelocityLedger.epochNanos(s.settlement().at());
                VelocityLedger.microDollars(s.settlement().valueUsd());
                Settlement st = s.settlement();
                for (String text : new String[] {st.id(), st.workspaceId(), st.walletId(), st.networkCode()}) {
                    String problem = text == null ? null : LedgerText.problem(text);
                    if (problem != null) {
                        throw new IllegalArgumentException(problem);
                    }
                }
            }
        }
        if (ops.isEmpty()) {
            return List.of();
        }
        @SuppressWarnings("unchecked")
        List<Outcome> out = (List<Outcome>) submit(new Unit(ops, null));
        return out;
    }

    /**
     * The figures as of {@code at} ({@link VelocitySource}).
     *
     * @throws VelocityException when they are refused (too far before the watermark) or the ledger cannot answer
     * @throws IllegalArgumentException when {@code at} is outside 1970–2200
     */
    @Override
    public Velocity velocity(String workspaceId, String walletId, String networkCode, Instant at) {
        VelocityLedger.epochNanos(at);
        Figures f = (Figures) apply(List.of(new Query(workspaceId, walletId, networkCode, at))).get(0);
        if (f.refused()) {
            throw new VelocityException(f.refusal());
        }
        return f.velocity();
    }

    /**
     * A withdrawal attempt: its figures before it and the attempt, atomically (see {@link RecordAttempt}).
     *
     * @throws VelocityException when the ledger cannot answer
     */
    public Attempted attempt(String actionId, String workspaceId, String walletId, String networkCode, Instant at) {
        return (Attempted) apply(List.of(new RecordAttempt(actionId, workspaceId, walletId, networkCode, at))).get(0);
    }

    /**
     * A {@link VelocitySource} that records the attempt of action {@code actionId} when asked: its answer is
     * {@link #attempt}'s figures (those before the attempt; a retry's are the first attempt's). Give it to
     * {@code WithdrawalActions} so that building a withdrawal's action records its attempt in the same durable step:
     * <pre>{@code
     * Action action = WithdrawalActions.builder().addressBook(addressBook).velocity(ledger.attempting(requestId))
     *         .build().action(requestId, workspaceId, walletId, principal, request);
     * }</pre>
     * Its {@code velocity} throws {@link VelocityException} when the figures are refused (an instant more than the
     * lateness before the watermark), when the id was recorded for another withdrawal, and when the ledger cannot
     * answer: the caller denies.
     */
    public VelocitySource attempting(String actionId) {
        Objects.requireNonNull(actionId, "actionId");
        return (workspaceId, walletId, networkCode, at) -> {
            Attempted a = attempt(actionId, workspaceId, walletId, networkCode, at);
            if (a.conflict() != null) {
                throw new VelocityException(a.conflict());
            }
            if (a.figures().refused()) {
                throw new VelocityException(a.figures().refusal());
            }
            return a.figures().velocity();
        };
    }

    /**
     * Records an attempt without an id (counted every time), as {@link VelocityLedger#recordAttempt}.
     *
     * @throws IllegalArgumentException when {@code at} is outside 1970–2200
     * @throws VelocityException when the ledger cannot answer
     */
    public void recordAttempt(String workspaceId, String walletId, String networkCode, Instant at) {
        VelocityLedger.epochNanos(at);
        attempt(null, workspaceId, walletId, networkCode, at);
    }

    /**
     * Records a settlement (once, when it has an {@code id}).
     *
     * @throws IllegalArgumentException when its value or instant is out of the ledger's range
     * @throws VelocityException when the ledger cannot answer
     */
    public Settled recordSettlement(Settlement settlement) {
        return (Settled) apply(List.of(new RecordSettlement(settlement))).get(0);
    }

    /** The latest instant seen in a record or a query, or empty before the first one. */
    public Optional<Instant> watermark() {
        long w = state()[0];
        return w == Long.MIN_VALUE ? Optional.empty() : Optional.of(Instant.EPOCH.plusNanos(w));
    }

    /** Records dropped because they were too old to fall in any window the ledger still answers for. */
    public long droppedRecords() {
        return state()[1];
    }

    /** Rows held in the entry tables: three per realized settlement and per attempt, until they expire. */
    public long retainedEntries() {
        return (Long) submit(new Unit(null, c -> {
            try {
                return c.retainedEntries();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }));
    }

    private long[] state() {
        return (long[]) submit(new Unit(null, c -> {
            try {
                return c.state();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }));
    }

    /** Whether the last use of the database (a transaction, or the committer's probe) succeeded. */
    public boolean available() {
        return available;
    }

    /** Why the ledger is unavailable, as one line; or the last failure it recovered from. */
    public String lastError() {
        return lastError;
    }

    /**
     * Waits until the database has answered once (the schema is then in place), up to {@code wait}.
     *
     * @return whether it is available
     */
    public boolean awaitAvailable(Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (!available && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return available;
    }

    /** The lateness tolerance. */
    public Duration lateness() {
        return lateness;
    }

    /** {@code sqlite} or {@code postgresql} once the database has answered; empty before. */
    public Optional<String> database() {
        Dialect d = dialect;
        return d == null ? Optional.empty() : Optional.of(d.toString());
    }

    /** Answers what is queued (up to the time-out), stops the committer, closes the pool the ledger built. */
    @Override
    public void close() {
        closed = true;
        try {
            committer.join(timeout.toMillis() + 1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        committer.interrupt();
        if (owned != null) {
            try {
                owned.close();
            } catch (Exception ignored) {
                // closing the pool of a ledger that is going away
            }
        }
    }

    // ---- the committer -------------------------------------------------------------------------------------------

    /** The work of one call: operations, or a task on the committer's connection. */
    private static final class Unit {
        final List<Operation> ops;
        final Function<LedgerConnection, Object> task;
        final CompletableFuture<Object> done = new CompletableFuture<>();

        Unit(List<Operation> ops, Function<LedgerConnection, Object> task) {
            this.ops = ops;
            this.task = task;
        }
    }

    private Object submit(Unit u) {
        if (closed) {
            throw new VelocityException("the velocity ledger is closed");
        }
        if (!queue.offer(u)) {
            throw new VelocityException("the velocity ledger is overloaded: " + MAX_QUEUED + " calls are waiting");
        }
        try {
            return u.done.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            u.done.cancel(false);
            String message = "the velocity ledger did not answer within " + timeout.toMillis() + " ms"
                    + (available ? "" : ": " + lastError);
            // a database that hangs is unavailable from now until the committer's next success
            available = false;
            lastError = message;
            throw new VelocityException(message);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof VelocityException v) {
                throw new VelocityException(v.getMessage(), v);
            }
            throw new VelocityException("the velocity ledger failed: " + oneLine(cause), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VelocityException("interrupted while waiting for the velocity ledger");
        }
    }

    private void commitLoop() {
        List<Unit> batch = new ArrayList<>();
        while (true) {
            Unit first;
            try {
                first = queue.poll(available ? PROBE_NANOS : RETRY_NANOS, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                first = null;
                if (!closed) {
                    continue;
                }
            }
            if (first == null) {
                if (closed) {
                    break;
                }
                probe();
                continue;
            }
            batch.clear();
            batch.add(first);
            int ops = first.ops == null ? 1 : first.ops.size();
            for (Unit next = queue.peek(); next != null && first.task == null && next.task == null
                    && ops + next.ops.size() <= maxBatch; next = queue.peek()) {
                batch.add(queue.poll());
                ops += next.ops.size();
            }
            run(batch);
        }
        failAll(new VelocityException("the velocity ledger is closed"));
        closeConnection();
    }

    private void run(List<Unit> batch) {
        batch.removeIf(u -> u.done.isDone()); // callers that gave up
        if (batch.isEmpty()) {
            return;
        }
        if (!available && System.nanoTime() - lastTry < RETRY_NANOS) {
            fail(batch, new VelocityException("the velocity ledger is unavailable: " + lastError));
            return;
        }
        lastTry = System.nanoTime();
        try {
            LedgerConnection c = connection();
            if (batch.get(0).task != null) {
                Object result = batch.get(0).task.apply(c);
                available = true;
                batch.get(0).done.complete(result);
                return;
            }
            List<Operation> all = new ArrayList<>();
            for (Unit u : batch) {
                all.addAll(u.ops);
            }
            List<Outcome> outcomes = c.run(all);
            available = true;
            int from = 0;
            for (Unit u : batch) {
                u.done.complete(List.copyOf(outcomes.subList(from, from + u.ops.size())));
                from += u.ops.size();
            }
        } catch (SQLException | RuntimeException e) {
            failed(e);
            fail(batch, e instanceof VelocityException v ? v
                    : new VelocityException("the velocity ledger is unavailable: " + lastError, e));
        } catch (Error e) {
            // a defect or an exhausted JVM: the callers are answered (and deny), the committer lives on
            failed(new IllegalStateException(oneLine(e), e));
            fail(batch, new VelocityException("the velocity ledger failed: " + lastError, e));
        }
    }

    private void probe() {
        if (available && System.nanoTime() - lastTry < PROBE_NANOS) {
            return;
        }
        lastTry = System.nanoTime();
        try {
            connection().ping();
            available = true;
        } catch (SQLException | RuntimeException e) {
            failed(e);
        } catch (Error e) {
            failed(new IllegalStateException(oneLine(e), e));
        }
    }

    private void failed(Exception e) {
        available = false;
        lastError = e instanceof VelocityException ? e.getMessage() : oneLine(e);
        if (connection != null) {
            connection.rollbackQuietly();
        }
        closeConnection();
    }

    private LedgerConnection connection() throws SQLException {
        if (connection == null) {
            Connection c = dataSource.getConnection();
            try {
                Dialect d = Dialect.of(c);
                connection = setUp(c, d);
                dialect = d;
            } catch (SQLException | RuntimeException e) {
                try {
                    c.close();
                } catch (SQLException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
        }
        return connection;
    }

    /**
     * Configures the connection and migrates the schema, trying again for up to a second when another process or
     * ledger holds the database at that moment: two SQLite ledgers opening a new file at once contend for its switch
     * to WAL mode, which SQLite answers SQLITE_BUSY at once, without waiting out its busy time-out.
     */
    private LedgerConnection setUp(Connection c, Dialect d) throws SQLException {
        for (int tries = 1;; tries++) {
            try {
                return new LedgerConnection(c, d, lateness, powerLossSafe);
            } catch (SQLException e) {
                // SQLite's result code, primary part (extended codes such as SQLITE_BUSY_SNAPSHOT keep it in the low byte)
                if (tries == 20 || d != Dialect.SQLITE || (e.getErrorCode() & 0xff) != SQLITE_BUSY) {
                    throw e;
                }
                try {
                    c.rollback();
                } catch (SQLException ignored) {
                    // not in a transaction
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private void closeConnection() {
        if (connection != null) {
            connection.close();
            connection = null;
        }
    }

    private void fail(List<Unit> batch, VelocityException e) {
        for (Unit u : batch) {
            u.done.completeExceptionally(e);
        }
    }

    private void failAll(VelocityException e) {
        for (Unit u; (u = queue.poll()) != null;) {
            u.done.completeExceptionally(e);
        }
    }

    private static String oneLine(Throwable t) {
        String m = t.getMessage();
        String line = m == null ? t.getClass().getSimpleName() : m.lines().findFirst().orElse(m);
        // "Connection refused" reads as the rest of a message; "ERROR: …" and "SQL error" keep their capitals
        boolean word = line.length() > 1 && Character.isUpperCase(line.charAt(0)) && Character.isLowerCase(line.charAt(1));
        return word ? Character.toLowerCase(line.charAt(0)) + line.substring(1) : line;
    }

    /** Builds a {@link JdbcVelocityLedger}. Not thread-safe; the ledger it builds is. */
    public static final class Builder {
        private final DataSource dataSource;
        private final AutoCloseable owned;
        private Duration lateness = VelocityLedger.DEFAULT_LATENESS;
        private Duration timeout = DEFAULT_TIMEOUT;
        private int maxBatch = DEFAULT_MAX_BATCH;
        private boolean powerLossSafe = true;

        private Builder(DataSource dataSource, AutoCloseable owned) {
            this.dataSource = dataSource;
            this.owned = owned;
        }

        /**
         * How far before the watermark a record is still counted exactly and a query still answered, as
         * {@link VelocityLedger.Builder#lateness}: zero or positive, at most 24 hours; default 5 minutes.
         */
        public Builder lateness(Duration lateness) {
            Objects.requireNonNull(lateness, "lateness");
            if (lateness.isNegative() || lateness.compareTo(Duration.ofHours(24)) > 0) {
                throw new IllegalArgumentException("lateness must be between 0 and 24 hours, got " + lateness);
            }
            this.lateness = lateness;
            return this;
        }

        /** The longest a call waits for its commit before it throws; positive; default 2 s. */
        public Builder timeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive, got " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /** The most operations in one transaction (a single call's are never split); at least 1; default 512. */
        public Builder maxBatch(int operations) {
            if (operations < 1) {
                throw new IllegalArgumentException("maxBatch must be at least 1, got " + operations);
            }
            this.maxBatch = operations;
            return this;
        }

        /**
         * SQLite only: whether each commit is fsynced before the call returns ({@code synchronous=FULL}, the default:
         * an answered attempt survives the process's {@code kill -9} and the machine's power loss) or only written to
         * the operating system ({@code synchronous=NORMAL} in WAL mode, fsynced at checkpoints: it survives
         * {@code kill -9}, not a power loss; measured in cli/BENCHMARKS.md). PostgreSQL follows its server's
         * {@code synchronous_commit}.
         */
        public Builder powerLossSafe(boolean fsyncEachCommit) {
            this.powerLossSafe = fsyncEachCommit;
            return this;
        }

        /** The ledger; its committer starts now and reaches the database at once, in the background. */
        public JdbcVelocityLedger build() {
            return new JdbcVelocityLedger(this);
        }
    }

    @Override
    public String toString() {
        Dialect d = dialect;
        return "JdbcVelocityLedger[" + (d == null ? "not connected" : d.toString().toLowerCase(Locale.ROOT)) + "]";
    }
}
