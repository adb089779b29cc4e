package dev.custody.cli.command.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.custody.cli.ExitCode;
import dev.custody.client.ApiResponse;
import dev.custody.client.CustodyClient;
import dev.custody.client.model.Policy;
import dev.custody.client.model.PolicyChange;
import dev.custody.client.model.PolicyQuery;
import dev.custody.client.model.Rule;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Policy as code: {@code policies pull} writes a workspace's policies to files, {@code policies
 * plan} lints policy files and shows what would change in the workspace, {@code policies apply}
 * makes those changes (each opens an approval request, whose id is printed). Not thread-safe.
 */
final class PolicySyncCommands {
    /** Page size used to read every policy of a workspace. */
    static final int PAGE = 100;

    private PolicySyncCommands() {}

    /**
     * Every policy of the workspace, each read in full (with rules): the list endpoint's shape is
     * not in the spec, so each policy is fetched by id. Pages of {@value #PAGE} until a short page
     * or a page with nothing new.
     */
    static List<Policy> fetchAll(CustodyClient client, String workspaceId) {
        List<Policy> out = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (int offset = 0; ; offset += PAGE) {
            List<Policy> page = client.listPolicies(workspaceId, new PolicyQuery(null, PAGE, offset)).data();
            if (page == null) {
                break;
            }
            boolean fresh = false;
            for (Policy p : page) {
                if (p.id() != null && ids.add(p.id())) {
                    fresh = true;
                    out.add(full(client.getPolicy(workspaceId, p.id())));
                }
            }
            if (page.size() < PAGE || !fresh) {
                break;
            }
        }
        return out;
    }

    /** The policy of a get answer, with {@code approval_group_id} taken from {@code approval_group.id} when only that is sent. */
    private static Policy full(ApiResponse<Policy> response) {
        Policy p = response.data();
        if (p.approvalGroupId() == null && response.raw().path("approval_group").path("id").isTextual()) {
            String group = response.raw().path("approval_group").path("id").asText();
            return new Policy(p.id(), p.workspaceId(), p.name(), p.description(), group, p.walletIds(), p.rules(),
                    p.status(), p.version(), p.createdAt(), p.updatedAt());
        }
        return p;
    }

    /** The file name of a policy: its id (stable across renames), reduced to safe characters. */
    static String fileName(String policyId) {
        return policyId.replaceAll("[^A-Za-z0-9._-]", "_") + ".json";
    }

