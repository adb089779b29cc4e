package dev.custody.cli;

import dev.custody.engine.compile.RuleCompiler;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The process's one {@link RuleCompiler} ({@link RuleCompiler#shared()}: immutable and thread-safe, so every command
 * and every engine shares it).
 *
 * <p>Building it is most of a cold {@code custody validate}: cel-java's environments for both trigger actions,
 * and a warm-up evaluation, load some two thousand classes. {@code custody}'s main starts building it on a
 * second thread as soon as it sees a verb that compiles, so that this overlaps with picocli reading the
 * command model and parsing the arguments instead of following it.
 */
public final class Compilers {
    private static CompletableFuture<RuleCompiler> shared;

    private Compilers() {}

    /** Starts building the shared compiler in the background (once). */
    public static synchronized void prestart() {
        if (shared == null) {
            shared = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    shared.complete(RuleCompiler.shared());
                } catch (RuntimeException | Error e) {
                    shared.completeExceptionally(e);
                }
            }, "custody-compiler");
            t.setDaemon(true);
            t.start();
        }
    }

    /** The shared compiler, built now if nothing started it. */
    public static RuleCompiler shared() {
        CompletableFuture<RuleCompiler> f;
        synchronized (Compilers.class) {
            if (shared == null) {
                shared = CompletableFuture.completedFuture(RuleCompiler.shared());
            }
            f = shared;
        }
        try {
            return f.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }
}
