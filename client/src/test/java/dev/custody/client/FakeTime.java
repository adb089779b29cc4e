package dev.custody.client;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/** A clock that only moves when the paired sleeper "sleeps"; records every sleep. */
public final class FakeTime extends Clock implements Sleeper {
    private Instant now;
    private final List<Duration> sleeps = new ArrayList<>();

    public FakeTime(long epochSeconds) {
        this.now = Instant.ofEpochSecond(epochSeconds);
    }

    @Override
    public synchronized void sleep(Duration duration) {
        sleeps.add(duration);
        now = now.plus(duration);
    }

    public synchronized List<Duration> sleeps() {
        return List.copyOf(sleeps);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public synchronized Instant instant() {
        return now;
    }
}
