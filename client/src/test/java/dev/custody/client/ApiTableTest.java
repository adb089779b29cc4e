package dev.custody.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/api.md's section "Module {@code dev.custody.client}" is exactly the client's exported API: the packages its
 * descriptor exports (to all) and their public top-level types. These tests run inside the module (on the module
 * path), so they also show the descriptor is the one in force.
 */
class ApiTableTest {
    private static final Pattern PACKAGE = Pattern.compile("^### `([\\w.]+)` \\(exported to all\\)$");
    private static final Pattern ROW = Pattern.compile("^\\| `(\\w+)` \\| (.+) \\|$");

    @Test
    void clientTableIsTheModule() throws Exception {
        String doc = Files.readString(Path.of("..").toAbsolutePath().normalize().resolve("docs/api.md"));
        String section = doc.substring(doc.indexOf("## Module `dev.custody.client`"));
        Map<String, Set<String>> documented = new TreeMap<>();
        Set<String> current = null;
        for (String line : section.split("\n")) {
            Matcher p = PACKAGE.matcher(line);
            Matcher r = ROW.matcher(line);
            if (p.matches()) {
                current = new TreeSet<>();
                documented.put(p.group(1), current);
            } else if (r.matches() && current != null) {
                assertTrue(current.add(r.group(1)), "listed twice: " + line);
            }
        }
        ModuleDescriptor d = ModuleFinder.of(Path.of("target/classes")).find("dev.custody.client").orElseThrow()
                .descriptor();
        Map<String, Set<String>> compiled = new TreeMap<>();
        for (ModuleDescriptor.Exports e : d.exports()) {
            assertFalse(e.isQualified(), e.toString());
            Set<String> types = new TreeSet<>();
            try (Stream<Path> files = Files.list(Path.of("target/classes", e.source().split("\\.")))) {
                for (Path f : files.toList()) {
                    String n = f.getFileName().toString();
                    if (n.endsWith(".class") && !n.contains("$") && !n.equals("package-info.class")) {
                        String simple = n.substring(0, n.length() - ".class".length());
                        if (Modifier.isPublic(Class.forName(e.source() + "." + simple).getModifiers())) {
                            types.add(simple);
                        }
                    }
                }
            }
            compiled.put(e.source(), types);
        }
        assertEquals(compiled, documented);
        assertTrue(compiled.get("dev.custody.client").contains("CustodyClient"));
    }

    @Test
    void theTestsRunInsideTheNamedModule() {
        Module m = CustodyClient.class.getModule();
        assertEquals("dev.custody.client", m.getName());
        assertTrue(m.isOpen("dev.custody.client.model", ModuleLayer.boot().findModule(
                "com.fasterxml.jackson.databind").orElseThrow()));
        assertFalse(m.isOpen("dev.custody.client"), "the client's own package is not open");
    }
}
