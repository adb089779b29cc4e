package dev.custody.engine.policy;

import dev.custody.engine.PolicySource;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link PolicySource} over policy files and directories, re-read on every load (so
 * {@link dev.custody.engine.PolicyEngine#invalidate} picks up edits). A workspace gets the policies whose
 * {@code workspace_id} is absent or equal to it, in declaration order.
 *
 * <p>Fail-closed: a file that does not read cleanly (malformed, wrong types, unknown properties) fails the
 * load, so the workspace's actions are denied rather than decided on part of the policies.
 *
 * <p>Thread-safe (stateless apart from the immutable path list).
 */
public final class FilePolicySource implements PolicySource {
    private final List<Path> paths;

    /** A source over these files and directories. */
    public FilePolicySource(List<Path> paths) {
        this.paths = List.copyOf(paths);
    }

    @Override
    public List<Policy> policies(String workspaceId) throws IOException {
        List<Policy> out = new ArrayList<>();
        for (PolicyDocument doc : PolicyFiles.read(paths)) {
            if (!doc.valid()) {
                throw new IOException("`" + doc.file() + "` is not a valid policy file: "
                        + doc.readErrors().get(0).oneLine());
            }
            for (SourcedPolicy sp : doc.policies()) {
                String ws = sp.policy().workspaceId();
                if (ws == null || ws.equalsIgnoreCase(workspaceId)) {
                    out.add(sp.policy());
                }
            }
        }
        return out;
    }
}
