package dev.custody.engine.check;

import dev.custody.engine.payload.Action;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.custody.engine.Fixtures;
import dev.custody.engine.schema.FieldSchema;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** {@code context.*} is computed arithmetically from the instant; java.time is the reference. */
class PayloadContextTest {
    private static final long FIRST = LocalDateTime.MIN.toEpochSecond(ZoneOffset.UTC);
    private static final long LAST = LocalDateTime.MAX.toEpochSecond(ZoneOffset.UTC);

    @Property(tries = 500)
    void hourAndWeekdayMatchJavaTime(@ForAll("dated") long seconds) {
        assertContext(Instant.ofEpochSecond(seconds));
    }

    @Provide
    Arbitrary<Long> dated() {
        return Arbitraries.oneOf(Arbitraries.longs().between(FIRST, LAST),
                Arbitraries.longs().between(-5_000_000_000L, 5_000_000_000L));
    }

    @Test
    void edgesMatchJavaTime() {
        for (long s : new long[] {0, -1, 1, 3599, 3600, 86_399, 86_400, -86_400, -86_401, FIRST, LAST,
                Fixtures.TUESDAY_14H.getEpochSecond()}) {
            assertContext(Instant.ofEpochSecond(s));
        }
        assertContext(Instant.ofEpochSecond(LAST, 999_999_999));
    }

    @Test
    void theFirstAndLastDatedInstantsAreValidAndTheirNeighboursAreNot() {
        Action a = Fixtures.withdrawal(1).build();
        assertInstanceOf(PayloadResult.Valid.class, PayloadValidator.validate(a.withAt(Instant.ofEpochSecond(FIRST)), Instant.EPOCH));
        assertInstanceOf(PayloadResult.Valid.class,
                PayloadValidator.validate(a.withAt(Instant.ofEpochSecond(LAST, 999_999_999)), Instant.EPOCH));
        assertInstanceOf(PayloadResult.Invalid.class,
                PayloadValidator.validate(a.withAt(Instant.ofEpochSecond(FIRST).minusNanos(1)), Instant.EPOCH));
        assertInstanceOf(PayloadResult.Invalid.class,
                PayloadValidator.validate(a.withAt(Instant.ofEpochSecond(LAST + 1)), Instant.EPOCH));
    }

    private static void assertContext(Instant at) {
        ZonedDateTime utc = at.atZone(ZoneOffset.UTC);
        assertEquals(Map.of("hour", (long) utc.getHour(),
                "day_of_week", FieldSchema.DAYS_OF_WEEK.get(utc.getDayOfWeek().getValue() - 1)),
                PayloadValidator.context(at), at.toString());
    }
}
