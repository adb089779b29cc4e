package dev.custody.analysis;

import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.diagnostic.DiagnosticCode;
import dev.custody.engine.files.Finding;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.validate.PolicyValidation;
import dev.custody.engine.validate.PolicyValidator;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.files.SourcedPolicy;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.PolicyStatus;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The rules the evaluator would keep from a set of policy documents, in declaration order (sorted path, then
 * position in the file, then position in the policy): enabled rules of active policies, as
 * {@code PolicyBundle} keeps them. Documents that do not read cleanly and active policies that do not compile
 * are {@link #problems() problems} (the engine would deny every action of their workspace, so nothing about
 * their rules can be claimed); their rules are left out. Immutable and thread-safe.
 */
public final class PolicySet {
    private final List<PolicyDocument> documents;
    private final List<AnalyzedRule> rules;
    private final List<String> problems;

    private PolicySet(List<PolicyDocument> documents, List<AnalyzedRule> rules, List<String> problems) {
        this.documents = List.copyOf(documents);
        this.rules = List.copyOf(rules);
        this.problems = List.copyOf(problems);
    }

    /** Reads the rules of documents already read, compiling conditions with {@code compiler}. */
    public static PolicySet of(List<PolicyDocument> documents, RuleCompiler compiler) {
        PolicyValidator validator = new PolicyValidator(compiler);
        List<AnalyzedRule> rules = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (PolicyDocument doc : documents) {
            if (!doc.valid()) {
                doc.readErrors().forEach(f -> problems.add(f.oneLine()));
                continue;
            }
            for (SourcedPolicy sp : doc.policies()) {
                Policy policy = sp.policy();
                if (policy.effectiveStatus().isEmpty()) {
                    problems.add(doc.locate(sp, Diagnostic.at("/status", DiagnosticCode.INVALID_STATUS,
                            "unknown status `" + policy.status() + "`", null)).oneLine());
                    continue;
                }
                if (policy.effectiveStatus().get() != PolicyStatus.ACTIVE) {
                    continue;
                }
                String workspace = policy.workspaceId() == null ? null : policy.workspaceId().toLowerCase(Locale.ROOT);
                if (!ids.add(workspace + "\u0000" + policy.id())) {
                    problems.add(doc.locate(sp, Diagnostic.at("/id", DiagnosticCode.DUPLICATE_ID,
                            "policy id `" + policy.id() + "` is used by an earlier active policy", null)).oneLine());
                    continue;
                }
                PolicyValidation validation = validator.validate(policy, false);
                if (!validation.valid()) {
                    for (Diagnostic d : validation.errors()) {
                        problems.add(doc.locate(sp, d).oneLine());
                    }
                    continue;
                }
                Set<String> wallets = new HashSet<>();
                policy.walletIds().forEach(w -> wallets.add(w.toLowerCase(Locale.ROOT)));
                for (int r = 0; r < policy.rules().size(); r++) {
                    Rule rule = policy.rules().get(r);
                    if (!rule.enabled()) {
                        continue;
                    }
                    Finding at = doc.locate(sp, Diagnostic.at("/rules/" + r, DiagnosticCode.INVALID_STATUS, "rule",
                            null));
                    String ruleId = rule.ruleId() != null ? rule.ruleId() : policy.id() + "#" + r;
                    rules.add(new AnalyzedRule(policy.id(), ruleId, Effect.fromWireName(rule.effect()).orElseThrow(),
                            TriggerAction.fromWireName(rule.triggerAction()).orElseThrow(), wallets, workspace,
                            validation.compiled(r).orElseThrow(), doc.file(), at.line(), at.column()));
                }
            }
        }
        return new PolicySet(documents, rules, problems);
    }

    /** The documents, in declaration order. */
    public List<PolicyDocument> documents() {
        return documents;
    }

    /** The kept rules, in declaration order. */
    public List<AnalyzedRule> rules() {
        return rules;
    }

    /** The kept rules of one trigger action, in declaration order. */
    public List<AnalyzedRule> rules(TriggerAction action) {
        return rules.stream().filter(r -> r.action() == action).toList();
    }

    /** Read and compile errors, one line each at file:line:column; empty when every active policy compiles. */
    public List<String> problems() {
        return problems;
    }
}
