package dev.custody.cli.serve;

/**
 * SIGTERM and SIGINT as a call rather than the JVM's exit: the server drains, flushes its log and returns, so the
 * process exits 0 (a JVM that exits on SIGTERM by itself reports 143). Uses {@code sun.misc.Signal}
 * ({@code jdk.unsupported}, present in every OpenJDK build); where it is missing, the JVM's default stays and a
 * shutdown hook still drains. Not for tests in-process: it replaces the process's handlers.
 */
final class Signals {
    private Signals() {}

    /**
     * Runs {@code action} on SIGTERM or SIGINT instead of exiting; where the JVM's handlers cannot be replaced, a
     * shutdown hook runs it and waits (up to 15 s) for {@code finished} before the JVM goes on exiting.
     */
    static void onTermination(Runnable action, java.util.concurrent.CountDownLatch finished) {
        try {
            sun.misc.SignalHandler handler = signal -> action.run();
            sun.misc.Signal.handle(new sun.misc.Signal("TERM"), handler);
            sun.misc.Signal.handle(new sun.misc.Signal("INT"), handler);
        } catch (IllegalArgumentException | UnsupportedOperationException | LinkageError e) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                action.run();
                try {
                    finished.await(15, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                }
            }, "custody-serve-stop"));
        }
    }
}
