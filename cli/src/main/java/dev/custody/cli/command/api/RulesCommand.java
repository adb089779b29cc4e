package dev.custody.cli.command.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.custody.cli.ExitCode;
import dev.custody.client.ApiResponse;
import dev.custody.client.CustodyClient;
import dev.custody.client.model.RuleDraft;
import dev.custody.client.model.RuleUpdate;
import dev.custody.client.model.RuleValidation;
import dev.custody.client.model.RuleValidationRequest;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code custody api rules validate|create|update|delete}: rules of a workspace's policies. The
 * trigger action and effect names are checked before sending (exit 2). Not thread-safe.
 */
@Command(name = "rules",
        mixinStandardHelpOptions = true,
        description = "Validate, create, update and delete policy rules.",
        subcommands = {RulesCommand.Validate.class, RulesCommand.Create.class, RulesCommand.Update.class,
            RulesCommand.Delete.class},
        footerHeading = "%nExamples:%n",
        footer = {"  custody api rules validate --workspace-id 7d0c… --action withdrawal.create --effect DENY "
                + "'withdrawal.value_usd > 10000'"})
final class RulesCommand extends ApiGroup {
    static final List<String> ACTIONS = List.of("withdrawal.create", "web3.contract_call");
    static final List<String> EFFECTS = List.of("ALLOW", "DENY");

    static String action(String action) {
        if (!ACTIONS.contains(action)) {
            throw new UsageException("unknown trigger action `" + action + "`: use `withdrawal.create` or `web3.contract_call`");
        }
        return action;
    }

    static String effect(String effect) {
        if (effect == null) {
            return null;
        }
        String upper = effect.toUpperCase(Locale.ROOT);
        if (!EFFECTS.contains(upper)) {
            throw new UsageException("unknown effect `" + effect + "`: use `ALLOW` or `DENY`");
        }
        return upper;
    }

    /** The workspace option of every rules command. */
    abstract static class RulesLeaf extends ApiLeaf {
        @Option(names = "--workspace-id", required = true, paramLabel = "UUID", description = "Workspace id.")
        String workspaceId;

        void printStatus(ApiResponse<JsonNode> response, String fallback) {
            if (printedAsJson(response)) {
                return;
            }
            JsonNode data = response.raw();
            if (data != null && data.isObject() && (data.has("status") || data.has("approval_request_id"))) {
                printFields("status", text(data, "status"), "approval_request_id", text(data, "approval_request_id"));
            } else {
                out.println(fallback);
            }
        }
    }

    /** {@code rules validate --workspace-id W --action A --effect E CONDITION}. */
    @Command(name = "validate", mixinStandardHelpOptions = true,
            description = "Compile-check a condition on the server without saving it; exit 1 when it is not valid.",
            footerHeading = "%nExamples:%n",
            footer = {"  custody api rules validate --workspace-id 7d0c… --action withdrawal.create --effect DENY "
                    + "'withdrawal.value_usd > 10000'"})
    static final class Validate extends RulesLeaf {
        @Option(names = {"--action", "--trigger-action"}, required = true, paramLabel = "ACTION",
                description = "withdrawal.create or web3.contract_call.")
        String action;

        @Option(names = "--effect", required = true, paramLabel = "EFFECT", description = "ALLOW or DENY.")
        String effect;

        @Parameters(index = "0", paramLabel = "CONDITION", description = "The CEL condition.")
        String condition;

        @Override
        int run(CustodyClient client) {
            ApiResponse<RuleValidation> response = client.validateRule(workspaceId,
                    new RuleValidationRequest(action(action), condition, effect(effect)));
            boolean valid = response.data() != null && response.data().valid();
            if (!printedAsJson(response)) {
                out.println(valid ? "valid" : "invalid: the server rejected `" + condition + "`");
            }
            return valid ? ExitCode.OK : ExitCode.INPUT;
        }
    }

