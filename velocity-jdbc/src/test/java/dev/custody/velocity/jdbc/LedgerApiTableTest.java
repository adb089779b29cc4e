package dev.custody.velocity.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

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
 * docs/api.md's section "Module {@code dev.custody.velocity.jdbc}" is exactly the module's exported API: the packages
 * its compiled descriptor exports and their public top-level types.
 */
class LedgerApiTableTest {
    private static final Pattern PACKAGE = Pattern.compile("^### `([\\w.]+)` \\(exported to all\\)$");
    private static final Pattern ROW = Pattern.compile("^\\| `(\\w+)` \\| (.+) \\|$");

    @Test
    void theTableIsTheModule() throws Exception {
        String doc = Files.readString(Path.of("..").toAbsolutePath().normalize().resolve("docs/api.md"));
        int start = doc.indexOf("## Module `dev.custody.velocity.jdbc`");
        String section = doc.substring(start, doc.indexOf("\n## Module", start + 1));
        Map<String, Set<String>> documented = new TreeMap<>();
        Set<String> current = null;
        for (String line : section.split("\n")) {
            Matcher p = PACKAGE.matcher(line);
            Matcher r = ROW.matcher(line);
            if (p.matches()) {
                current = new TreeSet<>();
                documented.put(p.group(1), current);
            } else if (r.matches() && current != null) {
                current.add(r.group(1));
            }
        }
        ModuleDescriptor d = ModuleFinder.of(Path.of("target/classes")).find("dev.custody.velocity.jdbc").orElseThrow()
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
        assertEquals(Set.of("dev.custody.engine", "java.sql", "com.zaxxer.hikari", "java.base"),
                d.requires().stream().map(ModuleDescriptor.Requires::name).collect(java.util.stream.Collectors.toSet()));
    }
}
