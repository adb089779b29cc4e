package dev.custody.client;

import java.time.Duration;

/**
 * Waits between retries and status polls. Production code uses {@link #SYSTEM}; tests inject a
 * sleeper that advances a fake clock, so no test really sleeps.
 *
 * <p>Implementations must be thread-safe if the client is shared between threads.
 */
@FunctionalInterface
public interface Sleeper {
    /** Sleeps with {@link Thread#sleep(long)}. */
    Sleeper SYSTEM = duration -> Thread.sleep(duration.toMillis());

    /**
     * Waits for {@code duration}.
     *
     * @throws InterruptedException if the waiting thread is interrupted
     */
    void sleep(Duration duration) throws InterruptedException;
}
