package dev.custody.planted.cycle.a;

import dev.custody.planted.cycle.b.PlantedB;

/** A planted violation (test only): with {@link PlantedB}, a cycle between two packages. */
public final class PlantedA {
    private PlantedA() {}

    /** Uses package {@code b}. */
    public static int size() {
        return PlantedB.NAMES.size();
    }
}
