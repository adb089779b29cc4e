package dev.custody.cli.command;

import dev.custody.engine.Decision;
import dev.custody.engine.replay.ActionStream;
import dev.custody.engine.replay.Replayer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Replays a stream on every core while keeping its order and bounding its memory.
 *
 * <h2>Design</h2>
 * The stream is cut into batches of {@value #BATCH} lines, and each batch goes through four stages:
 * <ol>
 *   <li><b>parse</b> (pool): JSON lines (bytes, as read) to actions, malformed lines and event records; an action
 *       whose decision the order of the stream cannot change is decided here ({@link Replayer#read}), while it is
 *       still in the cache of the thread that read it;
 *   <li><b>sequence</b> (this thread, stream order): everything that depends on the order of the stream
 *       ({@link Replayer#sequence}): settlements are applied to the velocity ledger, withdrawals get their
 *       velocity sections, and each action's workspace bundle is loaded (and reported on stderr when invalid);
 *   <li><b>decide and render</b> (pool): the other decisions, all rendered to text or UTF-8 JSON in a per-batch
 *       buffer (JSON records of what the parse stage decided are rendered there, and only copied here);
 *   <li><b>write</b> (this thread, stream order): the buffer to the output, the counts to the summary.
 * </ol>
 * Decisions are pure functions of the action and the bundle, so deciding batches in parallel cannot change
 * them; whatever depends on order stays in the sequence stage, which is where a velocity ledger belongs. At
 * most {@value #DEPTH} batches wait in each pooled stage (twice that for parsing, when this thread parses too
 * rather than wait: see {@link #help}), so memory does not grow with the stream.
 *
 * <p>One instance per replay; used from one thread.
 */
final class ReplayPipeline implements AutoCloseable {
    /**
     * Lines per batch. What is in flight (up to {@code 3 ×} {@value #DEPTH} batches, actions read and decided) is
     * what a young collection copies: on the 2 GB stream with {@code -Xmx256m}, 1,024 lines a batch kept 120 MB
     * alive and took twice as long (238 collections, 2.1 s of pauses on 1,000,000 actions), while 128 took 3 to 4%
     * less time than 256 (124 against 180 ms of pauses), and 64 no less than 128.
     */
    static final int BATCH = 128;
    static final int DEPTH = 8;

    /**
     * Order-dependent work on a parsed batch ({@link Replayer#sequence}): an action may come out completed,
     * e.g. with velocity sections, a bad event as a malformed line, and an action that had to be decided in
     * order with its decision.
     */
    interface Sequencer {
        List<Replayer.Step> sequence(List<Replayer.Step> lines);
    }

    /**
     * What the pool makes of a batch as soon as it is parsed ({@link Replayer#read} on each line, and the records
     * of what that decided); must be thread-safe.
     */
    interface Reader {
        Parsed read(List<ActionStream.Line> lines);
    }

    /**
     * A batch out of the parse stage: its steps and, for those decided on read, their records already rendered
     * (the record alone; the render stage writes the separators, as for every record):
     * step {@code i}'s is {@code bytes[start[i]..end[i])} when {@code start[i] >= 0}.
     */
    record Parsed(List<Replayer.Step> steps, byte[] bytes, int[] start, int[] end) {
        /** Whether step {@code i} came out of the in-order stage as it went in (so its record stands). */
        boolean rendered(int i, Replayer.Step sequenced) {
            return start != null && start[i] >= 0 && sequenced == steps.get(i);
        }
    }

    /** Decides and renders a batch (what its parse stage has not); runs on the pool, so it must be thread-safe. */
    interface Renderer {
        Rendered render(List<Replayer.Step> batch, Parsed parsed);
    }

    /** Writes a rendered batch, in stream order. */
    interface Writer {
        void write(Rendered batch) throws IOException;
    }

    /**
     * A decided batch: its lines, their decisions (null where a line is not an action), and what it renders to:
     * {@code text}, or (JSON records, when {@code text} is null) the first {@code size} bytes of {@code bytes} in
     * UTF-8.
     */
    record Rendered(List<ActionStream.Line> lines, List<Decision> decisions, String text, byte[] bytes, int size) {}

    /** A byte buffer whose array can be read without a copy; used by one thread at a time. */
    static final class Bytes extends java.io.ByteArrayOutputStream {
        Bytes(int size) {
            super(size);
        }

        /** The buffer itself; its first {@link #size()} bytes are what was written. */
        byte[] array() {
            return buf;
        }
    }

    private final ExecutorService pool;

    /** @param threads how many threads parse and decide (at least 1) */
    ReplayPipeline(int threads) {
        this.pool = Executors.newFixedThreadPool(Math.max(1, threads), r -> {
            Thread t = new Thread(r, "custody-replay");
            t.setDaemon(true);
            return t;
        });
    }

    /** Runs the stream to its end. */
    void run(ActionStream stream, Reader reader, Sequencer sequencer, Renderer renderer, Writer writer)
            throws IOException {
        ArrayDeque<Future<Parsed>> parsing = new ArrayDeque<>();
        ArrayDeque<Future<Rendered>> rendering = new ArrayDeque<>();
        boolean end = false;
        while (true) {
            while (!end && parsing.size() < DEPTH) {
                List<ActionStream.RawLine> raw = stream.nextBatch(BATCH);
                if (raw.isEmpty()) {
                    end = true;
                } else {
                    parsing.add(pool.submit(() -> parse(stream, reader, raw)));
                }
            }
            if (parsing.isEmpty() && rendering.isEmpty()) {
                return;
            }
            if (!parsing.isEmpty()) {
                end = help(parsing.peek(), parsing, stream, reader, end);
                Parsed parsed = get(parsing.poll());
                List<Replayer.Step> sequenced = sequencer.sequence(parsed.steps());
                rendering.add(pool.submit(() -> renderer.render(sequenced, parsed)));
            }
            while (!rendering.isEmpty()
                    && (rendering.peek().isDone() || rendering.size() >= DEPTH || parsing.isEmpty())) {
                end = help(rendering.peek(), parsing, stream, reader, end);
                writer.write(get(rendering.poll()));
            }
        }
    }

    /**
     * Rather than wait for the pool to finish {@code awaited}, this thread parses the next batches itself (up to
     * {@code 2 ×} {@value #DEPTH} parsed batches waiting), in stream order at the end of {@code parsing}: the
     * pool's threads and this one then share the parsing, which is most of a replay's work. Returns whether the
     * stream has ended.
     */
    private static boolean help(Future<?> awaited, ArrayDeque<Future<Parsed>> parsing, ActionStream stream,
            Reader reader, boolean end) throws IOException {
        while (!end && !awaited.isDone() && parsing.size() < 2 * DEPTH) {
            List<ActionStream.RawLine> raw = stream.nextBatch(BATCH);
            if (raw.isEmpty()) {
                return true;
            }
            try {
                parsing.add(CompletableFuture.completedFuture(parse(stream, reader, raw)));
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
        }
        return end;
    }

    private static Parsed parse(ActionStream stream, Reader reader, List<ActionStream.RawLine> raw) {
        List<ActionStream.Line> lines = new ArrayList<>(raw.size());
        for (ActionStream.RawLine r : raw) {
            lines.add(stream.parse(r));
        }
        return reader.read(lines);
    }

    private static <T> T get(Future<T> f) throws IOException {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("replay interrupted", e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof UncheckedIOException u) {
                throw u.getCause();
            }
            if (c instanceof RuntimeException r) {
                throw r;
            }
            if (c instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(c);
        }
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
