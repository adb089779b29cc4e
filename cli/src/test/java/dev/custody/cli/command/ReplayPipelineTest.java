package dev.custody.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.replay.ActionStream;
import dev.custody.engine.replay.Replayer;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The pipeline keeps the stream's order whoever parses a batch: when the pool is slow, the pipeline's own thread
 * parses the next batches rather than wait, and every line still comes out once, in order.
 */
class ReplayPipelineTest {
    @Test
    void batchesParsedByTheWaitingThreadKeepTheirPlace() throws Exception {
        int n = 40 * ReplayPipeline.BATCH + 17;
        StringBuilder text = new StringBuilder();
        for (int i = 1; i <= n; i++) {
            text.append("{\"id\": \"a-").append(i).append("\", \"action\": 1}\n");
        }
        Thread self = Thread.currentThread();
        AtomicInteger onPool = new AtomicInteger();
        AtomicInteger here = new AtomicInteger();
        List<String> written = new ArrayList<>();
        List<Long> sequenced = new ArrayList<>();
        try (ActionStream stream = new ActionStream(new StringReader(text.toString()));
                ReplayPipeline pipeline = new ReplayPipeline(1)) {
            pipeline.run(stream, lines -> {
                if (Thread.currentThread() == self) {
                    here.incrementAndGet();
                } else {
                    onPool.incrementAndGet();
                    try {
                        Thread.sleep(5); // a slow pool: the pipeline's thread has time to parse
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                List<Replayer.Step> steps = new ArrayList<>();
                lines.forEach(l -> steps.add(new Replayer.Step(l, null)));
                return new ReplayPipeline.Parsed(steps, null, null, null);
            }, steps -> {
                steps.forEach(s -> sequenced.add(s.line().number()));
                return steps;
            }, (steps, parsed) -> {
                StringBuilder out = new StringBuilder();
                steps.forEach(s -> out.append(((ActionStream.MalformedLine) s.line()).id()).append('\n'));
                return new ReplayPipeline.Rendered(new ArrayList<>(), new ArrayList<>(), out.toString(), null, 0);
            }, batch -> written.add(batch.text()));
        }
        List<Long> numbers = new ArrayList<>();
        for (long i = 1; i <= n; i++) {
            numbers.add(i);
        }
        assertEquals(numbers, sequenced, "sequenced in stream order");
        StringBuilder expected = new StringBuilder();
        for (int i = 1; i <= n; i++) {
            expected.append("a-").append(i).append('\n');
        }
        assertEquals(expected.toString(), String.join("", written), "written in stream order");
        assertEquals(41, onPool.get() + here.get(), "every batch parsed once");
        assertTrue(here.get() > 0, "the waiting thread parsed some batches itself: " + here.get());
        assertTrue(onPool.get() > 0, "and the pool the others: " + onPool.get());
    }
}
