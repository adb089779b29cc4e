package dev.custody.engine;

import dev.custody.engine.payload.Action;
import dev.custody.engine.policy.BundleError;
import java.util.List;

/**
 * Several {@link EngineObserver}s told as one, in the order registered; what one throws is dropped and the next is
 * told all the same. Immutable and thread-safe (as its observers are).
 */
final class Observers implements EngineObserver {
    private final EngineObserver[] all;

    private Observers(List<EngineObserver> all) {
        this.all = all.toArray(EngineObserver[]::new);
    }

    /** Null for none (the engine then makes no observer call), the observer itself for one, else all of them. */
    static EngineObserver of(List<EngineObserver> observers) {
        return switch (observers.size()) {
            case 0 -> null;
            case 1 -> observers.get(0);
            default -> new Observers(List.copyOf(observers));
        };
    }

    /**
     * Whether {@code o} overrides {@link EngineObserver#bundleCacheHit} or {@link EngineObserver#bundleCacheMiss}:
     * if none does, the engine keeps no cache statistics for them. True when it cannot tell.
     */
    static boolean countsCacheLookups(EngineObserver o) {
        try {
            return o.getClass().getMethod("bundleCacheHit").getDeclaringClass() != EngineObserver.class
                    || o.getClass().getMethod("bundleCacheMiss").getDeclaringClass() != EngineObserver.class;
        } catch (NoSuchMethodException | SecurityException e) {
            return true;
        }
    }

    @Override
    public void decided(String workspaceId, Action action, Decision decision, long nanos) {
        for (EngineObserver o : all) {
            try {
                o.decided(workspaceId, action, decision, nanos);
            } catch (RuntimeException | Error e) {
                // an observer is told, it does not decide; the others are told all the same
            }
        }
    }

    @Override
    public void bundleCacheHit() {
        for (EngineObserver o : all) {
            try {
                o.bundleCacheHit();
            } catch (RuntimeException | Error e) {
                // as in decided()
            }
        }
    }

    @Override
    public void bundleCacheMiss() {
        for (EngineObserver o : all) {
            try {
                o.bundleCacheMiss();
            } catch (RuntimeException | Error e) {
                // as in decided()
            }
        }
    }

    @Override
    public void bundleLoaded(String workspaceId, List<BundleError> errors) {
        for (EngineObserver o : all) {
            try {
                o.bundleLoaded(workspaceId, errors);
            } catch (RuntimeException | Error e) {
                // as in decided()
            }
        }
    }

    @Override
    public void loadFailed(String workspaceId, String message) {
        for (EngineObserver o : all) {
            try {
                o.loadFailed(workspaceId, message);
            } catch (RuntimeException | Error e) {
                // as in decided()
            }
        }
    }
}
