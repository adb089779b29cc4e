package dev.custody.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code custody serve} as a real process of the packaged jar: SIGTERM ({@link Process#destroy()}) while a request is
 * in flight lets that request finish, refuses new connections, flushes the decision log and exits 0.
 */
class ServeJarIT {
    /** What the server says when the handler first reads a body sent with {@code Expect: 100-continue}. */
    private static final String CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n";

    private static final String HEALTH_RESPONSE_PREFIX = "HTTP/1.1 200 OK\r\n";
    private static final Pattern LISTENING = Pattern.compile("custody serve: listening on http://127\\.0\\.0\\.1:(\\d+) .*");

    @TempDir
    Path dir;

    /**
     * Line {@code n} (0-based) of the process's stderr, waiting up to 20 s for it. Stderr goes to a file:
     * {@link Process#destroy()} closes the pipes of the process it signals.
     */
    private String line(Process p, int n) throws Exception {
        Path file = dir.resolve("err.txt");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            List<String> lines = Files.exists(file) ? Files.readAllLines(file) : List.of();
            if (lines.size() > n && (lines.size() > n + 1 || Files.readString(file).endsWith("\n"))) {
                return lines.get(n);
            }
            assertTrue(System.nanoTime() < deadline, "no stderr line " + n + " in 20 s: " + lines);
            Thread.sleep(20);
        }
    }

    /** Reads the rest of the health response: its headers and its 15-byte body. */
    private static void drainAvailable(Socket s) throws IOException {
        java.io.InputStream in = s.getInputStream();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            assertTrue(c >= 0, "the health response ended early: " + head);
            head.append((char) c);
        }
        assertEquals("{\"status\":\"ok\"}", new String(in.readNBytes(15), StandardCharsets.US_ASCII));
    }

    @Test
    void sigtermFinishesTheRequestInFlightFlushesTheLogAndExitsZero() throws Exception {
        Path policies = Files.writeString(dir.resolve("limits.yaml"), Fixtures.LIMITS_YAML);
        Path log = dir.resolve("decisions.jsonl");
        Process p = new ProcessBuilder(CustodyJarIT.command("serve", "--policies", policies.toString(), "--addr", "127.0.0.1:0",
                "--decision-log", log.toString())).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(dir.resolve("err.txt").toFile()).start();
        try {
            String first = line(p, 0);
            Matcher m = LISTENING.matcher(first);
            assertTrue(m.matches(), "first stderr line: " + first);
            int port = Integer.parseInt(m.group(1));

            String action = Fixtures.withdrawal("slow-1", 20000, false);
            byte[] body = action.getBytes(StandardCharsets.UTF_8);
            int half = body.length / 2;
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.setSoTimeout(20_000);
                OutputStream out = s.getOutputStream();
                // one whole request first, answered on this connection: the server is serving it
                out.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                String health = new String(s.getInputStream().readNBytes(HEALTH_RESPONSE_PREFIX.length()),
                        StandardCharsets.US_ASCII);
                assertEquals(HEALTH_RESPONSE_PREFIX, health);
                drainAvailable(s);
                // a slow client: the headers, then (once the server asks for the body: the request is in its
                // handler, in flight) half the body, then SIGTERM, then the rest
                out.write(("POST /v1/decisions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + "Expect: 100-continue\r\nContent-Length: " + body.length + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                assertEquals(CONTINUE, new String(s.getInputStream().readNBytes(CONTINUE.length()),
                        StandardCharsets.US_ASCII), "the server reads the body: the request is in its handler");
                out.write(body, 0, half);
                out.flush();
                p.destroy(); // SIGTERM
                assertEquals("custody serve: stopping: finishing requests in flight (up to 10 s)", line(p, 1));
                Thread.sleep(1500); // the client pauses past Jetty's default 1 s cut of idle connections at shutdown
                assertThrows(ConnectException.class, () -> new Socket("127.0.0.1", port).close(),
                        "a draining server accepts no new connection");
                try {
                    out.write(body, half, body.length - half);
                    out.flush();
                } catch (IOException e) {
                    throw new AssertionError("the server closed the connection of the request in flight; its stderr: "
                            + Files.readString(dir.resolve("err.txt")), e);
                }
                String response = new String(s.getInputStream().readNBytes(2048), StandardCharsets.UTF_8);
                assertTrue(response.startsWith("HTTP/1.1 200 OK\r\n"), response);
                assertTrue(response.contains("{\"id\":\"slow-1\",\"action\":\"withdrawal.create\",\"decision\":\"DENY\","
                        + "\"policy_id\":\"limits\",\"rule_id\":\"big\","), response);
                // the answer above came through the drain: the request was finished, not cut by the drain's limit
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the server did not exit after its drain");
            }
            assertEquals(0, p.exitValue());
            assertEquals("custody serve: stopped", line(p, 2));
            List<String> logged = Files.readAllLines(log);
            assertEquals(1, logged.size(), logged.toString());
            assertTrue(logged.get(0).contains("\"decision\":{\"id\":\"slow-1\","), logged.get(0));
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void sigtermOfAnIdleServerExitsZeroAtOnce() throws Exception {
        Path policies = Files.writeString(dir.resolve("limits.yaml"), Fixtures.LIMITS_YAML);
        Process p = new ProcessBuilder(CustodyJarIT.command("serve", "--policies", policies.toString(), "--addr", "127.0.0.1:0"))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(dir.resolve("err.txt").toFile()).start();
        try {
            assertTrue(LISTENING.matcher(line(p, 0)).matches());
            p.destroy();
            // no request in flight: the drain does not wait out its limit (10 s). The bound is that limit less a
            // second, not a speed: an exit that waited for the drain's limit takes 10 s on any machine
            assertTrue(p.waitFor(9, TimeUnit.SECONDS), "the idle server waited for its drain's limit");
            assertEquals(0, p.exitValue());
        } finally {
            p.destroyForcibly();
        }
    }
}
