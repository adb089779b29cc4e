package dev.custody.engine.compile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.custody.engine.schema.TriggerAction;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which sub-expressions of a condition are branches, and where each stands: its line and column inside the
 * condition (1-based, code points) and its source text, from its first to its last token.
 */
class ConditionBranchesTest {
    private static final RuleCompiler COMPILER = RuleCompiler.create();

    private static List<String> branches(String condition) {
        CompiledCondition c = COMPILER.compile(TriggerAction.WITHDRAWAL_CREATE, condition).condition().orElseThrow();
        return ConditionBranches.of(c).branches().stream().map(b -> b.line() + ":" + b.column() + " " + b.text())
                .toList();
    }

    @Test
    void operandsOfLogicalOperatorsAndComparisons() {
        assertEquals(List.of("1:2 withdrawal.value_usd > 1000.0 || principal.role in ['a', 'b']",
                "1:2 withdrawal.value_usd > 1000.0",
                "1:35 principal.role in ['a', 'b']",
                "1:68 !has(withdrawal.is_whitelisted)",
                "1:69 has(withdrawal.is_whitelisted)"),
                branches("(withdrawal.value_usd > 1000.0 || principal.role in ['a', 'b']) && "
                        + "!has(withdrawal.is_whitelisted)"));
    }

    @Test
    void theConditionOfATernaryAndItsBooleanArms() {
        assertEquals(List.of("1:1 size(withdrawal.destination_address) > 3",
                "1:44 withdrawal.asset_symbol.startsWith(\"U\\\"S\")",
                "1:89 false"),
                branches("size(withdrawal.destination_address) > 3 ? withdrawal.asset_symbol.startsWith(\"U\\\"S\") "
                        + ": false"));
        // arms that are not booleans are no branches
        assertEquals(List.of("1:1 (context.hour > 3 ? 1 : 2) == 1", "1:2 context.hour > 3"),
                branches("(context.hour > 3 ? 1 : 2) == 1"));
    }

    @Test
    void aMacroIsABranchAndSoIsItsPredicateButNotItsAccumulator() {
        assertEquals(List.of("1:1 [1, 2].all(x, x > 0)", "1:15 x > 0", "1:25 context.hour >= 9"),
                branches("[1, 2].all(x, x > 0) && context.hour >= 9"));
    }

    @Test
    void positionsOnLaterLinesAndNumbersWithExponents() {
        assertEquals(List.of("1:1 withdrawal.value_usd >= 1e3 && withdrawal.value_usd < 2.5e-1",
                "1:1 withdrawal.value_usd >= 1e3",
                "1:32 withdrawal.value_usd < 2.5e-1",
                "2:6 context.day_of_week == \"Sunday\""),
                branches("withdrawal.value_usd >= 1e3 && withdrawal.value_usd < 2.5e-1\n"
                        + "  || context.day_of_week == \"Sunday\""));
    }

    @Test
    void aConditionWithoutLogicOrComparisonHasNoBranches() {
        assertEquals(List.of(), branches("withdrawal.is_whitelisted"));
        assertEquals(List.of("1:1 withdrawal.value_usd > 1.0"), branches("withdrawal.value_usd > 1.0"));
    }
}
