package dev.custody.cli.serve;

import dev.custody.cli.command.api.WorkspacePolicies;
import dev.custody.client.CustodyClient;
import dev.custody.engine.files.FilePolicySource;
import dev.custody.engine.PolicySource;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.files.PolicyReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The policies of one workspace, fetched through the custody API client ({@code custody serve --from-api}) and kept
 * in memory: {@link #refresh()} fetches them (as {@code custody api policies pull} does, so a fetched policy decides
 * as its pulled file would) and, when anything differs from what is held, swaps them in and runs the change hook
 * (the server drops its cached bundles, so the next request decides on them, under a new {@code bundle_revision}).
 *
 * <p>The client has no conditional requests (no ETag in the API the spec describes), so each poll fetches the
 * policies and compares their texts with those held; the revision a decision names is the engine's
 * {@code bundle_revision}, a digest of the policies it decided with.
 *
 * <p>Fail-closed: before the first successful fetch every action is denied (failure {@code load}); a failed poll
 * keeps deciding on the policies of the last good one (as OPA keeps its last activated bundle), reported by the
 * caller. Actions of another workspace, or of none, are denied ({@code load}): this server holds only this
 * workspace's policies, and deciding another's on them would be wrong.
 *
 * <p>Thread-safe: {@link #policies} reads one immutable snapshot; {@link #refresh()} is called from one thread.
 */
final class ApiPolicySource implements PolicySource {
    /** The policy texts in the API's order (which is declaration order), and the source over them. */
    private record Snapshot(List<Map.Entry<String, String>> texts, FilePolicySource source) {}

    private final CustodyClient client;
    private final String workspaceId;
    private final Runnable changed;
    private volatile Snapshot snapshot;

    ApiPolicySource(CustodyClient client, String workspaceId, Runnable changed) {
        this.client = Objects.requireNonNull(client, "client");
        this.workspaceId = workspaceId.toLowerCase(Locale.ROOT);
        this.changed = Objects.requireNonNull(changed, "changed");
    }

    /**
     * Fetches the workspace's policies; swaps them in when they differ from those held.
     *
     * @return whether they changed (true on the first fetch)
     * @throws dev.custody.client.CustodyClientException when the API fails (what is held stays)
     */
    boolean refresh() {
        List<Map.Entry<String, String>> texts = new ArrayList<>();
        WorkspacePolicies.fetch(client, workspaceId).forEach((name, text) -> texts.add(Map.entry(name, text)));
        Snapshot held = snapshot;
        if (held != null && held.texts().equals(texts)) {
            return false;
        }
        List<PolicyDocument> documents = new ArrayList<>(texts.size());
        texts.forEach(e -> documents.add(PolicyReader.parse(e.getValue(), e.getKey())));
        snapshot = new Snapshot(List.copyOf(texts), FilePolicySource.of(documents));
        changed.run();
        return true;
    }

    /** Whether a fetch has succeeded. */
    boolean fetched() {
        return snapshot != null;
    }

    /** How many policies are held. */
    int size() {
        Snapshot s = snapshot;
        return s == null ? 0 : s.texts().size();
    }

    @Override
    public List<Policy> policies(String workspace) throws IOException {
        Snapshot s = snapshot;
        if (s == null) {
            throw new IOException("the policies of workspace `" + workspaceId + "` have not been fetched from the API yet");
        }
        if (!workspaceId.equals(workspace)) {
            throw new IOException(PolicySource.NO_WORKSPACE.equals(workspace)
                    ? "the action names no workspace; this server decides for workspace `" + workspaceId + "` only"
                    : "this server decides for workspace `" + workspaceId + "` only, not `" + workspace + "`");
        }
        return s.source().policies(workspace);
    }
}
