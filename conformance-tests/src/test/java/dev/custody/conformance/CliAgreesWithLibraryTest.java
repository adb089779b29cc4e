package dev.custody.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.custody.conformance.ConformanceCase.DecisionCase;
import dev.custody.conformance.ConformanceCase.PolicyCheck;
import dev.custody.conformance.ConformanceCase.Validate;
import dev.custody.conformance.ConformanceSubject.DecisionRequest;
import dev.custody.conformance.ConformanceSubject.DecisionResult;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every corpus case through the library and the CLI, answers compared whole: where a case pins only part of
 * an answer ({@code error_contains}, unchecked reasons or hints), the two implementations must still agree on
 * the rest. Beyond {@link CliSubject}'s own normalisation, one difference is accepted, listed in the corpus
 * README: the load failure of a policy file, which the CLI prefixes with {@code policies could not be loaded: }
 * and names by its path.
 */
class CliAgreesWithLibraryTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final LibrarySubject LIBRARY = new LibrarySubject();
    private static final CliSubject CLI = new CliSubject();
    private static final Pattern TEMP_POLICIES = Pattern.compile("/\\S*?/custody-cli-subject\\d+/policies/");

    @TestFactory
    Stream<DynamicTest> cliAgreesWithLibrary() {
        String only = System.getProperty(CorpusRunner.FILTER, "");
        return Corpus.load().stream()
                .filter(c -> c.displayName().startsWith(only))
                .filter(c -> !(c instanceof ConformanceCase.RuleUpdateCheck))
                .map(c -> DynamicTest.dynamicTest(c.displayName(), () -> compare(c)));
    }

    private static void compare(ConformanceCase c) throws JsonProcessingException {
        if (c instanceof DecisionCase d) {
            String action = d.action() instanceof String raw ? raw : JSON.writeValueAsString(d.action());
            DecisionRequest r = new DecisionRequest(d.name() + ".json", JSON.writeValueAsString(d.policies()), action,
                    d.now(), d.budget(), d.costLimit());
            assertEquals(LIBRARY.decide(r), loadFailureAsLibrary(CLI.decide(r)), c.displayName());
        } else if (c instanceof Validate v) {
            same(c, s -> s.validate(v.triggerAction(), v.condition(), v.effect()));
        } else if (c instanceof PolicyCheck p) {
            String json = JSON.writeValueAsString(p.policy());
            same(c, s -> s.validatePolicy(p.name() + ".json", json));
        }
    }

    private static void same(ConformanceCase c, Function<ConformanceSubject, Object> call) {
        Object cli;
        try {
            cli = call.apply(CLI);
        } catch (UnsupportedOperationException e) {
            Assumptions.abort("cli cannot express this case: " + e.getMessage());
            return;
        }
        assertEquals(call.apply(LIBRARY), cli, c.displayName());
    }

    /** The CLI's load-failure error with the policy file named as the library subject names it (no temp path). */
    private static DecisionResult loadFailureAsLibrary(DecisionResult d) {
        if (!"load".equals(d.failure())) {
            return d;
        }
        String error = TEMP_POLICIES.matcher(d.error()).replaceAll("");
        return new DecisionResult(d.decision(), d.policyId(), d.ruleId(), d.reason(), d.failClosed(), d.failure(), error);
    }
}
