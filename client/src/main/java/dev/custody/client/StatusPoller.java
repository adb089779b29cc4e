package dev.custody.client;

import dev.custody.client.model.SignSubmission;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Polls a long-running request (a web3 signing request, an MPC wallet creation) to a terminal
 * status, per the spec's client rules: the first query at once, then back off from 1 s, ×1.5, up
 * to 10 s, and the last query at the deadline, so the existing request is always queried before the
 * caller is told it timed out ({@link CustodyTimeoutException}). A time-out never resubmits.
 *
 * <p>{@link #submitAndWait} resubmits a signing request once, with the same idempotency key, only
 * when a status query answers 404, that is when the server does not know the request.
 *
 * <p>The poller knows nothing of HTTP: it runs the facade's queries. Thread-safe, provided the
 * clock, the pause and the debug sink are.
 */
final class StatusPoller {
    /** First delay between status polls (spec client rules). */
    static final Duration INITIAL_DELAY = Duration.ofSeconds(1);
    /** Longest delay between status polls. */
    static final Duration MAX_DELAY = Duration.ofSeconds(10);

    private final Clock clock;
    private final Consumer<Duration> pause;
    private final Consumer<String> debug;

    /**
     * @param clock the clock of the deadlines
     * @param pause waits between polls (throws {@link CustodyTransportException} when interrupted)
     * @param debug receives debug lines and redacts them
     */
    StatusPoller(Clock clock, Consumer<Duration> pause, Consumer<String> debug) {
        this.clock = clock;
        this.pause = pause;
        this.debug = debug;
    }

    /**
     * Runs {@code query} until its answer is {@code terminal}.
     *
     * @param what what is polled, for the time-out message ("signing request")
     * @param id the id of what is polled, for the time-out message and exception
     * @param statusOf the status word of an answer, for the time-out message
     * @return the first terminal answer
     * @throws CustodyTimeoutException if the answer queried at the deadline is not terminal
     */
    <S> S poll(String what, String id, Supplier<S> query, Predicate<S> terminal, Function<S, String> statusOf,
            Duration timeout) {
        Instant deadline = clock.instant().plus(timeout);
        Duration delay = INITIAL_DELAY;
        S last = query.get();
        while (!terminal.test(last)) {
            Duration remaining = Duration.between(clock.instant(), deadline);
            if (remaining.isNegative() || remaining.isZero()) {
                String status = statusOf.apply(last);
                throw new CustodyTimeoutException(what + " `" + id + "` is still `" + status + "` after "
                        + timeout.toSeconds() + " s; it was not resubmitted: poll it again later", id, status);
            }
            pause.accept(remaining.compareTo(delay) < 0 ? remaining : delay);
            delay = nextPollDelay(delay);
            last = query.get();
        }
        return last;
    }

    /**
     * Submits with {@code submit} and waits with {@code await}; if {@code await} fails with HTTP 404
     * (the request is unknown to the server), submits once more (the caller's supplier reuses the
     * idempotency key) and waits for that one.
     */
    <S> S submitAndWait(Supplier<SignSubmission> submit, Function<String, S> await) {
        SignSubmission first = submit.get();
        try {
            return await.apply(first.transactionId());
        } catch (CustodyApiException e) {
            if (e.httpStatus() != 404) {
                throw e;
            }
            debug.accept("* signing request `" + first.transactionId() + "` is unknown to the server: "
                    + "resubmitting with the same idempotency key");
            return await.apply(submit.get().transactionId());
        }
    }

    /** The poll delay after {@code delay}: ×1.5, at most 10 s. */
    static Duration nextPollDelay(Duration delay) {
        Duration next = Duration.ofNanos(delay.toNanos() * 3 / 2);
        return next.compareTo(MAX_DELAY) > 0 ? MAX_DELAY : next;
    }
}
