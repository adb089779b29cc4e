package dev.custody.engine.api;

import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * docs/api.md read as data, and the same facts taken from a compiled module: its descriptor
 * ({@link ModuleFinder#of} over {@code target/classes}) and the public top-level classes of its exported packages.
 */
final class ApiTable {
    /** One exported package: to whom ("all" or the target modules) and its public top-level types. */
    record Export(String module, String pkg, Set<String> targets, Set<String> types) {}

    private static final Pattern MODULE = Pattern.compile("^## Module `([\\w.]+)`$");
    private static final Pattern PACKAGE = Pattern.compile("^### `([\\w.]+)` \\(exported to (.+)\\)$");
    private static final Pattern ROW = Pattern.compile("^\\| `(\\w+)` \\| (.+) \\|$");
    private static final Pattern TARGET = Pattern.compile("`([\\w.]+)`");

    private ApiTable() {}

    static Path root() {
        return Path.of("..").toAbsolutePath().normalize();
    }

    /** What docs/api.md says, package by package, in its order; a row without a purpose fails. */
    static List<Export> documented(String text) {
        List<Export> exports = new ArrayList<>();
        String module = null;
        Export current = null;
        for (String line : text.split("\n", -1)) {
            Matcher m = MODULE.matcher(line);
            if (m.matches()) {
                module = m.group(1);
                current = null;
                continue;
            }
            Matcher p = PACKAGE.matcher(line);
            if (p.matches()) {
                Set<String> targets = new TreeSet<>();
                if (!p.group(2).equals("all")) {
                    Matcher t = TARGET.matcher(p.group(2));
                    while (t.find()) {
                        targets.add(t.group(1));
                    }
                    if (targets.isEmpty()) {
                        throw new IllegalArgumentException("no targets in: " + line);
                    }
                }
                current = new Export(module, p.group(1), targets, new TreeSet<>());
                exports.add(current);
                continue;
            }
            Matcher r = ROW.matcher(line);
            if (r.matches() && current != null) {
                if (r.group(2).isBlank() || !current.types().add(r.group(1))) {
                    throw new IllegalArgumentException("empty purpose or listed twice: " + line);
                }
            }
        }
        return exports;
    }

    /** The module compiled into {@code classes}: its exports and their public top-level types, by package. */
    static Map<String, Export> compiled(Path classes, ClassLoader loader) throws IOException {
        Set<ModuleReference> found = ModuleFinder.of(classes).findAll();
        if (found.size() != 1) {
            throw new IllegalStateException("expected one module in " + classes + ", found " + found);
        }
        ModuleDescriptor d = found.iterator().next().descriptor();
        Map<String, Export> exports = new TreeMap<>();
        for (ModuleDescriptor.Exports e : d.exports()) {
            exports.put(e.source(), new Export(d.name(), e.source(), new TreeSet<>(e.targets()),
                    publicTopLevel(classes, e.source(), loader)));
        }
        return exports;
    }

    /** The public top-level classes of a package compiled into {@code classes}, by simple name. */
    static Set<String> publicTopLevel(Path classes, String pkg, ClassLoader loader) throws IOException {
        Set<String> names = new TreeSet<>();
        try (Stream<Path> files = Files.list(classes.resolve(pkg.replace('.', '/')))) {
            for (Path f : files.toList()) {
                String file = f.getFileName().toString();
                if (!file.endsWith(".class") || file.contains("$") || file.equals("package-info.class")) {
                    continue;
                }
                String simple = file.substring(0, file.length() - ".class".length());
                try {
                    Class<?> c = Class.forName(pkg + "." + simple, false, loader);
                    if (Modifier.isPublic(c.getModifiers())) {
                        names.add(simple);
                    }
                } catch (ClassNotFoundException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return names;
    }

    /** The documented exports of one module, by package. */
    static Map<String, Export> of(List<Export> documented, String module) {
        Map<String, Export> m = new LinkedHashMap<>();
        for (Export e : documented) {
            if (module.equals(e.module()) && m.put(e.pkg(), e) != null) {
                throw new IllegalArgumentException(e.pkg() + " documented twice");
            }
        }
        return m;
    }
}
