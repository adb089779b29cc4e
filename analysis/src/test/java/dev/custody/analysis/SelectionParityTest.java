package dev.custody.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.files.FilePolicySource;
import dev.custody.engine.PolicySource;
import dev.custody.engine.internal.bundle.BoundRule;
import dev.custody.engine.internal.bundle.PolicyBundle;
import dev.custody.engine.policy.BundleError;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.files.PolicyFiles;
import dev.custody.engine.validate.PolicyValidator;
import dev.custody.engine.schema.TriggerAction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The analysis sees exactly the rules the engine decides by: for every workspace the files name (and the actions
 * that name none), the rules of {@link PolicySet} that apply there are the engine's bundle's rules, id for id, in
 * order, with the same effect, trigger action and wallets; a workspace whose bundle is invalid has none of its own
 * rules analysed, and every error the bundle is invalid for is a problem of the set.
 */
class SelectionParityTest {
    static final String W1 = "aaaaaaaa-0000-4000-8000-000000000001";
    static final String W2 = "aaaaaaaa-0000-4000-8000-000000000002";
    static final String WALLET = "bbbbbbbb-0000-4000-8000-00000000000A";
    static final String GROUP = "985976e8-9faf-4e44-a2ed-b01af2ca04cf";
    static final PolicyValidator VALIDATOR = new PolicyValidator(Fixtures.COMPILER);

    @TempDir
    Path dir;

    static String policy(String id, String workspace, String status, List<String> wallets, String... rules) {
        StringBuilder s = new StringBuilder();
        s.append("- id: ").append(id).append("\n  name: policy ").append(id).append("\n  approval_group_id: ")
                .append(GROUP).append('\n');
        if (workspace != null) {
            s.append("  workspace_id: ").append(workspace).append('\n');
        }
        if (status != null) {
            s.append("  status: ").append(status).append('\n');
        }
        if (!wallets.isEmpty()) {
            s.append("  wallet_ids: [").append(String.join(", ", wallets)).append("]\n");
        }
        s.append("  rules:\n");
        for (String r : rules) {
            s.append(r);
        }
        return s.toString();
    }

    /** A rule: {@code id} null for none, {@code enabled} null for absent. */
    static String rule(String id, String action, String effect, String condition, Boolean enabled) {
        return (id == null ? "    - " : "    - rule_id: " + id + "\n      ") + "trigger_action: " + action
                + "\n      effect: " + effect + "\n      condition: '" + condition.replace("'", "''") + "'\n"
                + (enabled == null ? "" : "      is_enabled: " + enabled + "\n");
    }

    static String deny(String id, String condition) {
        return rule(id, "withdrawal.create", "DENY", condition, null);
    }

    static String allow(String id, String condition) {
        return rule(id, "withdrawal.create", "ALLOW", condition, null);
    }

    List<PolicyDocument> write(String name, Map<String, String> files) throws IOException {
        Path d = Files.createDirectories(dir.resolve(name));
        for (Map.Entry<String, String> f : files.entrySet()) {
            Files.writeString(d.resolve(f.getKey()), f.getValue());
        }
        return PolicyFiles.read(List.of(d));
    }