    /** {@code rules create --workspace-id W --policy-id P --action A --effect E [--description D] [--disabled] CONDITION}. */
    @Command(name = "create", mixinStandardHelpOptions = true,
            description = "Add a rule to a policy (through approval when the policy has an approval group).",
            footerHeading = "%nExamples:%n",
            footer = {"  custody api rules create --workspace-id 7d0c… --policy-id 9a41… --action withdrawal.create "
                    + "--effect DENY --description 'large withdrawal' 'withdrawal.value_usd > 10000'"})
    static final class Create extends RulesLeaf {
        @Option(names = "--policy-id", required = true, paramLabel = "UUID", description = "Policy id.")
        String policyId;

        @Option(names = {"--action", "--trigger-action"}, required = true, paramLabel = "ACTION",
                description = "withdrawal.create or web3.contract_call.")
        String action;

        @Option(names = "--effect", required = true, paramLabel = "EFFECT", description = "ALLOW or DENY.")
        String effect;

        @Option(names = "--description", paramLabel = "TEXT", description = "Decision message when the rule matches.")
        String description;

        @Option(names = "--disabled", description = "Create the rule disabled.")
        boolean disabled;

        @Parameters(index = "0", paramLabel = "CONDITION", description = "The CEL condition.")
        String condition;

        @Override
        int run(CustodyClient client) {
            RuleDraft draft = new RuleDraft(action(action), condition, effect(effect), description, disabled ? Boolean.FALSE : null);
            var response = client.createRule(workspaceId, policyId, draft);
            if (printedAsJson(response)) {
                return ExitCode.OK;
            }
            if (response.data() == null) {
                out.println("rule created");
            } else {
                printFields("status", response.data().status(), "approval_request_id", response.data().approvalRequestId());
            }
            return ExitCode.OK;
        }
    }

    /** {@code rules update --workspace-id W --rule-id R [--condition C] [--effect E] [--description D] [--enabled B]}. */
    @Command(name = "update", mixinStandardHelpOptions = true,
            description = "Change a rule's condition, effect, description or enabled flag (its trigger action cannot change).",
            footerHeading = "%nExamples:%n",
            footer = {"  custody api rules update --workspace-id 7d0c… --rule-id 41 --condition 'withdrawal.value_usd > 20000'",
                "  custody api rules update --workspace-id 7d0c… --rule-id 41 --enabled=false"})
    static final class Update extends RulesLeaf {
        @Option(names = "--rule-id", required = true, paramLabel = "ID", description = "Rule id.")
        String ruleId;

        @Option(names = "--condition", paramLabel = "CEL", description = "New condition.")
        String condition;

        @Option(names = "--effect", paramLabel = "EFFECT", description = "New effect: ALLOW or DENY.")
        String effect;

        @Option(names = "--description", paramLabel = "TEXT", description = "New description.")
        String description;

        @Option(names = "--enabled", paramLabel = "BOOL", arity = "1", description = "true or false.")
        Boolean enabled;

        @Override
        int run(CustodyClient client) {
            if (condition == null && effect == null && description == null && enabled == null) {
                throw new UsageException("nothing to update: give `--condition`, `--effect`, `--description` or `--enabled`");
            }
            printStatus(client.updateRule(workspaceId, ruleId, new RuleUpdate(condition, effect(effect), description, enabled)),
                    "rule `" + ruleId + "` updated");
            return ExitCode.OK;
        }
    }

    /** {@code rules delete --workspace-id W --rule-id R}. */
    @Command(name = "delete", mixinStandardHelpOptions = true, description = "Delete a rule from its policy.",
            footerHeading = "%nExamples:%n", footer = {"  custody api rules delete --workspace-id 7d0c… --rule-id 41"})
    static final class Delete extends RulesLeaf {
        @Option(names = "--rule-id", required = true, paramLabel = "ID", description = "Rule id.")
        String ruleId;

        @Override
        int run(CustodyClient client) {
            printStatus(client.deleteRule(workspaceId, ruleId), "rule `" + ruleId + "` deleted");
            return ExitCode.OK;
        }
    }
}
