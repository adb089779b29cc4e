package dev.custody.engine.files;

import dev.custody.engine.policy.Policy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Finds and reads policy files. Declaration order across files is the sorted path order (docs/design.md §3.6),
 * then the position inside each file.
 *
 * <p>A directory is searched recursively for {@code .json}, {@code .yaml} and {@code .yml} files, skipping
 * hidden entries and policy test files ({@code *.test.yaml}, {@code *.test.yml}, {@code *.test.json}); a file
 * named explicitly is read whatever its extension. Stateless and thread-safe.
 */
public final class PolicyFiles {
    private PolicyFiles() {}

    /** Whether a file name is a policy test file ({@code *.test.yaml|yml|json}). */
    public static boolean isTestFile(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return n.endsWith(".test.yaml") || n.endsWith(".test.yml") || n.endsWith(".test.json");
    }

    /** Whether a file name has a policy file extension. */
    public static boolean isPolicyFile(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return (n.endsWith(".json") || n.endsWith(".yaml") || n.endsWith(".yml")) && !isTestFile(n);
    }

    /**
     * The policy files under the given paths, sorted, without duplicates.
     *
     * @throws NoSuchFileException when a path does not exist
     * @throws IOException when a directory cannot be listed
     */
    public static List<Path> discover(List<Path> paths) throws IOException {
        List<Path> out = new ArrayList<>();
        for (Path p : paths) {
            if (!Files.exists(p)) {
                throw new NoSuchFileException(p.toString());
            }
            if (Files.isDirectory(p)) {
                try (Stream<Path> walk = Files.walk(p)) {
                    walk.filter(Files::isRegularFile)
                            .filter(f -> !hidden(p, f))
                            .filter(f -> isPolicyFile(f.getFileName().toString()))
                            .forEach(out::add);
                } catch (UncheckedIOException e) {
                    throw e.getCause();
                }
            } else {
                out.add(p);
            }
        }
        return out.stream().map(Path::normalize).distinct().sorted().toList();
    }

    /**
     * Reads every policy file under the given paths, in declaration order.
     *
     * @throws IOException when a path is missing or a file unreadable
     */
    public static List<PolicyDocument> read(List<Path> paths) throws IOException {
        List<PolicyDocument> docs = new ArrayList<>();
        for (Path p : discover(paths)) {
            docs.add(PolicyReader.read(p));
        }
        return docs;
    }

    /** The policies of documents, in declaration order. */
    public static List<Policy> policies(List<PolicyDocument> documents) {
        List<Policy> out = new ArrayList<>();
        for (PolicyDocument d : documents) {
            d.policies().forEach(sp -> out.add(sp.policy()));
        }
        return out;
    }

    private static boolean hidden(Path root, Path file) {
        Path rel = root.relativize(file);
        for (Path part : rel) {
            if (part.toString().startsWith(".")) {
                return true;
            }
        }
        return false;
    }
}
