package dev.custody.engine;

import dev.custody.engine.policy.Policy;
import java.util.List;

/**
 * Where the engine gets a workspace's policies: a database, the custody API, a directory of files
 * ({@code dev.custody.engine.files.FilePolicySource}).
 *
 * <p>The returned list is in <em>declaration order</em>, which decides attribution (the first true rule
 * wins): the API's creation order, or for files the sorted path then the position in the file. It may
 * contain policies of any status; the engine keeps the active ones.
 *
 * <p>The engine passes the workspace id in one canonical spelling (lower case), whatever spelling the caller
 * used, and {@link #NO_WORKSPACE} for an action that names no workspace (only offline tools decide such
 * actions; a source with no notion of them may throw, which denies them).
 *
 * <p>Implementations must be thread-safe: the engine calls {@link #policies} from evaluating threads,
 * at most once at a time per workspace.
 */
@FunctionalInterface
public interface PolicySource {

    /** The workspace key under which actions without a {@code workspace_id} are decided: the empty string. */
    String NO_WORKSPACE = "";

    /**
     * The policies of a workspace, in declaration order.
     *
     * @param workspaceId the canonical (lower-case) workspace id, or {@link #NO_WORKSPACE}
     * @throws Exception when they cannot be loaded; the engine then denies the workspace's actions
     *     ({@code fail_closed}, failure {@code load}) and tries again on the next evaluation
     */
    List<Policy> policies(String workspaceId) throws Exception;
}
