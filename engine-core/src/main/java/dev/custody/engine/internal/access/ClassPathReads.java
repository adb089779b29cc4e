package dev.custody.engine.internal.access;

import java.util.List;

/**
 * Internal, not API: makes this module read the modules cel-java and its dependencies were loaded in (the class
 * path's unnamed module), before the compile package first links a cel-java type.
 *
 * <p>cel-java 0.14.0 cannot be put on the module path (its jars split packages), so on the module path
 * {@code dev.custody.engine} is a named module whose compiler depends on the class path, which a named module
 * does not read unless told. A module may add a read edge for itself ({@link Module#addReads}); the classes of the
 * compile package that name cel-java types call {@link #ensure()} first thing in their static initializers. On the
 * class path (this module unnamed) it does nothing. Thread-safe (class initialization).
 */
public final class ClassPathReads {
    static {
        Module engine = ClassPathReads.class.getModule();
        if (engine.isNamed()) {
            ClassLoader loader = ClassPathReads.class.getClassLoader();
            engine.addReads(loader.getUnnamedModule());
            // wherever they were loaded from: cel-java, Guava (a named module when on the module path), RE2/J
            for (String name : List.of("dev.cel.bundle.Cel", "com.google.common.collect.ImmutableList",
                    "com.google.re2j.Pattern", "com.google.protobuf.Message")) {
                try {
                    engine.addReads(Class.forName(name, false, loader).getModule());
                } catch (ClassNotFoundException | LinkageError e) {
                    // absent: whatever needs it fails on first use, as it would on the class path
                }
            }
        }
    }

    private ClassPathReads() {}

    /** Runs the static initializer above (once); then this module reads cel-java's modules. */
    public static void ensure() {
        // the work is in the static initializer
    }
}