    /** What the engine and the analysis see, workspace by workspace, after checking that they agree. */
    static Map<String, List<String>> agree(List<PolicyDocument> docs) throws IOException {
        PolicySet set = PolicySet.of(docs, Fixtures.COMPILER);
        Set<String> workspaces = new LinkedHashSet<>();
        workspaces.add(PolicySource.NO_WORKSPACE);
        docs.forEach(d -> d.policies().forEach(sp -> {
            if (sp.policy().workspaceId() != null) {
                workspaces.add(sp.policy().workspaceId().toLowerCase(Locale.ROOT));
            }
        }));
        FilePolicySource source = FilePolicySource.of(docs);
        Map<String, List<String>> seen = new LinkedHashMap<>();
        Set<String> engineErrors = new TreeSet<>();
        boolean readable = docs.stream().allMatch(PolicyDocument::valid);
        for (String ws : workspaces) {
            List<String> analysed = set.rules().stream()
                    .filter(r -> r.workspaceId() == null || r.workspaceId().equals(ws))
                    .map(SelectionParityTest::row).toList();
            if (!readable) {
                // the engine's source fails every load: every action is denied, and nothing is analysed
                assertEquals(List.of(), set.rules());
                seen.put(ws, List.of("load failure"));
                continue;
            }
            List<Policy> policies = source.policies(ws);
            PolicyBundle bundle = PolicyBundle.compile(policies, VALIDATOR);
            if (bundle.valid()) {
                List<String> engine = bundle.rules().stream().map(SelectionParityTest::row).toList();
                assertEquals(engine, analysed, "workspace `" + ws + "`");
                seen.put(ws, engine);
            } else {
                List<String> own = set.rules().stream().filter(r -> ws.equals(r.workspaceId()))
                        .map(SelectionParityTest::row).toList();
                assertEquals(List.of(), own, "an invalid workspace has none of its own rules analysed: " + ws);
                List<String> errors = new ArrayList<>();
                for (BundleError e : bundle.errors()) {
                    String at = "[" + e.diagnostic().code().id() + "] " + e.diagnostic().message();
                    errors.add("invalid: " + e.policyId() + " " + at);
                    engineErrors.add(at);
                }
                seen.put(ws, errors);
            }
        }
        Set<String> problems = new TreeSet<>();
        for (String p : set.problems()) {
            problems.add(p.substring(p.indexOf('[')));
        }
        if (readable) {
            assertEquals(engineErrors, problems, "the set's problems are the engine's errors");
        }
        return seen;
    }

    static String row(AnalyzedRule r) {
        return r.policyId() + "/" + r.ruleId() + " " + r.action().wireName() + " " + r.effect() + " "
                + new TreeSet<>(r.walletIds());
    }

    static String row(BoundRule r) {
        return r.policyId() + "/" + r.ruleId() + " " + r.condition().action().wireName() + " " + r.effect() + " "
                + new TreeSet<>(r.walletIds());
    }

    @Test
    void inactiveDraftDisabledAndIdlessRulesAcrossWorkspaces() throws IOException {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("a.yaml", policy("limits", null, null, List.of(),
                        deny("big", "withdrawal.value_usd > 10000"),
                        deny(null, "context.hour < 6"),
                        rule("off", "withdrawal.create", "DENY", "true", false),
                        rule(null, "web3.contract_call", "DENY", "resource.method_name == 'approve'", true))
                + policy("limits", null, "inactive", List.of(), deny("old", "true"))
                + policy("draft", null, "pending", List.of(), deny("d", "true")));
        files.put("b.yaml", policy("w1-only", W1.toUpperCase(Locale.ROOT), "active", List.of(WALLET),
                        allow("listed", "withdrawal.is_whitelisted"))
                + policy("w2-only", W2, null, List.of(), allow(null, "true"))
                + policy("gone", W2, "rejected", List.of(), deny("x", "true")));
        Map<String, List<String>> seen = agree(write("mixed", files));
        String wallet = WALLET.toLowerCase(Locale.ROOT);
        List<String> common = List.of(
                "limits/big withdrawal.create DENY []",
                "limits/limits#1 withdrawal.create DENY []",
                "limits/limits#3 web3.contract_call DENY []");
        assertEquals(common, seen.get(PolicySource.NO_WORKSPACE));
        List<String> w1 = new ArrayList<>(common);
        w1.add("w1-only/listed withdrawal.create ALLOW [" + wallet + "]");
        assertEquals(w1, seen.get(W1));
        List<String> w2 = new ArrayList<>(common);
        w2.add("w2-only/w2-only#0 withdrawal.create ALLOW []");
        assertEquals(w2, seen.get(W2));
    }

