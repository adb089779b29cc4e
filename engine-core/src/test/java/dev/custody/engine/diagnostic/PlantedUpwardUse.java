package dev.custody.engine.diagnostic;

import dev.custody.engine.PolicyEngine;
import java.time.Duration;

/**
 * A planted violation (test only, so outside the classes the real rule checks): the diagnostics layer using the
 * engine, four layers above it.
 */
public final class PlantedUpwardUse {
    private PlantedUpwardUse() {}

    /** Reads a constant of the engine. */
    public static Duration budget() {
        return PolicyEngine.DEFAULT_TIME_BUDGET;
    }
}
