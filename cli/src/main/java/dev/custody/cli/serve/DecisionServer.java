package dev.custody.cli.serve;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The HTTP side of {@code custody serve}: one Jetty {@link Server} (core API, no servlet layer) with one HTTP/1.1
 * connector and the {@link DecisionHandler} behind a {@link GracefulHandler}.
 *
 * <h2>Time-outs</h2>
 * The connector's idle time-out closes a connection on which no byte moves for that long: between requests, and
 * in the middle of one (a client stalled in its headers or its body). Jetty reads with non-blocking I/O, so such a
 * client holds no pool thread while it stalls; the handler's read time-out bounds a body that trickles in.
 *
 * <h2>Drain</h2>
 * {@link #drain()} stops accepting connections, lets the requests in flight finish (up to {@link #DRAIN}: the
 * {@link GracefulHandler} counts them; a request arriving on an open connection meanwhile gets {@code 503}), then
 * stops the server. Connections without a request in the handler are closed at once; one with a request in flight
 * keeps its idle time-out (Jetty's default would cut it once its client paused for 1 s). What the caller does after that (flushing the decision log) happens after every answered
 * decision was handed to the log.
 *
 * <p>Thread-safe.
 */
final class DecisionServer {
    /** The longest a drain waits for requests in flight. */
    static final Duration DRAIN = Duration.ofSeconds(10);

    /**
     * Where and how to listen.
     *
     * @param host the address to bind (a name or a literal)
     * @param port the port, 0 for any free one
     * @param idleTimeout how long a connection may stay without a byte moving
     * @param maxThreads the most pool threads (Jetty's selector and acceptor included)
     */
    record Settings(String host, int port, Duration idleTimeout, int maxThreads) {
        Settings {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(idleTimeout, "idleTimeout");
        }
    }

    private final Server server;
    private final ServerConnector connector;
    private final DecisionHandler handler;

    private DecisionServer(Server server, ServerConnector connector, DecisionHandler handler) {
        this.server = server;
        this.connector = connector;
        this.handler = handler;
    }

    /**
     * Binds and starts serving.
     *
     * @throws Exception when the address cannot be bound (Jetty's {@code IOException}s), or Jetty fails to start
     */
    static DecisionServer start(DecisionHandler handler, Settings settings) throws Exception {
        QueuedThreadPool pool = new QueuedThreadPool(settings.maxThreads(), Math.min(4, settings.maxThreads()));
        pool.setName("custody-serve");
        pool.setDaemon(true);
        Server server = new Server(pool);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
        connector.setHost(settings.host());
        connector.setPort(settings.port());
        connector.setIdleTimeout(settings.idleTimeout().toMillis());
        // Jetty's default cuts every connection idle for 1 s once a graceful stop begins, which drops a request in
        // flight whose client pauses that long; it keeps the usual idle time-out instead, within the drain's bound
        connector.setShutdownIdleTimeout(Math.min(settings.idleTimeout().toMillis(), DRAIN.toMillis()));
        server.addConnector(connector);
        server.setHandler(new GracefulHandler(handler));
        server.setStopTimeout(DRAIN.toMillis());
        server.setStopAtShutdown(false);
        try {
            server.start();
        } catch (Exception e) {
            server.stop();
            throw e;
        }
        return new DecisionServer(server, connector, handler);
    }

    /** The port bound. */
    int port() {
        return connector.getLocalPort();
    }

    /** {@code http://host:port}. */
    URI uri() {
        String host = connector.getHost();
        String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        return URI.create("http://" + h + ":" + port());
    }

    /**
     * Stops accepting, waits for the requests in flight (up to {@link #DRAIN}), and stops.
     *
     * @throws Exception when Jetty fails to stop
     */
    void drain() throws Exception {
        // stop accepting; then close at once the connections with no request in the handler (idle keep-alive ones,
        // and clients still in their headers), which Jetty would otherwise wait out for their idle time-out
        connector.shutdown();
        closeIdle();
        // a connection whose request finishes during the drain (or whose answer had reached the client a moment
        // before the handler saw its write complete) is idle from then on: close it too, every 20 ms, rather than
        // let Jetty wait it out for the rest of the drain
        Thread sweeper = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                closeIdle();
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "custody-serve-drain");
        sweeper.setDaemon(true);
        sweeper.start();
        try {
            server.stop();
        } finally {
            sweeper.interrupt();
        }
    }

    private void closeIdle() {
        for (org.eclipse.jetty.io.EndPoint endPoint : connector.getConnectedEndPoints()) {
            if (!handler.busy(endPoint)) {
                endPoint.close();
            }
        }
    }
}