    @Test
    void aWorkspacesOwnPolicyReusingTheIdOfAPolicyOfEveryWorkspaceDeniesThatWorkspace() throws IOException {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("a.yaml", policy("shared", null, null, List.of(), deny("big", "withdrawal.value_usd > 10000")));
        files.put("b.yaml", policy("shared", W2, null, List.of(), allow("small", "withdrawal.value_usd < 10"))
                + policy("fine", W1, null, List.of(), allow("ok", "true")));
        Map<String, List<String>> seen = agree(write("dup", files));
        assertEquals(List.of("shared/big withdrawal.create DENY []"), seen.get(PolicySource.NO_WORKSPACE));
        assertEquals(List.of("shared/big withdrawal.create DENY []", "fine/ok withdrawal.create ALLOW []"),
                seen.get(W1));
        assertEquals(List.of("invalid: shared [duplicate_id] policy id `shared` is used by an earlier active policy"),
                seen.get(W2));
        PolicySet set = PolicySet.of(write("dup2", files), Fixtures.COMPILER);
        assertEquals(1, set.problems().size(), set.problems()::toString);
        assertTrue(set.problems().get(0).contains("b.yaml"), set.problems().get(0));
    }

    @Test
    void aPolicyThatDoesNotCompileDeniesItsWholeWorkspace() throws IOException {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("a.yaml", policy("good", W1, null, List.of(), deny("big", "withdrawal.value_usd > 10000"))
                + policy("bad", W1, null, List.of(), deny("typo", "withdrawal.amout > 1"),
                        rule("unused", "withdrawal.create", "DENY", "withdrawal.nope", false))
                + policy("other", W2, null, List.of(), deny("night", "context.hour < 6")));
        Map<String, List<String>> seen = agree(write("broken-ws", files));
        assertEquals(List.of(), seen.get(PolicySource.NO_WORKSPACE));
        assertEquals(List.of("invalid: bad [unknown_field] unknown field `withdrawal.amout`"), seen.get(W1));
        assertEquals(List.of("other/night withdrawal.create DENY []"), seen.get(W2));
    }

    @Test
    void anUnknownStatusOfAPolicyOfEveryWorkspaceDeniesEveryWorkspace() throws IOException {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("a.yaml", policy("odd", null, "paused", List.of(), deny("x", "true"))
                + policy("w1", W1, null, List.of(), deny("y", "true")));
        Map<String, List<String>> seen = agree(write("status", files));
        assertEquals(List.of("invalid: odd [invalid_status] unknown status `paused`"),
                seen.get(PolicySource.NO_WORKSPACE));
        assertEquals(List.of("invalid: odd [invalid_status] unknown status `paused`"), seen.get(W1));
    }

    @Test
    void aFileThatDoesNotReadLeavesNothingToAnalyse() throws IOException {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("a.yaml", policy("fine", null, null, List.of(), deny("big", "withdrawal.value_usd > 10000")));
        files.put("b.yaml", "- id: broken\n  name: broken policy\n  approval_group_id: " + GROUP
                + "\n  is_enable: true\n  rules: []\n");
        List<PolicyDocument> docs = write("unreadable", files);
        agree(docs);
        PolicySet set = PolicySet.of(docs, Fixtures.COMPILER);
        assertEquals(List.of(), set.rules());
        assertEquals(1, set.problems().size(), set.problems()::toString);
        assertTrue(set.problems().get(0).contains("unknown property `is_enable`"), set.problems().get(0));
    }

    @Test
    void theExamples() throws IOException {
        for (String path : List.of("../examples/policies", "../examples/analysis", "../examples/revision",
                "../examples/broken")) {
            List<PolicyDocument> docs = PolicyFiles.read(List.of(Path.of(path)));
            Map<String, List<String>> seen = agree(docs);
            assertTrue(!seen.isEmpty(), path);
        }
        PolicySet set = Fixtures.read(Path.of("../examples/policies"));
        assertEquals(List.of(), set.problems());
        long ids = set.rules().stream().map(AnalyzedRule::label).distinct().count();
        assertEquals(set.rules().size(), ids, "every example rule is analysed once");
        assertTrue(set.rules(TriggerAction.WEB3_CONTRACT_CALL).size() > 0);
    }
}
