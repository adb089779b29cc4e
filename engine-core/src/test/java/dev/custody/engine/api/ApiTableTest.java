package dev.custody.engine.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.PolicyEngine;
import dev.custody.engine.schema.TriggerAction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/api.md is exactly the exported API of engine-core and engine-schema: every exported package (with its
 * targets) and every public top-level type in it, no more, no less; and engine-core exports at most 30 public
 * top-level types to every module, the number the document states.
 */
class ApiTableTest {
    private static final List<ApiTable.Export> DOCUMENTED = documented();

    private static List<ApiTable.Export> documented() {
        try {
            return ApiTable.documented(Files.readString(ApiTable.root().resolve("docs/api.md")));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void engineCoreTableIsTheModule() throws Exception {
        Map<String, ApiTable.Export> compiled = ApiTable.compiled(Path.of("target/classes"),
                PolicyEngine.class.getClassLoader());
        assertEquals(compiled.values().stream().map(Object::toString).sorted().toList(),
                ApiTable.of(DOCUMENTED, "dev.custody.engine").values().stream().map(Object::toString).sorted()
                        .toList());
    }

    @Test
    void engineSchemaTableIsTheModule() throws Exception {
        Path classes = Path.of("../engine-schema/target/classes");
        Map<String, ApiTable.Export> compiled = ApiTable.compiled(classes, TriggerAction.class.getClassLoader());
        assertEquals(compiled.values().stream().map(Object::toString).sorted().toList(),
                ApiTable.of(DOCUMENTED, "dev.custody.engine.schema").values().stream().map(Object::toString).sorted()
                        .toList());
    }

    @Test
    void atMostThirtyTypesAreExportedToAllAndTheDocumentSaysHowMany() throws Exception {
        int toAll = 0;
        int packages = 0;
        for (ApiTable.Export e : ApiTable.compiled(Path.of("target/classes"), PolicyEngine.class.getClassLoader())
                .values()) {
            if (e.targets().isEmpty()) {
                toAll += e.types().size();
                packages++;
            }
        }
        assertTrue(toAll <= 30, toAll + " public top-level types exported to every module");
        Matcher m = Pattern.compile("\\*\\*(\\d+) public top-level types\\*\\*\\s+in (\\d+) packages")
                .matcher(Files.readString(ApiTable.root().resolve("docs/api.md")));
        assertTrue(m.find(), "docs/api.md states the count");
        assertEquals(toAll, Integer.parseInt(m.group(1)));
        assertEquals(packages, Integer.parseInt(m.group(2)));
    }

    @Test
    void theParserSeesEveryDocumentedPackage() {
        // a heading the parser misses would drop a package silently: every "### `" line is a parsed export
        long headings = documentedText().lines().filter(l -> l.startsWith("### `")).count();
        assertEquals(headings, DOCUMENTED.size());
        assertTrue(DOCUMENTED.stream().allMatch(e -> !e.types().isEmpty()), "a package without types");
    }

    private static String documentedText() {
        try {
            return Files.readString(ApiTable.root().resolve("docs/api.md"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
