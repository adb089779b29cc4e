package dev.custody.conformance;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.custody.engine.bundle.PolicyBundle;
import dev.custody.engine.compile.CompileResult;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.eval.Decision;
import dev.custody.engine.eval.Evaluator;
import dev.custody.engine.payload.ActionJson;
import dev.custody.engine.policy.Finding;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.policy.PolicyDocument;
import dev.custody.engine.policy.PolicyFiles;
import dev.custody.engine.policy.PolicyReader;
import dev.custody.engine.policy.PolicyValidator;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.policy.RuleUpdate;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The corpus run against the engine library through its public entry points, the way an embedding service
 * and the CLI use them: policy text through {@link PolicyReader} (so derived ids, unknown properties and
 * wrong types behave as for a policy file), {@link PolicyBundle#compile}, action text through
 * {@link ActionJson}, and {@link Evaluator}.
 *
 * <p>A policy file that does not read cleanly fails the load, as {@link dev.custody.engine.policy.FilePolicySource}
 * does, and an action that cannot be read is denied: both are fail-closed DENYs, never exceptions.
 *
 * <p>Thread-safe: the compiler is shared and immutable; an evaluator is built per request (it carries the
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
        List<Policy> policies = List.of();
        if (!request.policiesJson().isBlank() && !request.policiesJson().strip().equals("[]")) {
            PolicyDocument doc = PolicyReader.parse(request.policiesJson(), request.policiesFileName());
            if (!doc.valid()) {
                // the message FilePolicySource gives when a policy file does not read cleanly
                return failClosed("`" + doc.file() + "` is not a valid policy file: "
                        + doc.readErrors().get(0).oneLine());
            }
            policies = PolicyFiles.policies(List.of(doc));
        }
        PolicyBundle bundle = PolicyBundle.compile(policies, validator);
        Evaluator.Builder evaluator = Evaluator.builder();
        if (request.now() != null) {
            evaluator.clock(Clock.fixed(request.now(), ZoneOffset.UTC));
        }
        if (request.budget() != null) {
            evaluator.timeBudget(request.budget());
        }
        ActionJson.Result read = ActionJson.parse(request.actionJson());
        if (read instanceof ActionJson.Error e) {
            return failClosed("malformed action: " + e.message());
        }
        Decision d = evaluator.build().evaluate(bundle, ((ActionJson.Ok) read).action());
        return of(d);
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

    private static DecisionResult failClosed(String error) {
        return new DecisionResult("DENY", null, null, null, true, error);
    }

    private static DecisionResult of(Decision d) {
        return new DecisionResult(d.decision().name(), d.policyId(), d.ruleId(), d.reason(), d.failClosed(), d.error());
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
