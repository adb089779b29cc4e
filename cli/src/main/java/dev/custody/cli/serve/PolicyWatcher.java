package dev.custody.cli.serve;

import static java.nio.file.StandardWatchEventKinds.ENTRY_CREATE;
import static java.nio.file.StandardWatchEventKinds.ENTRY_DELETE;
import static java.nio.file.StandardWatchEventKinds.ENTRY_MODIFY;
import static java.nio.file.StandardWatchEventKinds.OVERFLOW;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Watches the {@code --policies} files and directories (recursively, new subdirectories included) and calls
 * {@code changed} after every batch of file-system events, with the path of the first one: the server then drops its
 * cached bundles ({@link dev.custody.engine.PolicyEngine#invalidateAll()}), so the next request re-reads the files
 * and is decided on them, under their new {@code bundle_revision}.
 *
 * <p>A file's directory is watched rather than the file, because editors save by writing a new file and renaming
 * it over the old one. Events come from the operating system's notification (inotify on Linux): the change is
 * seen within milliseconds of the write, on the watcher's own daemon thread. An edit seen half-way (the file
 * truncated, not yet written) may be read by a request in between: it then denies (the file does not read, failure
 * {@code load}, or does not compile) and the write that completes the edit is a new event, so the engine reloads
 * again; a half-written file never makes anything allowed that the finished one would not.
 *
 * <p>Thread-safe; {@link #close()} stops the thread.
 */
final class PolicyWatcher implements AutoCloseable {
    private final WatchService service;
    private final Consumer<Path> changed;
    private final Thread thread;

    private PolicyWatcher(WatchService service, Consumer<Path> changed) {
        this.service = service;
        this.changed = changed;
        this.thread = new Thread(this::run, "custody-serve-watcher");
        thread.setDaemon(true);
    }

    /**
     * Starts watching.
     *
     * @throws IOException when a directory cannot be watched
     */
    static PolicyWatcher start(List<Path> paths, Consumer<Path> changed) throws IOException {
        WatchService service = FileSystems.getDefault().newWatchService();
        PolicyWatcher w = new PolicyWatcher(service, Objects.requireNonNull(changed, "changed"));
        try {
            for (Path p : paths) {
                Path abs = p.toAbsolutePath().normalize();
                if (Files.isDirectory(abs)) {
                    w.registerTree(abs);
                } else {
                    Path parent = abs.getParent();
                    if (parent != null) {
                        w.register(parent);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            service.close();
            throw e;
        }
        w.thread.start();
        return w;
    }

    private void registerTree(Path dir) throws IOException {
        try (Stream<Path> dirs = Files.walk(dir)) {
            for (Path d : (Iterable<Path>) dirs.filter(Files::isDirectory)::iterator) {
                register(d);
            }
        }
    }

    private void register(Path dir) throws IOException {
        dir.register(service, ENTRY_CREATE, ENTRY_MODIFY, ENTRY_DELETE);
    }

    private void run() {
        while (true) {
            WatchKey key;
            try {
                key = service.take();
            } catch (InterruptedException | ClosedWatchServiceException e) {
                return;
            }
            Path dir = (Path) key.watchable();
            Path first = dir;
            boolean firstSet = false;
            for (WatchEvent<?> event : key.pollEvents()) {
                if (event.kind() == OVERFLOW) {
                    continue;
                }
                Path child = dir.resolve((Path) event.context());
                if (!firstSet) {
                    first = child;
                    firstSet = true;
                }
                if (event.kind() == ENTRY_CREATE && Files.isDirectory(child)) {
                    try {
                        registerTree(child);
                    } catch (IOException e) {
                        // the directory went away again, or cannot be read: its files fail the next load anyway
                    }
                }
            }
            key.reset();
            try {
                changed.accept(first);
            } catch (RuntimeException e) {
                // a failing listener must not stop the watching
            }
        }
    }

    @Override
    public void close() throws IOException {
        service.close();
        thread.interrupt();
    }
}
