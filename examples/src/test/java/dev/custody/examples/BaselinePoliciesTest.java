package dev.custody.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.custody.engine.Decision;
import dev.custody.engine.files.FilePolicySource;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.validate.PolicyValidator;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The baseline built in code is valid, comes first, and leaves what the workspace's own policies decide alone. */
class BaselinePoliciesTest {
    private static final String WS = EmbeddingExample.WORKSPACE;

    @Test
    void theBaselineIsAValidPolicy() {
        assertEquals(List.of(), new PolicyValidator(RuleCompiler.create()).validate(BaselinePolicies.BASELINE)
                .diagnostics());
        assertEquals(List.of("platform-ceiling", "fresh-address"),
                BaselinePolicies.BASELINE.rules().stream().map(r -> r.ruleId()).toList());
    }

    @Test
    void theBaselineDecidesFirstAndTheWorkspacesPoliciesStillDecideTheRest() throws Exception {
        PolicyEngine engine = PolicyEngine.builder(new BaselinePolicies(FilePolicySource.read(
                List.of(ExamplesTest.POLICIES))::policies)).timeBudget(Duration.ofSeconds(30)).build();
        List<Decision> decisions = List.of(
                engine.evaluate(WS, EmbeddingExample.withdrawal("w-1", "signer", 2_000_000.0, 2_592_000)),
                engine.evaluate(WS, EmbeddingExample.withdrawal("w-2", "signer", 20_000.0, 3_600)),
                engine.evaluate(WS, EmbeddingExample.withdrawal("w-3", "proposer", 7_400.0, 2_592_000)),
                engine.evaluate(WS, EmbeddingExample.withdrawal("w-4", "signer", 1_500.0, 2_592_000)));
        assertEquals(List.of("w-1 DENY platform-baseline/platform-ceiling", "w-2 DENY platform-baseline/fresh-address",
                "w-3 DENY role-limits/proposer-ceiling", "w-4 ALLOW address-book-hygiene/routine-payout"),
                decisions.stream().map(d -> d.actionId() + " " + d.outcome() + " " + d.policyId() + "/" + d.ruleId())
                        .toList());
        assertEquals("no withdrawal above $1,000,000 on this platform", decisions.get(0).reason());
    }
}
