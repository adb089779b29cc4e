package dev.custody.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code custody serve --decision-log-mode durable} as a real process of the packaged jar, killed with SIGKILL
 * ({@link Process#destroyForcibly()}) while requests are still being sent: every action id answered {@code 200} is
 * in the decision log afterwards. Only "acknowledged ⊆ logged" is asserted, never timing: what was in flight at the
 * kill may or may not be logged. (SIGKILL keeps the page cache, so this pins that the answer comes after the write;
 * that a sync comes before it too is {@code DurableDecisionLogTest}'s.)
 */
class DurableServeJarIT {
    private static final Pattern LISTENING = Pattern.compile("custody serve: listening on http://127\\.0\\.0\\.1:(\\d+) .*");
    private static final int REQUESTS = 300;
    private static final int THREADS = 6;
    /** The kill comes once this many were acknowledged: the rest are still being sent. */
    private static final int KILL_AFTER = 100;

    @TempDir
    Path dir;

    private int port(Path err) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            List<String> lines = Files.exists(err) ? Files.readAllLines(err) : List.of();
            if (!lines.isEmpty() && Files.readString(err).contains("\n")) {
                Matcher m = LISTENING.matcher(lines.get(0));
                assertTrue(m.matches(), "first stderr line: " + lines.get(0));
                return Integer.parseInt(m.group(1));
            }
            assertTrue(System.nanoTime() < deadline, "the server did not start in 30 s: " + lines);
            Thread.sleep(20);
        }
    }

    @Test
    void everyAcknowledgedDecisionSurvivesKillDashNine() throws Exception {
        Path policies = Files.writeString(dir.resolve("limits.yaml"), Fixtures.LIMITS_YAML);
        Path log = dir.resolve("decisions.jsonl");
        Path err = dir.resolve("err.txt");
        Process p = new ProcessBuilder(CustodyJarIT.command("serve", "--policies", policies.toString(), "--addr", "127.0.0.1:0",
                "--decision-log", log.toString(), "--decision-log-mode", "durable"))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(err.toFile()).start();
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        AtomicInteger next = new AtomicInteger();
        CountDownLatch enough = new CountDownLatch(KILL_AFTER);
        List<Thread> senders = new ArrayList<>();
        try {
            URI uri = URI.create("http://127.0.0.1:" + port(err) + "/v1/decisions");
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(5)).build();
            for (int t = 0; t < THREADS; t++) {
                Thread sender = new Thread(() -> {
                    for (int i = next.getAndIncrement(); i < REQUESTS; i = next.getAndIncrement()) {
                        String id = "kill-" + i;
                        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20))
                                .POST(HttpRequest.BodyPublishers.ofString(Fixtures.withdrawal(id, 20000, false))).build();
                        try {
                            HttpResponse<String> res = http.send(request, HttpResponse.BodyHandlers.ofString());
                            if (res.statusCode() == 200 && res.body().contains("\"id\":\"" + id + "\"")) {
                                acknowledged.add(id);
                                enough.countDown();
                            }
                        } catch (java.io.IOException e) {
                            // the server is gone: this one and the rest are not acknowledged
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }, "sender-" + t);
                senders.add(sender);
                sender.start();
            }
            assertTrue(enough.await(60, TimeUnit.SECONDS), "only " + acknowledged.size() + " acknowledged in 60 s");
        } finally {
            p.destroyForcibly(); // SIGKILL, while the senders go on
        }
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), "the server did not die");
        assertEquals(128 + 9, p.exitValue(), "killed by SIGKILL");
        for (Thread t : senders) {
            t.join(TimeUnit.SECONDS.toMillis(30));
            assertTrue(!t.isAlive(), t.getName() + " still sending");
        }
        Set<String> ack = Set.copyOf(acknowledged); // no sender adds any more

        // every whole line parses; only the last may have been cut by the kill mid-write
        String text = Files.readString(log, StandardCharsets.UTF_8);
        List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
        lines.remove(lines.size() - 1); // after the last newline: empty, or the cut line
        ObjectMapper json = new ObjectMapper();
        Set<String> logged = new HashSet<>();
        for (String line : lines) {
            logged.add(json.readTree(line).get("action").get("id").asText());
        }
        Set<String> missing = new TreeSet<>(ack);
        missing.removeAll(logged);
        assertEquals(Set.of(), missing, "acknowledged but not in the log after kill -9 (" + ack.size() + " acknowledged, "
                + logged.size() + " logged)");
        assertTrue(ack.size() >= KILL_AFTER, ack.size() + " acknowledged");
    }
}
