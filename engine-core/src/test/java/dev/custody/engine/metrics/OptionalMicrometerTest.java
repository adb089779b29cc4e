package dev.custody.engine.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.PolicyEngine;
import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Micrometer is an optional dependency of engine-core: only {@code dev.custody.engine.metrics} links it, and an
 * engine built without metrics loads and decides with no Micrometer on the class path.
 */
class OptionalMicrometerTest {

    @Test
    void onlyTheMetricsPackageReferencesMicrometer() throws Exception {
        Path classes = Path.of(PolicyEngine.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        byte[] needle = "io/micrometer".getBytes(StandardCharsets.UTF_8);
        List<String> linking = new ArrayList<>();
        int scanned = 0;
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                scanned++;
                if (contains(Files.readAllBytes(f), needle)) {
                    linking.add(classes.relativize(f).toString().replace(File.separatorChar, '/'));
                }
            }
        }
        assertTrue(scanned > 100, "scanned " + scanned + " classes in " + classes);
        assertFalse(linking.isEmpty(), "the scan finds the binder itself");
        for (String c : linking) {
            assertTrue(c.startsWith("dev/custody/engine/metrics/"), c + " links Micrometer");
        }
    }

    @Test
    void theEngineRunsWithoutMicrometerOnTheClassPath() throws Exception {
        List<URL> urls = new ArrayList<>();
        int removed = 0;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.replace(File.separatorChar, '/').contains("/io/micrometer/")) {
                removed++;
            } else {
                urls.add(Path.of(entry).toUri().toURL());
            }
        }
        assertTrue(removed >= 1, "the test class path had Micrometer to remove");
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new),
                ClassLoader.getPlatformClassLoader())) {
            assertThrows(ClassNotFoundException.class,
                    () -> loader.loadClass("io.micrometer.core.instrument.MeterRegistry"));
            Class<?> run = loader.loadClass(WithoutMicrometer.class.getName());
            assertEquals("DENY big, ALLOW small", run.getMethod("decide").invoke(null));
            // the isolation is real: binding metrics there fails to link
            InvocationTargetException e = assertThrows(InvocationTargetException.class,
                    () -> run.getMethod("bindMetrics").invoke(null));
            assertInstanceOf(NoClassDefFoundError.class, e.getCause());
        }
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
