package dev.custody.cli.command.api;

import dev.custody.client.model.PolicyDraft;
import dev.custody.client.model.PolicyUpdate;
import dev.custody.client.model.RuleDraft;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.files.SourceNode;
import dev.custody.engine.files.Finding;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.files.PolicyFiles;
import dev.custody.engine.files.PolicyReader;
import dev.custody.engine.validate.PolicyValidator;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.files.SourcedPolicy;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Policy files on disk as the {@code api policies} commands use them: read with the engine's
 * {@link PolicyReader} (docs/design.md §4: JSON or YAML, one policy, an array or an envelope; unknown
 * properties are errors), linted with the engine's {@link PolicyValidator}, and turned into API
 * request bodies. Stateless.
 */
final class LocalPolicies {
    private LocalPolicies() {}

    /** One local policy and the file it came from. */
    record Local(Policy policy, SourcedPolicy source, String file) {
    }

    /** The policies of some files, and every lint finding (read errors first, then validation). */
    record Linted(List<Local> policies, List<Finding> findings, int files) {
        long errors() {
            return findings.stream().filter(f -> f.diagnostic().isError()).count();
        }

        long warnings() {
            return findings.size() - errors();
        }
    }

    /**
     * Reads and lints every policy file under {@code paths} (directories recursively), in
     * declaration order.
     */
    static Linted lint(List<Path> paths) {
        List<PolicyDocument> documents;
        try {
            documents = PolicyFiles.read(paths);
        } catch (NoSuchFileException e) {
            throw new InputFileException("cannot read `" + e.getFile() + "`: no such file or directory", true, e);
        } catch (IOException e) {
            throw new InputFileException("cannot read policy files: " + e.getMessage(), true, e);
        }
        PolicyValidator validator = new PolicyValidator(RuleCompiler.create());
        List<Local> policies = new ArrayList<>();
        List<Finding> findings = new ArrayList<>();
        for (PolicyDocument doc : documents) {
            findings.addAll(doc.validate(validator));
            for (SourcedPolicy sp : doc.policies()) {
                policies.add(new Local(sp.policy(), sp, doc.file()));
            }
        }
        return new Linted(List.copyOf(policies), List.copyOf(findings), documents.size());
    }

    /**
     * The single policy of {@code file}, read without compiling its conditions (the server
     * validates them on create and update).
     *
     * @throws InputFileException when the file is unreadable (exit 3), does not read cleanly, or
     *     does not hold exactly one policy (exit 1)
     */
    static Local single(Path file, List<Finding> readErrors) {
        PolicyDocument doc;
        try {
            doc = PolicyReader.read(file);
        } catch (NoSuchFileException e) {
            throw new InputFileException("cannot read `" + file + "`: no such file", true, e);
        } catch (IOException e) {
            throw new InputFileException("cannot read `" + file + "`: " + e.getMessage(), true, e);
        }
        if (!doc.valid()) {
            readErrors.addAll(doc.readErrors());
            return null;
        }
        if (doc.policies().size() != 1) {
            throw new InputFileException("`" + file + "` holds " + doc.policies().size()
                    + " policies: this command takes exactly one", false, null);
        }
        SourcedPolicy sp = doc.policies().get(0);
        return new Local(sp.policy(), sp, doc.file());
    }

    /** The create-policy body of a local policy (server-managed fields and rule ids are not sent). */
    static PolicyDraft draft(Policy p) {
        return new PolicyDraft(p.name(), p.description(), p.approvalGroupId(),
                p.walletIds().isEmpty() ? null : p.walletIds(), p.rules().isEmpty() ? null : rules(p.rules()));
    }

    /**
     * The update-policy body of a local policy file: only the fields the file contains, so absent
     * fields stay unchanged on the server; {@code rules: []} clears the rules.
     */
    static PolicyUpdate update(Local local) {
        Policy p = local.policy();
        SourceNode.ObjectNode node = (SourceNode.ObjectNode) local.source().node();
        return new PolicyUpdate(
                node.fields().containsKey("name") ? p.name() : null,
                node.fields().containsKey("description") ? p.description() : null,
                node.fields().containsKey("approval_group_id") ? p.approvalGroupId() : null,
                node.fields().containsKey("wallet_ids") ? p.walletIds() : null,
                node.fields().containsKey("rules") ? rules(p.rules()) : null);
    }

    static List<RuleDraft> rules(List<Rule> rules) {
        return rules.stream()
                .map(r -> new RuleDraft(r.triggerAction(), r.condition(), r.effect(), r.description(), r.isEnabled()))
                .toList();
    }
}
