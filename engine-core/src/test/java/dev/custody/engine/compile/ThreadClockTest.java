package dev.custody.engine.compile;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@link ThreadClock#passed} answers what a reading of the CPU clock would, and a {@link ThreadClock#deadline} is
 * at least the budget away and at most {@link ThreadClock#RESYNC_NANOS} more (no timing asserted beyond that: the
 * thread's own CPU time only moves forward).
 */
class ThreadClockTest {
    @Test
    void aDeadlineInThePastHasPassedAndOneFarAheadHasNot() {
        long now = ThreadClock.now();
        assertTrue(ThreadClock.passed(now - 1));
        assertFalse(ThreadClock.passed(now + 3_600_000_000_000L));
        // a deadline set from the cheap bound, an hour ahead, has not passed either
        assertFalse(ThreadClock.passed(ThreadClock.deadline(3_600_000_000_000L)));
    }

    @Test
    void aDeadlineIsAtLeastTheBudgetAwayAndAtMostTheResyncIntervalMore() {
        for (int i = 0; i < 1000; i++) {
            long before = ThreadClock.now();
            long deadline = ThreadClock.deadline(1_000_000L);
            long after = ThreadClock.now();
            assertTrue(deadline - before >= 1_000_000L, "deadline before the budget");
            // the bound is at most RESYNC_NANOS of wall-clock time past the last reading, which was `before`, plus
            // the wall-clock time between the two calls; CPU time since `before` is what `after` adds
            assertTrue(deadline - after <= 1_000_000L + ThreadClock.RESYNC_NANOS, "deadline too far");
        }
    }

    @Test
    void aZeroBudgetPassesOnceTheThreadHasWorked() {
        long deadline = ThreadClock.deadline(0);
        long spin = 0;
        // work until the CPU clock has moved past the deadline: passed() must then say so, whatever the bound said
        while (ThreadClock.now() - deadline <= 0) {
            spin++;
        }
        assertTrue(ThreadClock.passed(deadline), "after " + spin + " reads");
    }
}
