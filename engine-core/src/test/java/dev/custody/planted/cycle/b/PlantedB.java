package dev.custody.planted.cycle.b;

import dev.custody.planted.cycle.a.PlantedA;
import java.util.List;

/** A planted violation (test only): with {@link PlantedA}, a cycle between two packages. */
public final class PlantedB {
    /** Some names. */
    public static final List<String> NAMES = List.of("a", "b");

    private PlantedB() {}

    /** Uses package {@code a}. */
    public static int twice() {
        return 2 * PlantedA.size();
    }
}
