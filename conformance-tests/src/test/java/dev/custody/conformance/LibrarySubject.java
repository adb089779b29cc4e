package dev.custody.conformance;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.custody.engine.files.FilePolicySource;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.compile.CompileResult;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.Decision;
import dev.custody.engine.FailureKind;
import dev.custody.engine.check.ActionReader;
import dev.custody.engine.files.Finding;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.files.PolicyFiles;
import dev.custody.engine.files.PolicyReader;
import dev.custody.engine.validate.PolicyValidator;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.validate.RuleUpdate;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The corpus run against the engine library through its public entry points, the way an embedding service
 * and the CLI use them: policy text through {@link PolicyReader} (so derived ids, unknown properties and
 * wrong types behave as for a policy file) into a {@link FilePolicySource}, action text through
 * {@link ActionReader}, and the decision from {@link PolicyEngine}: the path a service takes.
 *
 * <p>A policy file that does not read cleanly fails the load (failure {@code load}), and an action that cannot
 * be read is denied ({@code malformed_action}): both are fail-closed DENYs, never exceptions.
 *
 * <p>Thread-safe: the compiler is shared and immutable; an engine is built per request (it carries the
 * request's clock and budget).
 */
public final class LibrarySubject implements ConformanceSubject {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final PolicyValidator validator = new PolicyValidator(RuleCompiler.create());

    @Override
    public String name() {
        return "library";
    }

    @Override
    public DecisionResult decide(DecisionRequest request) {
        List<PolicyDocument> documents = List.of();
        if (!request.policiesJson().isBlank() && !request.policiesJson().strip().equals("[]")) {
            documents = List.of(PolicyReader.parse(request.policiesJson(), request.policiesFileName()));
        }
        PolicyEngine.Builder engine = PolicyEngine.builder(FilePolicySource.of(documents)::policies);
        if (request.now() != null) {
            engine.clock(Clock.fixed(request.now(), ZoneOffset.UTC));
        }
        if (request.budget() != null) {
            engine.timeBudget(request.budget());
        }
        if (request.costLimit() != null) {
            engine.costLimit(request.costLimit());
        }
        ActionReader.Result read = ActionReader.read(request.actionJson());
        if (read instanceof ActionReader.Malformed e) {
            return new DecisionResult("DENY", null, null, null, true, FailureKind.MALFORMED_ACTION.wireName(),
                    "malformed action: " + e.message());
        }
        if (!(read instanceof ActionReader.Read action)) {
            throw new IllegalArgumentException("a decision case needs an action, not a settlement record");
        }
        return of(engine.build().evaluate(action.action(), false));
    }

    @Override
    public ValidationResult validate(String triggerAction, String condition, String effect) {
        CompileResult result = validator.compiler().compile(triggerAction, condition, effect);
        return new ValidationResult(result.valid(), result.diagnostics().stream().map(LibrarySubject::of).toList());
    }

    @Override
    public ValidationResult validatePolicy(String fileName, String policyJson) {
        PolicyDocument doc = PolicyReader.parse(policyJson, fileName);
        List<DiagnosticResult> out = new ArrayList<>();
        boolean valid = true;
        for (Finding f : doc.validate(validator)) {
            Diagnostic d = f.diagnostic();
            valid &= !d.isError();
            out.add(new DiagnosticResult(d.code().id(), d.severity().wireName(), f.pointer(), d.line(), d.column(),
                    d.message(), d.hint()));
        }
        return new ValidationResult(valid, out);
    }

    @Override
    public ValidationResult validateRuleUpdate(String existingRuleJson, String updateJson) {
        Map<String, Object> existing = object(existingRuleJson);
        Map<String, Object> update = object(updateJson);
        Rule rule = new Rule((String) existing.get("rule_id"), (String) existing.get("trigger_action"),
                (String) existing.get("condition"), (String) existing.get("effect"),
                (String) existing.get("description"), (Boolean) existing.get("is_enabled"));
        RuleUpdate change = new RuleUpdate((String) update.get("trigger_action"), (String) update.get("condition"),
                (String) update.get("effect"), (String) update.get("description"), (Boolean) update.get("is_enabled"));
        List<Diagnostic> diagnostics = validator.validateRuleUpdate(rule, change);
        return new ValidationResult(diagnostics.stream().noneMatch(Diagnostic::isError),
                diagnostics.stream().map(LibrarySubject::of).toList());
    }

    private static DecisionResult of(Decision d) {
        return new DecisionResult(d.outcome().name(), d.policyId(), d.ruleId(), d.reason(), d.failClosed(),
                d.failure() == null ? null : d.failure().wireName(), d.error());
    }

    private static DiagnosticResult of(Diagnostic d) {
        return new DiagnosticResult(d.code().id(), d.severity().wireName(), d.pointer(), d.line(), d.column(),
                d.message(), d.hint());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(String json) {
        try {
            return JSON.readValue(json, Map.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("case holds malformed JSON: " + e.getOriginalMessage(), e);
        }
    }
}
