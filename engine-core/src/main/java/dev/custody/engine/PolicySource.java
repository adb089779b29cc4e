package dev.custody.engine;

import dev.custody.engine.policy.Policy;
import java.util.List;

/**
 * Where the engine gets a workspace's policies: a database, the custody API, a directory of files.
 *
 * <p>The returned list is in <em>declaration order</em>, which decides attribution (the first true rule
 * wins): the API's creation order, or for files the sorted path then the position in the file. It may
 * contain policies of any status; the engine keeps the active ones.
 *
 * <p>Implementations must be thread-safe: the engine calls {@link #policies} from evaluating threads,
 * at most once at a time per workspace.
 */
@FunctionalInterface
public interface PolicySource {

    /**
     * The policies of a workspace, in declaration order.
     *
     * @throws Exception when they cannot be loaded; the engine then denies the workspace's actions
     *     ({@code fail_closed}) and tries again on the next evaluation
     */
    List<Policy> policies(String workspaceId) throws Exception;
}
