package dev.custody.engine.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * engine-core's packages keep the layers of docs/design.md §9.1, without cycles, and the table there says them. (The
 * third rule, no use of an {@code internal} package from outside {@code dev.custody.engine}, is for the other
 * modules: {@code ModuleArchitectureTest}.)
 */
class ArchitectureTest {
    private static final JavaClasses ENGINE_CORE = ArchitectureRules.moduleClasses();

    @Test
    void eachLayerUsesOnlyTheLayersBelowIt() {
        ArchitectureRules.engineLayers().check(ENGINE_CORE);
    }

    /** No cycle between packages, and no cycle between files of two packages either (the slices are packages). */
    @Test
    void noCycleBetweenPackages() {
        ArchitectureRules.freeOfCycles().check(ENGINE_CORE);
    }

    /** Every package of engine-core is in a layer: a new package must be placed in the table before it is used. */
    @Test
    void everyPackageIsInALayer() {
        List<String> unplaced = new ArrayList<>();
        ENGINE_CORE.stream().map(c -> c.getPackageName()).distinct().sorted().forEach(p -> {
            boolean placed = ArchitectureRules.ENGINE_LAYERS.stream().flatMap(l -> l.packages().stream())
                    .anyMatch(id -> id.endsWith("..") ? p.equals(id.substring(0, id.length() - 2))
                            || p.startsWith(id.substring(0, id.length() - 1)) : p.equals(id));
            if (!placed && !p.isEmpty()) {
                unplaced.add(p);
            }
        });
        assertEquals(List.of(), unplaced);
    }

    /** The table at the top of docs/design.md part two lists these layers, in this order, with these packages. */
    @Test
    void theDesignTableIsTheRule() throws IOException {
        String design = Files.readString(Path.of("../docs/design.md"));
        int start = design.indexOf("| layer | packages | may use |");
        assertTrue(start >= 0, "docs/design.md has no layer table");
        Matcher row = Pattern.compile("^\\| (\\d+) ([^|]+?) \\| ([^|]+?) \\| ([^|]+?) \\|$", Pattern.MULTILINE)
                .matcher(design.substring(start, design.indexOf("\n\n", start)));
        List<String> documented = new ArrayList<>();
        while (row.find()) {
            documented.add(row.group(1) + " " + row.group(2) + ": " + row.group(3).replace("`", ""));
        }
        List<String> rule = new ArrayList<>();
        for (int i = 0; i < ArchitectureRules.ENGINE_LAYERS.size(); i++) {
            ArchitectureRules.Layer l = ArchitectureRules.ENGINE_LAYERS.get(i);
            rule.add(i + " " + l.name() + ": " + String.join(", ", l.packages().stream()
                    .map(p -> p.replace("dev.custody.engine.schema..", "dev.custody.engine.schema (engine-schema)")
                            .replace("dev.custody.engine..", "").replace("dev.custody.engine.", "")
                            .replace("..", ""))
                    .map(p -> p.equals("dev.custody.engine") ? "dev.custody.engine (the root package)" : p)
                    .toList()));
        }
        assertEquals(rule, documented);
    }
}
