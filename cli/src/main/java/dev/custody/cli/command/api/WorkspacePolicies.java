package dev.custody.cli.command.api;

import dev.custody.client.CustodyClient;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A workspace's policies as {@code custody api policies pull} writes them, for other parts of the tool that read
 * policies through the API ({@code custody serve --from-api}): one policy-file text per policy, the same text pull
 * writes to a file, so a policy fetched decides exactly as its pulled file does. Stateless and thread-safe (as far
 * as the client is).
 */
public final class WorkspacePolicies {
    private WorkspacePolicies() {}

    /**
     * Every policy of the workspace, in the API's order, as {@code file name → policy file text} (JSON, named by
     * policy id); reads them as pull does, page by page, each policy by id.
     *
     * @throws dev.custody.client.CustodyClientException when the API fails
     */
    public static Map<String, String> fetch(CustodyClient client, String workspaceId) {
        Map<String, String> out = new LinkedHashMap<>();
        for (dev.custody.client.model.Policy p : PolicySyncCommands.fetchAll(client, workspaceId)) {
            out.put(PolicySyncCommands.fileName(p.id()), PolicySyncCommands.fileContent(p, workspaceId));
        }
        return out;
    }
}