    /** The policy file content: the policy as docs/design.md §4 reads it, fields in a fixed order. */
    static String fileContent(Policy p, String workspaceId) {
        ObjectNode node = ApiLeaf.JSON.createObjectNode();
        node.put("id", p.id());
        node.put("name", p.name());
        if (p.description() != null) {
            node.put("description", p.description());
        }
        node.put("approval_group_id", p.approvalGroupId());
        node.putPOJO("wallet_ids", p.walletIds());
        var rules = node.putArray("rules");
        for (Rule r : p.rules()) {
            ObjectNode rn = rules.addObject();
            rn.put("rule_id", r.ruleId());
            rn.put("trigger_action", r.triggerAction());
            rn.put("condition", r.condition());
            rn.put("effect", r.effect());
            if (r.description() != null) {
                rn.put("description", r.description());
            }
            rn.put("is_enabled", r.enabled());
        }
        if (p.status() != null) {
            node.put("status", p.status());
        }
        if (p.version() != null) {
            node.put("version", p.version());
        }
        node.put("workspace_id", p.workspaceId() != null ? p.workspaceId() : workspaceId);
        try {
            return ApiLeaf.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node) + "\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot write policy json", e);
        }
    }

    /** Options of plan and apply: the workspace, the files, whether to delete what the files lack. */
    abstract static class SyncLeaf extends ApiLeaf {
        @Option(names = "--workspace-id", required = true, paramLabel = "UUID", description = "Workspace id.")
        String workspaceId;

        @Option(names = "--delete-missing",
                description = "Delete workspace policies that are in no file (otherwise they are kept).")
        boolean deleteMissing;

        @Parameters(arity = "1..*", paramLabel = "PATH", description = "Policy files or directories (searched recursively).")
        List<Path> paths;

        /** Lints the files; prints the findings; null when there are errors (exit 1 is then returned by the caller). */
        LocalPolicies.Linted lintOrNull(String verb) {
            LocalPolicies.Linted linted = LocalPolicies.lint(paths);
            reportFindings(linted.findings());
            if (linted.errors() > 0) {
                err.println("error: lint found " + linted.errors() + " error(s) in " + linted.files()
                        + " file(s): nothing was " + verb);
                return null;
            }
            return linted;
        }

        /** The plan text: one block per changed policy, then a summary line. */
        void printPlan(PolicyPlan plan) {
            for (PolicyPlan.Entry e : plan.entries()) {
                switch (e.kind()) {
                    case CREATE -> out.println("+ create `" + e.policyId() + "` (" + e.name() + ") from `" + e.file()
                            + "`: " + e.local().policy().rules().size() + " rule(s)");
                    case UPDATE -> {
                        out.println("~ update `" + e.policyId() + "` (" + e.name() + ") from `" + e.file() + "`");
                        e.fields().forEach(f -> out.println("    " + f.render()));
                        for (PolicyPlan.RuleChange r : e.rules()) {
                            switch (r.kind()) {
                                case "add" -> out.println("    + rule `" + r.ruleId() + "` " + r.local().triggerAction()
                                        + " " + r.local().effect() + ": " + r.local().condition());
                                case "remove" -> out.println("    - rule `" + r.ruleId() + "`");
                                default -> r.fields().forEach(f -> out.println("    ~ rule `" + r.ruleId() + "` " + f.render()));
                            }
                        }
                    }
                    case DELETE -> out.println("- " + (deleteMissing ? "delete" : "keep") + " `" + e.policyId() + "` ("
                            + e.name() + "): in no file" + (deleteMissing ? "" : " (pass --delete-missing to delete it)"));
                    case UNCHANGED -> { }
                }
            }
        }

        String summary(PolicyPlan plan) {
            return plan.count(PolicyPlan.Kind.CREATE) + " to create, " + plan.count(PolicyPlan.Kind.UPDATE)
                    + " to update, " + (deleteMissing ? plan.count(PolicyPlan.Kind.DELETE) : 0) + " to delete, "
                    + plan.count(PolicyPlan.Kind.UNCHANGED) + " unchanged"
                    + (!deleteMissing && plan.count(PolicyPlan.Kind.DELETE) > 0
                            ? ", " + plan.count(PolicyPlan.Kind.DELETE) + " kept" : "");
        }
    }

    /** {@code policies pull --workspace-id W --dir D}: one file per policy, named by policy id. */
    @Command(name = "pull", mixinStandardHelpOptions = true,
            description = "Write every policy of a workspace to DIR, one JSON policy file per policy named <policy id>.json.",
            footerHeading = "%nExamples:%n",
            footer = {"  custody api policies pull --workspace-id 7d0c… --dir policies/"})
    static final class Pull extends ApiLeaf {
        @Option(names = "--workspace-id", required = true, paramLabel = "UUID", description = "Workspace id.")
        String workspaceId;

        @Option(names = "--dir", required = true, paramLabel = "DIR", description = "Directory to write (created if needed).")
        Path dir;

        @Override
        int run(CustodyClient client) {
            List<Policy> policies = fetchAll(client, workspaceId);
            try {
                Files.createDirectories(dir);
                for (Policy p : policies) {
                    Path file = dir.resolve(fileName(p.id()));
                    Files.writeString(file, fileContent(p, workspaceId), StandardCharsets.UTF_8);
                    if (!json()) {
                        out.println("wrote `" + file + "` (" + p.name() + ", " + p.rules().size() + " rule(s))");
                    }
                }
            } catch (IOException e) {
                throw new InputFileException("cannot write to `" + dir + "`: " + e.getMessage(), true, e);
            }
            if (json()) {
                var files = JSON.createArrayNode();
                policies.forEach(p -> files.add(dir.resolve(fileName(p.id())).toString()));
                printJson(JSON.createObjectNode().set("files", files));
            } else {
                out.println("pulled " + policies.size() + " polic" + (policies.size() == 1 ? "y" : "ies") + " into `" + dir + "`");
            }
            return ExitCode.OK;
        }
    }

    /** {@code policies plan --workspace-id W PATH…}: lint, then the changes apply would make. */
    @Command(name = "plan", mixinStandardHelpOptions = true,
            description = "Lint policy files, then show the policies and fields that apply would create, update or delete.",
            footerHeading = "%nExamples:%n",
            footer = {"  custody api policies plan --workspace-id 7d0c… policies/",
                "  custody api policies plan --workspace-id 7d0c… --delete-missing --format json policies/"})
    static final class Plan extends SyncLeaf {
        @Override
        int run(CustodyClient client) {
            LocalPolicies.Linted linted = lintOrNull("planned");
            if (linted == null) {
                return ExitCode.INPUT;
            }
            PolicyPlan plan = PolicyPlan.compute(workspaceId, linted.policies(), fetchAll(client, workspaceId));
            if (json()) {
                printJson(plan.toJson());
            } else {
                printPlan(plan);
                out.println("plan: " + summary(plan));
            }
            return ExitCode.OK;
        }
    }

    /** {@code policies apply --workspace-id W PATH…}: refuses when lint fails; prints each approval request. */
    @Command(name = "apply", mixinStandardHelpOptions = true,
            description = "Lint policy files and, when clean, create and update the workspace's policies to match; "
                    + "each change opens an approval request. Rule ids may be reassigned by the server: pull after approval.",
            footerHeading = "%nExamples:%n",
            footer = {"  custody api policies apply --workspace-id 7d0c… policies/",
                "  custody api policies apply --workspace-id 7d0c… --delete-missing policies/"})
    static final class Apply extends SyncLeaf {
        @Override
        int run(CustodyClient client) {
            LocalPolicies.Linted linted = lintOrNull("applied");
            if (linted == null) {
                return ExitCode.INPUT;
            }
            PolicyPlan plan = PolicyPlan.compute(workspaceId, linted.policies(), fetchAll(client, workspaceId));
            if (!json()) {
                printPlan(plan);
            }
            var results = JSON.createArrayNode();
            for (PolicyPlan.Entry e : plan.entries()) {
                ApiResponse<PolicyChange> response;
                switch (e.kind()) {
                    case CREATE -> response = client.createPolicy(workspaceId, LocalPolicies.draft(e.local().policy()));
                    case UPDATE -> response = client.updatePolicy(workspaceId, e.policyId(), PolicyPlan.updateBody(e));
                    case DELETE -> {
                        if (!deleteMissing) {
                            continue;
                        }
                        response = client.deletePolicy(workspaceId, e.policyId());
                    }
                    default -> {
                        continue;
                    }
                }
                PolicyChange change = response.data();
                String verb = switch (e.kind()) {
                    case CREATE -> "created";
                    case UPDATE -> "updated";
                    default -> "deleted";
                };
                String status = change == null ? null : change.status();
                String request = change == null ? null : change.approvalRequestId();
                String newId = change != null && change.policy() != null ? change.policy().id() : null;
                if (!json()) {
                    out.println(verb + " `" + e.policyId() + "`"
                            + (newId != null && !newId.equals(e.policyId()) ? " as `" + newId + "`" : "")
                            + ": " + (request != null ? "approval request `" + request + "`" : "status `" + status + "`"));
                }
                ObjectNode r = results.addObject().put("action", verb).put("policy_id", e.policyId());
                r.put("new_policy_id", newId).put("status", status).put("approval_request_id", request);
            }
            if (json()) {
                printJson(JSON.createObjectNode().set("applied", results));
            } else {
                out.println("apply: " + summary(plan).replace("to create", "created").replace("to update", "updated")
                        .replace("to delete", "deleted"));
            }
            return ExitCode.OK;
        }
    }
}
