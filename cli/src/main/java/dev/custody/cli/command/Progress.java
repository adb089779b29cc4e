package dev.custody.cli.command;

import java.io.PrintWriter;

/**
 * A progress line on stderr for long streams, only when stderr is a terminal: drawn after the first second,
 * redrawn at most ten times a second, erased when done. With a known size it shows a bar and a percentage,
 * otherwise a count. Not thread-safe.
 */
final class Progress {
    private static final long FIRST_DRAW_NANOS = 1_000_000_000L;
    private static final long REDRAW_NANOS = 100_000_000L;
    private static final int WIDTH = 30;

    private final PrintWriter err;
    private final boolean enabled;
    private final long total;
    private final long start = System.nanoTime();
    private long nextDraw = start + FIRST_DRAW_NANOS;
    private boolean drawn;

    /**
     * @param total expected size in characters, or a value ≤ 0 when unknown (standard input)
     */
    Progress(PrintWriter err, boolean enabled, long total) {
        this.err = err;
        this.enabled = enabled;
        this.total = total;
    }

    /** Called once per line; cheap when not drawing. */
    void update(long count, long done) {
        if (!enabled || (count & 255) != 0) {
            return;
        }
        long now = System.nanoTime();
        if (now - nextDraw < 0) {
            return;
        }
        nextDraw = now + REDRAW_NANOS;
        double seconds = (now - start) / 1e9;
        long rate = Math.round(count / Math.max(seconds, 1e-9));
        StringBuilder s = new StringBuilder("\r");
        if (total > 0) {
            double f = Math.min(1.0, done / (double) total);
            int filled = (int) Math.round(f * WIDTH);
            s.append('[').append("#".repeat(filled)).append(".".repeat(WIDTH - filled)).append("] ")
                    .append(Math.round(f * 100)).append("%  ");
        }
        s.append(count).append(" actions  ").append(rate).append("/s\u001b[K");
        err.print(s);
        err.flush();
        drawn = true;
    }

    /** Erases the progress line. */
    void done() {
        if (drawn) {
            err.print("\r\u001b[K");
            err.flush();
        }
    }
}
