package dev.custody.cli.command;

import dev.custody.engine.bundle.BundleError;
import dev.custody.engine.bundle.PolicyBundle;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.diagnostic.DiagnosticCode;
import dev.custody.engine.policy.Finding;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.policy.PolicyDocument;
import dev.custody.engine.policy.PolicyFiles;
import dev.custody.engine.policy.PolicyValidator;
import dev.custody.engine.policy.SourcedPolicy;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Policy files read once, and the compiled bundle of each workspace built from them, exactly as
 * {@link dev.custody.engine.policy.FilePolicySource} and the engine would: a workspace gets the policies whose
 * {@code workspace_id} is absent or equal to its own (case-insensitive), in declaration order (sorted path,
 * then position in the file); an action without a workspace gets the policies without one.
 *
 * <p>Fail-closed like the engine: when a file does not read cleanly, no bundle is built and
 * {@link #loadFailure()} says why (every action is then denied); a bundle whose policies do not compile is
 * invalid and denies every action of its workspaces. {@link #problems} places those errors at file:line:column.
 *
 * <p>Workspaces selecting the same policies share one bundle, so a stream over many workspaces compiles once
 * per distinct selection; the workspace → bundle map is an LRU bounded to {@value #MAX_WORKSPACES} entries, so
 * memory stays bounded on any stream. Not thread-safe.
 */
final class PolicySet {
    static final int MAX_WORKSPACES = 10_000;

    private final List<PolicyDocument> documents;
    private final List<SourcedPolicy> policies = new ArrayList<>();
    private final List<PolicyDocument> owners = new ArrayList<>();
    private final PolicyValidator validator;
    private final String loadFailure;
    private final Map<List<Integer>, PolicyBundle> bySelection = new HashMap<>();
    private final Map<String, PolicyBundle> byWorkspace = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, PolicyBundle> eldest) {
            return size() > MAX_WORKSPACES;
        }
    };

    PolicySet(List<PolicyDocument> documents, PolicyValidator validator) {
        this.documents = List.copyOf(documents);
        this.validator = validator;
        String failure = null;
        for (PolicyDocument d : documents) {
            if (failure == null && !d.valid()) {
                Finding first = d.readErrors().stream().filter(f -> f.diagnostic().isError()).findFirst().orElseThrow();
                failure = "policies could not be loaded: `" + d.file() + "` is not a valid policy file: " + first.oneLine();
            }
            for (SourcedPolicy sp : d.policies()) {
                policies.add(sp);
                owners.add(d);
            }
        }
        this.loadFailure = failure;
    }

    /** Reads the policy files under {@code paths} (a missing path throws {@link java.nio.file.NoSuchFileException}). */
    static PolicySet read(List<Path> paths, PolicyValidator validator) throws IOException {
        return new PolicySet(PolicyFiles.read(paths), validator);
    }

    List<PolicyDocument> documents() {
        return documents;
    }

    /** Why the files cannot be used (the first read error), or null when they all read cleanly. */
    String loadFailure() {
        return loadFailure;
    }

    /** Every read error of every file. */
    List<Finding> readErrors() {
        List<Finding> out = new ArrayList<>();
        documents.forEach(d -> out.addAll(d.readErrors()));
        return out;
    }

    /** Every policy read, in declaration order. */
    List<Policy> policies() {
        return policies.stream().map(SourcedPolicy::policy).toList();
    }

    /** The bundle of a workspace (null: the policies without a workspace); only when {@link #loadFailure()} is null. */
    PolicyBundle bundle(String workspaceId) {
        String key = workspaceId == null ? "" : workspaceId.toLowerCase(Locale.ROOT);
        PolicyBundle b = byWorkspace.get(key);
        if (b == null) {
            List<Integer> selection = new ArrayList<>();
            for (int i = 0; i < policies.size(); i++) {
                String ws = policies.get(i).policy().workspaceId();
                if (ws == null || (workspaceId != null && ws.equalsIgnoreCase(workspaceId))) {
                    selection.add(i);
                }
            }
            b = bySelection.computeIfAbsent(selection, s -> {
                List<Policy> selected = new ArrayList<>();
                s.forEach(i -> selected.add(policies.get(i).policy()));
                PolicyBundle compiled = PolicyBundle.compile(selected, validator);
                Warmup.bundle(compiled);
                return compiled;
            });
            byWorkspace.put(key, b);
        }
        return b;
    }

    /** The distinct bundles built so far. */
    List<PolicyBundle> bundles() {
        return List.copyOf(bySelection.values());
    }

    /** An invalid bundle's errors, each placed at file:line:column when its policy can be found. */
    List<String> problems(PolicyBundle bundle) {
        List<String> out = new ArrayList<>();
        for (BundleError e : bundle.errors()) {
            int at = find(e.policyId(), e.diagnostic().code() == DiagnosticCode.DUPLICATE_ID);
            if (at < 0) {
                out.add(e.describe());
                continue;
            }
            Diagnostic d = e.diagnostic();
            Finding f = owners.get(at).locate(policies.get(at), d);
            out.add(f.oneLine() + (d.hint() == null ? "" : " (hint: " + d.hint() + ")"));
        }
        return out;
    }

    private int find(String policyId, boolean last) {
        int found = -1;
        for (int i = 0; i < policies.size(); i++) {
            if (policyId.equals(policies.get(i).policy().id())) {
                found = i;
                if (!last) {
                    break;
                }
            }
        }
        return found;
    }
}
