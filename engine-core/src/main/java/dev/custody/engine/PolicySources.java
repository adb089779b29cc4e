package dev.custody.engine;

import dev.custody.engine.files.FilePolicySource;
import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.files.PolicyReader;
import dev.custody.engine.files.SourcedPolicy;
import dev.custody.engine.policy.Policy;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Policies from policy files and documents (the JSON or YAML that {@code custody lint} checks and
 * {@code custody api policies pull} writes), for a service embedding the engine. The file reader and its
 * positions, findings and validation are the tools' concern (package {@code dev.custody.engine.files}, exported to
 * the project's tools only); this class is what an embedder needs of them, in the API's own types.
 *
 * <pre>{@code
 * PolicyEngine engine = PolicyEngine.builder(PolicySources.watching(List.of(Path.of("policies")))).build();
 * }</pre>
 *
 * <p>Stateless and thread-safe; the sources it returns are thread-safe too.
 */
public final class PolicySources {
    private PolicySources() {
    }

    /**
     * A source that re-reads these files and directories (every {@code .yaml}, {@code .yml} and {@code .json} under
     * a directory, in sorted path order) on every load, so a changed file is decided on after the workspace's bundle
     * expires or is invalidated. A file that does not read fails the load: the workspace's actions are denied
     * ({@link FailureKind#LOAD}), never decided on part of its policies.
     */
    public static PolicySource watching(List<Path> paths) {
        return FilePolicySource.watching(List.copyOf(paths))::policies;
    }

    /**
     * A source over these files and directories as they are now, read once.
     *
     * @throws java.nio.file.NoSuchFileException when a path does not exist
     * @throws IOException when a file or directory cannot be read, or a file is not a policy document (the message
     *     is the first problem, one line, {@code file:line:column: error[code] message})
     */
    public static PolicySource read(List<Path> paths) throws IOException {
        FilePolicySource source = FilePolicySource.read(List.copyOf(paths));
        if (!source.readErrors().isEmpty()) {
            throw new IOException(source.readErrors().get(0).oneLine());
        }
        return source::policies;
    }

    /**
     * The policies of one policy document (JSON or YAML text, one policy or a list), in declaration order, as a
     * {@link PolicySource} for a database or an API would return them. Whether they compile is decided when the
     * engine builds the workspace's bundle (an invalid one denies, {@link FailureKind#COMPILE}).
     *
     * @param text the document
     * @param name the document's name, for messages (a file name; {@code .json} reads the text as JSON, anything
     *     else as YAML, of which JSON is a subset)
     * @throws IllegalArgumentException when the text is not a policy document; the message is the first problem,
     *     one line, {@code name:line:column: error[code] message}
     */
    public static List<Policy> parse(String text, String name) {
        PolicyDocument doc = PolicyReader.parse(Objects.requireNonNull(text, "text"), Objects.requireNonNull(name,
                "name"));
        if (!doc.valid()) {
            throw new IllegalArgumentException(doc.readErrors().get(0).oneLine());
        }
        return doc.policies().stream().map(SourcedPolicy::policy).toList();
    }
}
