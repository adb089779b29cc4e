package dev.custody.cli.command.api;

import dev.custody.client.Sleeper;
import java.time.Clock;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What the {@code api} commands take from the outside world: environment variables
 * ({@code CUSTODY_BASE_URL}, {@code CUSTODY_API_KEY}, {@code CUSTODY_API_SECRET}), the clock of
 * request timestamps and poll deadlines, the sleeper between polls, and the source of idempotency
 * keys. Tests inject fakes; {@link #system()} is the real thing.
 *
 * <p>Immutable; thread-safe if its functions are.
 */
public record ApiEnvironment(
        Function<String, String> env,
        Clock clock,
        Sleeper sleeper,
        Supplier<String> idempotencyKeys) {

    public ApiEnvironment {
        Objects.requireNonNull(env, "env");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(sleeper, "sleeper");
        Objects.requireNonNull(idempotencyKeys, "idempotencyKeys");
    }

    /** Process environment, system UTC clock, real sleeps, random UUID keys. */
    public static ApiEnvironment system() {
        return new ApiEnvironment(System::getenv, Clock.systemUTC(), Sleeper.SYSTEM,
                () -> UUID.randomUUID().toString());
    }
}
