package dev.custody.cli.command.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.custody.cli.ExitCode;
import dev.custody.client.ApiResponse;
import dev.custody.client.CustodyClient;
import dev.custody.client.model.Policy;
import dev.custody.client.model.PolicyChange;
import dev.custody.client.model.PolicyQuery;
import dev.custody.client.model.PolicyRevision;
import dev.custody.client.model.Rule;
import dev.custody.engine.files.Finding;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code custody api policies list|get|create|update|delete|history|wallets|pull|plan|apply}: the
 * policies of a workspace. Changes other than wallet targeting open an approval request, whose id is printed.
 * Not thread-safe (picocli state).
 */
@Command(name = "policies",
        mixinStandardHelpOptions = true,
        description = "List, read and change the spend-control policies of a workspace.",
        subcommands = {
            PoliciesCommand.ListPolicies.class,
            PoliciesCommand.Get.class,
            PoliciesCommand.Create.class,
            PoliciesCommand.Update.class,
            PoliciesCommand.Delete.class,
            PoliciesCommand.History.class,
            PoliciesCommand.Wallets.class,
            PolicySyncCommands.Pull.class,
            PolicySyncCommands.Plan.class,
            PolicySyncCommands.Apply.class,
        },
        footerHeading = "%nExamples:%n",
        footer = {"  custody api policies list --workspace-id 7d0c… --status active",
            "  custody api policies create --workspace-id 7d0c… --file policies/large-withdrawals.yaml",
            "  custody api policies plan --workspace-id 7d0c… policies/"})
final class PoliciesCommand extends ApiGroup {

    /** Options of the commands that act on one workspace. */
    abstract static class WorkspaceLeaf extends ApiLeaf {
        @Option(names = "--workspace-id", required = true, paramLabel = "UUID", description = "Workspace id.")
        String workspaceId;

        /** Prints the answer of a gated change: status, approval request id, new policy id. */
        void printChange(ApiResponse<PolicyChange> response) {
            if (printedAsJson(response)) {
                return;
            }
            PolicyChange change = response.data();
            if (change == null) {
                out.println("done");
                return;
            }
            printFields("status", change.status(),
                    "approval_request_id", change.approvalRequestId(),
                    "policy_id", change.policy() == null ? null : change.policy().id(),
                    "version", change.policy() == null ? null : change.policy().version());
        }
    }

    /** Options of the commands that act on one policy. */
    abstract static class PolicyLeaf extends WorkspaceLeaf {
        @Option(names = "--policy-id", required = true, paramLabel = "UUID", description = "Policy id.")
        String policyId;
    }

