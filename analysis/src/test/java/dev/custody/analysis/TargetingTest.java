package dev.custody.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.Decision;
import dev.custody.engine.Outcome;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The analysis asks the engine's selection whether a rule's policy targets an action ({@code RuleSelection.targets}):
 * its probe, its replay and the engine agree on every spelling of a wallet and workspace id, as the engine reads
 * them (canonical case, a blank workspace is none).
 */
class TargetingTest {
    private static final String WALLET = "6b1e4f0c-9a1d-4c7e-8f2a-3d5b7c9e1a2f";
    private static final String WORKSPACE = "f7cd7efa-0fd8-4bd3-a166-8ff096191bcc";

    @TempDir
    Path dir;

    @Test
    void probeReplayAndEngineAgreeOnEverySpelling() {
        // the policy names its wallet and workspace in upper case; the selection keeps them in lower case
        PolicySet set = Fixtures.yaml(dir, "p", Fixtures.policy("p", "big", "DENY", "withdrawal.value_usd > 100.0")
                .replace("rules:\n", "workspace_id: " + WORKSPACE.toUpperCase(Locale.ROOT) + "\nwallet_ids: ["
                        + WALLET.toUpperCase(Locale.ROOT) + "]\nrules:\n"));
        AnalyzedRule big = set.rules().get(0);
        assertEquals(WORKSPACE, big.workspaceId());
        try (Formulas f = new Formulas(big.action(), List.of(set), PolicyAnalyzer.DEFAULT_TIMEOUT_MS)) {
            Probe probe = new Probe(f.space.action(), f.space.wallets(), f.space.workspaces(), r -> false);
            Probe.Point found = probe.findCanonical(List.of(Probe.Lit.of(Probe.Kind.TRUE, big)));
            assertNotNull(found);
            assertEquals(WALLET, found.witness.get("wallet_id"));
            for (String wallet : List.of(WALLET, WALLET.toUpperCase(Locale.ROOT), "6B1E4F0C-9a1d-4c7e-8f2a-3d5b7c9e1a2f")) {
                for (String workspace : List.of(WORKSPACE, WORKSPACE.toUpperCase(Locale.ROOT))) {
                    assertTargets(true, set, big, probe, with(found.witness, wallet, workspace));
                }
            }
            // another wallet, no workspace, a blank one, another one: the policy does not target the action
            assertTargets(false, set, big, probe, with(found.witness, "0d4c4a39-3a4f-4b52-9b3e-2f1c8a7d6e5b",
                    WORKSPACE));
            assertTargets(false, set, big, probe, with(found.witness, WALLET, null));
            assertTargets(false, set, big, probe, with(found.witness, WALLET, " "));
            assertTargets(false, set, big, probe, with(found.witness, WALLET, "0d4c4a39-3a4f-4b52-9b3e-2f1c8a7d6e5b"));
            // the search over wallets and workspaces answers with the same predicate: a wallet and workspace the
            // policy targets and an unrestricted copy of it would too is no witness of a difference
            assertNull(probe.appliesWithout(big, big));
        }
    }

    private static void assertTargets(boolean expected, PolicySet set, AnalyzedRule rule, Probe probe,
            Map<String, Object> witness) {
        Decision d = Fixtures.decide(set, witness);
        assertEquals(expected ? Outcome.DENY : Outcome.NO_MATCH, d.outcome(), witness.toString());
        assertEquals(expected, Replay.applies(rule, witness), witness.toString());
        assertEquals(expected, rule.targets((String) witness.get("wallet_id"), (String) witness.get("workspace_id")),
                witness.toString());
        Probe.Point p = probe.point(witness);
        assertNotNull(p, witness.toString());
        assertEquals(expected, p.applies(rule), witness.toString());
        assertTrue(expected == p.isTrue(rule), witness.toString());
        assertFalse(p.fails(rule), witness.toString());
    }

    private static Map<String, Object> with(Map<String, Object> witness, String wallet, String workspace) {
        Map<String, Object> copy = new LinkedHashMap<>(witness);
        copy.put("wallet_id", wallet);
        if (workspace == null) {
            copy.remove("workspace_id");
        } else {
            copy.put("workspace_id", workspace);
        }
        return copy;
    }
}
