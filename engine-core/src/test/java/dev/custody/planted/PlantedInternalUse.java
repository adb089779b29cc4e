package dev.custody.planted;

import dev.custody.engine.internal.payload.ActionSections;
import java.util.Map;

/** A planted violation (test only): a class outside {@code dev.custody.engine} that uses an internal package. */
public final class PlantedInternalUse {
    private PlantedInternalUse() {}

    /** Reaches into engine-core's internals. */
    public static Object sections() {
        return ActionSections.copyOf(Map.of());
    }
}
