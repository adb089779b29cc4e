package dev.custody.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback server (127.0.0.1, ephemeral port) that answers every connection with the response
 * headers and a first piece of the body, then sends nothing more; it counts the connections and
 * the ones the client closed.
 */
public final class StallingServer implements AutoCloseable {
    private final ServerSocket socket;
    /** Connections accepted. */
    public final AtomicInteger accepted = new AtomicInteger();
    /** Counts down once per connection the client closed. */
    public final CountDownLatch closedByClient;

    /**
     * @param chunked whether the body is sent chunked rather than with a Content-Length
     * @param connections how many closed connections {@link #closedByClient} waits for
     */
    public StallingServer(boolean chunked, int connections) throws IOException {
        socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        closedByClient = new CountDownLatch(connections);
        Thread acceptor = new Thread(() -> {
            while (!socket.isClosed()) {
                try {
                    Socket s = socket.accept();
                    accepted.incrementAndGet();
                    Thread stall = new Thread(() -> stall(s, chunked));
                    stall.setDaemon(true);
                    stall.start();
                } catch (IOException e) {
                    return;
                }
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + socket.getLocalPort() + "/api/v1";
    }

    private void stall(Socket s, boolean chunked) {
        try (s) {
            InputStream in = s.getInputStream();
            // the request head ends with an empty line; a body, if any, is left unread
            int matched = 0;
            while (matched < 4) {
                int b = in.read();
                if (b < 0) {
                    return;
                }
                matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : b == '\r' ? 1 : 0;
            }
            OutputStream out = s.getOutputStream();
            String head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    + (chunked ? "Transfer-Encoding: chunked\r\n\r\n10\r\n{\"success\":true,\r\n"
                            : "Content-Length: 4096\r\n\r\n{\"success\":true,");
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            // stall: wait until the client gives up and closes the connection
            while (in.read() >= 0) {
                // discard
            }
            closedByClient.countDown();
        } catch (IOException e) {
            closedByClient.countDown();
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
