package dev.custody.analysis;

import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.diagnostic.DiagnosticCode;
import dev.custody.engine.files.Finding;
import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.validate.PolicyValidator;
import dev.custody.engine.files.Finding;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.validate.PolicyValidation;
import dev.custody.engine.validate.PolicyValidator;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.files.SourcedPolicy;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.files.DocumentSelection;
import dev.custody.engine.selection.SelectedRule;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.List;

/**
 * The rules the evaluator would keep from a set of policy documents, in declaration order (sorted path, then
 * position in the file, then position in the policy): the rules of engine-core's {@link DocumentSelection}, the
 * one selection the engine's bundle is built from (enabled rules of active policies, per workspace). Documents
 * that do not read cleanly and active policies that do not compile are {@link #problems() problems}: the engine
 * denies every action of their workspace (of every workspace, for an unreadable document or a broken policy of
 * every workspace), so nothing about that workspace's rules can be claimed and they are left out. Immutable and
 * thread-safe.
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

    /**
     * Reads the rules of documents already read, compiling conditions with {@code compiler}: the rules engine-core's
     * {@link DocumentSelection} selects, so that what is analysed is what the engine decides by.
     */
    public static PolicySet of(List<PolicyDocument> documents, RuleCompiler compiler) {
        DocumentSelection selection = DocumentSelection.of(documents, new PolicyValidator(compiler));
        List<AnalyzedRule> rules = new ArrayList<>();
        for (DocumentSelection.Located l : selection.rules()) {
            SelectedRule r = l.rule();
            Finding at = l.document().locate(l.source(), Diagnostic.at("/rules/" + r.ruleIndex(),
                    DiagnosticCode.INVALID_STATUS, "rule", null));
            rules.add(new AnalyzedRule(r.policyId(), r.ruleId(), r.effect(), r.action(), r.walletIds(),
                    l.workspaceId(), r.condition(), l.document().file(), at.line(), at.column()));
        }
        List<String> problems = selection.problems().stream().map(Finding::oneLine).toList();
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
