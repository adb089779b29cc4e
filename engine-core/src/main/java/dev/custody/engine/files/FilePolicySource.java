package dev.custody.engine.files;

import dev.custody.engine.policy.BundleError;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.diagnostic.DiagnosticCode;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.files.PolicyFiles;
import dev.custody.engine.files.SourcedPolicy;
import dev.custody.engine.selection.RuleSelection;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The policies of policy files and directories (docs/design.md §4), by workspace: what the {@code custody} verbs
 * and the conformance corpus decide with, and what a service that keeps its policies in a repository can use. Its
 * {@link #policies} is a {@code PolicySource} of the engine's API: give the engine {@code source::policies}. (It
 * does not implement that interface: this package lies below the engine, and names nothing of it; docs/design.md
 * §9.1.)
 *
 * <h2>Which policies a workspace gets</h2>
 * A workspace gets the policies whose {@code workspace_id} is absent or equal to its own (case-insensitive),
 * in declaration order: sorted path, then position in the file. An action that names no workspace is decided
 * under {@link RuleSelection#NO_WORKSPACE} (the engine's {@code PolicySource.NO_WORKSPACE}), which gets only the policies that name none.
 *
 * <h2>Two ways to read</h2>
 * <ul>
 *   <li>{@link #watching(List)} re-reads the files on every load, so {@code PolicyEngine.invalidate} picks up
 *       edits: for a long-running process.
 *   <li>{@link #read(List)} reads them once, now: for a run over a fixed set of files (a replay, a test run),
 *       where every workspace must see the same files and read errors are reported up front
 *       ({@link #readErrors()}), with {@link #locate} placing a bundle's compile errors at file:line:column.
 * </ul>
 *
 * <p><b>Fail-closed.</b> A file that does not read cleanly (malformed, wrong types, unknown properties) fails
 * every load, so actions are denied ({@code FailureKind.LOAD}) rather than decided on
 * part of the policies.
 *
 * <p>Immutable and thread-safe.
 */
public final class FilePolicySource {
    private final List<Path> paths;
    private final List<PolicyDocument> documents;

    private FilePolicySource(List<Path> paths, List<PolicyDocument> documents) {
        this.paths = paths;
        this.documents = documents;
    }

    /** A source that re-reads these files and directories on every load. */
    public static FilePolicySource watching(List<Path> paths) {
        return new FilePolicySource(List.copyOf(paths), null);
    }

    /**
     * A source over these files and directories as they are now, read once.
     *
     * @throws java.nio.file.NoSuchFileException when a path does not exist
     * @throws IOException when a file or directory cannot be read
     */
    public static FilePolicySource read(List<Path> paths) throws IOException {
        return of(PolicyFiles.read(paths));
    }

    /** A source over documents already read (in declaration order). */
    public static FilePolicySource of(List<PolicyDocument> documents) {
        return new FilePolicySource(List.of(), List.copyOf(documents));
    }

    /** The documents read once by {@link #read}/{@link #of}; empty for a {@link #watching} source. */
    public List<PolicyDocument> documents() {
        return documents == null ? List.of() : documents;
    }

    /** Every read error of the documents read once; empty when they all read cleanly (or for a watching source). */
    public List<Finding> readErrors() {
        List<Finding> out = new ArrayList<>();
        documents().forEach(d -> out.addAll(d.readErrors()));
        return out;
    }

    /**
     * The policies of a workspace, in declaration order: those that name no workspace and those that name this one
     * ({@link RuleSelection#inWorkspace}); {@link RuleSelection#NO_WORKSPACE} gets only those that name none.
     *
     * @throws IOException when a file cannot be read or does not read cleanly
     */
    public List<Policy> policies(String workspaceId) throws IOException {
        List<PolicyDocument> docs = documents != null ? documents : PolicyFiles.read(paths);
        List<Policy> out = new ArrayList<>();
        for (PolicyDocument doc : docs) {
            if (!doc.valid()) {
                Finding first = doc.readErrors().stream().filter(f -> f.diagnostic().isError()).findFirst()
                        .orElse(doc.readErrors().get(0));
                throw new IOException("`" + doc.file() + "` is not a valid policy file: " + first.oneLine());
            }
            for (SourcedPolicy sp : doc.policies()) {
                if (RuleSelection.inWorkspace(sp.policy().workspaceId(), workspaceId)) {
                    out.add(sp.policy());
                }
            }
        }
        return out;
    }

    /**
     * A bundle error placed at file:line:column in the documents read once, with its hint; the error's own
     * one-line form when its policy cannot be found there.
     */
    public String locate(BundleError error) {
        boolean last = error.diagnostic().code() == DiagnosticCode.DUPLICATE_ID;
        PolicyDocument owner = null;
        SourcedPolicy found = null;
        for (PolicyDocument d : documents()) {
            for (SourcedPolicy sp : d.policies()) {
                if (error.policyId().equals(sp.policy().id()) && (found == null || last)) {
                    owner = d;
                    found = sp;
                }
            }
        }
        if (found == null) {
            return error.describe();
        }
        Diagnostic d = error.diagnostic();
        return owner.locate(found, d).oneLine() + (d.hint() == null ? "" : " (hint: " + d.hint() + ")");
    }
}