    /** {@code policies list --workspace-id W [--status S] [--limit N] [--offset N]}. */
    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the policies of a workspace.",
            footerHeading = "%nExamples:%n",
            footer = {"  custody api policies list --workspace-id 7d0c… --status pending --limit 20"})
    static final class ListPolicies extends WorkspaceLeaf {
        @Option(names = "--status", paramLabel = "STATUS", description = "pending, active, inactive or rejected.")
        String status;

        @Option(names = "--limit", paramLabel = "N", description = "At most N policies.")
        Integer limit;

        @Option(names = "--offset", paramLabel = "N", description = "Skip N policies.")
        Integer offset;

        @Override
        int run(CustodyClient client) {
            if (status != null && !List.of("pending", "active", "inactive", "rejected").contains(status)) {
                throw new UsageException("unknown policy status `" + status
                        + "`: use `pending`, `active`, `inactive` or `rejected`");
            }
            return printList(client.listPolicies(workspaceId, new PolicyQuery(status, limit, offset)), "no policies",
                    new String[] {"ID", "NAME", "STATUS", "VERSION", "RULES", "WALLETS"},
                    (Policy p) -> new Object[] {p.id(), p.name(), p.status(), p.version(), p.rules().size(),
                        p.walletIds().isEmpty() ? "all" : Integer.toString(p.walletIds().size())});
        }
    }

    /** {@code policies get --workspace-id W --policy-id P}. */
    @Command(name = "get", mixinStandardHelpOptions = true,
            description = "Show one policy with its rules (--format json shows everything the server sends, "
                    + "including the approval group and the pending approval request).",
            footerHeading = "%nExamples:%n", footer = {"  custody api policies get --workspace-id 7d0c… --policy-id 9a41…"})
    static final class Get extends PolicyLeaf {
        @Override
        int run(CustodyClient client) {
            ApiResponse<Policy> response = client.getPolicy(workspaceId, policyId);
            if (printedAsJson(response)) {
                return ExitCode.OK;
            }
            Policy p = response.data();
            printFields("id", p.id(), "name", p.name(), "status", p.status(), "version", p.version(),
                    "description", p.description(), "approval_group_id", p.approvalGroupId(),
                    "wallets", p.walletIds().isEmpty() ? "all" : String.join(", ", p.walletIds()));
            if (p.rules().isEmpty()) {
                out.println("rules: none");
                return ExitCode.OK;
            }
            out.println();
            Table table = new Table("RULE_ID", "ACTION", "EFFECT", "ENABLED", "CONDITION");
            for (Rule r : p.rules()) {
                table.row(r.ruleId(), r.triggerAction(), r.effect(), r.enabled(), r.condition());
            }
            table.print(out);
            return ExitCode.OK;
        }
    }

    /** {@code policies create --workspace-id W --file F}. */
    @Command(name = "create", mixinStandardHelpOptions = true,
            description = "Create a policy from a policy file (JSON or YAML); it stays pending until approved.",
            footerHeading = "%nExamples:%n",
            footer = {"  custody api policies create --workspace-id 7d0c… --file large-withdrawals.yaml"})
    static final class Create extends WorkspaceLeaf {
        @Option(names = "--file", required = true, paramLabel = "FILE",
                description = "Policy file: name, description, approval_group_id, wallet_ids, rules.")
        Path file;

        @Override
        int run(CustodyClient client) {
            List<Finding> readErrors = new ArrayList<>();
            LocalPolicies.Local local = LocalPolicies.single(file, readErrors);
            if (local == null) {
                return reportFindings(readErrors);
            }
            printChange(client.createPolicy(workspaceId, LocalPolicies.draft(local.policy())));
            return ExitCode.OK;
        }
    }

    /** {@code policies update --workspace-id W --policy-id P --file F}. */
    @Command(name = "update", mixinStandardHelpOptions = true,
            description = "Update a policy from a file: fields present are changed, absent ones kept; "
                    + "`rules` replaces the whole rule set.",
            footerHeading = "%nExamples:%n",
            footer = {"  custody api policies update --workspace-id 7d0c… --policy-id 9a41… --file large-withdrawals.yaml"})
    static final class Update extends PolicyLeaf {
        @Option(names = "--file", required = true, paramLabel = "FILE", description = "Policy file with the fields to change.")
        Path file;

        @Override
        int run(CustodyClient client) {
            List<Finding> readErrors = new ArrayList<>();
            LocalPolicies.Local local = LocalPolicies.single(file, readErrors);
            if (local == null) {
                return reportFindings(readErrors);
            }
            printChange(client.updatePolicy(workspaceId, policyId, LocalPolicies.update(local)));
            return ExitCode.OK;
        }
    }

    /** {@code policies delete --workspace-id W --policy-id P}. */
    @Command(name = "delete", mixinStandardHelpOptions = true,
            description = "Delete a policy (through approval when it has an approval group).",
            footerHeading = "%nExamples:%n", footer = {"  custody api policies delete --workspace-id 7d0c… --policy-id 9a41…"})
    static final class Delete extends PolicyLeaf {
        @Override
        int run(CustodyClient client) {
            printChange(client.deletePolicy(workspaceId, policyId));
            return ExitCode.OK;
        }
    }

    /** {@code policies history --workspace-id W --policy-id P}. */
    @Command(name = "history", mixinStandardHelpOptions = true,
            description = "List the revisions of a policy, newest first, with their field-level changes.",
            footerHeading = "%nExamples:%n", footer = {"  custody api policies history --workspace-id 7d0c… --policy-id 9a41…"})
    static final class History extends PolicyLeaf {
        @Override
        int run(CustodyClient client) {
            ApiResponse<List<PolicyRevision>> response = client.policyHistory(workspaceId, policyId);
            if (printedAsJson(response)) {
                return ExitCode.OK;
            }
            List<PolicyRevision> revisions = response.data();
            if (revisions.isEmpty()) {
                out.println("no revisions");
                return ExitCode.OK;
            }
            for (int i = 0; i < revisions.size(); i++) {
                JsonNode raw = response.raw().get(i);
                String version = text(raw, "version");
                String at = text(raw, "created_at");
                out.println("revision " + (version != null ? version : "#" + (i + 1)) + (at != null ? " (" + at + ")" : "")
                        + ": " + revisions.get(i).changes().size() + " change(s)");
                for (JsonNode change : revisions.get(i).changes()) {
                    out.println("  " + change);
                }
            }
            return ExitCode.OK;
        }
    }

    /** {@code policies wallets --workspace-id W --policy-id P (--wallet-id ID… | --all-wallets)}. */
    @Command(name = "wallets", mixinStandardHelpOptions = true,
            description = "Replace the wallets a policy targets; applies immediately (no approval).",
            footerHeading = "%nExamples:%n",
            footer = {"  custody api policies wallets --workspace-id 7d0c… --policy-id 9a41… --wallet-id 5b1e… --wallet-id 88c2…",
                "  custody api policies wallets --workspace-id 7d0c… --policy-id 9a41… --all-wallets"})
    static final class Wallets extends PolicyLeaf {
        @ArgGroup(exclusive = true, multiplicity = "1")
        Targets targets;

        /** Either a list of wallets or every wallet. */
        static final class Targets {
            @Option(names = "--wallet-id", paramLabel = "UUID", required = true, description = "A wallet to target (repeatable).")
            List<String> walletIds;

            @Option(names = "--all-wallets", required = true, description = "Target every wallet of the workspace.")
            boolean all;
        }

        @Override
        int run(CustodyClient client) {
            List<String> ids = targets.all ? List.of() : targets.walletIds;
            ApiResponse<JsonNode> response = client.setPolicyWallets(workspaceId, policyId, ids);
            if (printedAsJson(response)) {
                return ExitCode.OK;
            }
            out.println("policy `" + policyId + "` now targets " + (ids.isEmpty() ? "every wallet" : ids.size() + " wallet(s)"));
            return ExitCode.OK;
        }
    }
}
