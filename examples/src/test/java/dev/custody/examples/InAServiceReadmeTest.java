package dev.custody.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The README's "In a service" code is the code the build compiles: every line of its {@code java} blocks is a line
 * of {@link WithdrawalGuard} or {@link JdbcPolicySource} (indentation aside).
 */
class InAServiceReadmeTest {
    private static final Path SOURCES = Path.of("src/main/java/dev/custody/examples");

    @Test
    void theReadmeQuotesTheCompiledClasses() throws Exception {
        String readme = Files.readString(ReadmeTest.ROOT.resolve("README.md"));
        int start = readme.indexOf("\n## In a service\n");
        assertTrue(start >= 0, "the README has an \"In a service\" section");
        int end = readme.indexOf("\n## ", start + 1);
        List<String> quoted = javaLines(readme.substring(start, end < 0 ? readme.length() : end));
        assertTrue(quoted.size() >= 15, "quoted lines: " + quoted.size());

        Set<String> source = new HashSet<>();
        for (String file : List.of("WithdrawalGuard.java", "JdbcPolicySource.java")) {
            Files.readAllLines(SOURCES.resolve(file)).forEach(l -> source.add(l.strip()));
        }
        for (String line : quoted) {
            assertTrue(source.contains(line), "README line not in WithdrawalGuard or JdbcPolicySource: " + line);
        }
    }

    @Test
    void theVelocitySectionQuotesVelocityGuard() throws Exception {
        String readme = Files.readString(ReadmeTest.ROOT.resolve("README.md"));
        int start = readme.indexOf("\n## Velocity in a service\n");
        assertTrue(start >= 0, "the README has a \"Velocity in a service\" section");
        int end = readme.indexOf("\n## ", start + 1);
        List<String> quoted = javaLines(readme.substring(start, end < 0 ? readme.length() : end));
        assertTrue(quoted.size() >= 8, "quoted lines: " + quoted.size());
        Set<String> source = new HashSet<>();
        Files.readAllLines(SOURCES.resolve("VelocityGuard.java")).forEach(l -> source.add(l.strip()));
        for (String line : quoted) {
            assertTrue(source.contains(line), "README line not in VelocityGuard: " + line);
        }
    }

    private static List<String> javaLines(String section) {
        List<String> out = new ArrayList<>();
        boolean in = false;
        for (String line : section.split("\n")) {
            if (line.startsWith("```")) {
                in = line.equals("```java");
            } else if (in && !line.isBlank()) {
                out.add(line.strip());
            }
        }
        return out;
    }
}
