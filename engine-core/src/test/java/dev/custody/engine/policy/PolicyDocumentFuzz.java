package dev.custody.engine.policy;

import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.files.SourcedPolicy;
import dev.custody.engine.files.Finding;
import dev.custody.engine.files.PolicyReader;
import dev.custody.engine.validate.PolicyValidation;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.custody.engine.Fixtures;
import dev.custody.engine.internal.bundle.PolicyBundle;
import dev.custody.engine.schema.PolicyStatus;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Jazzer fuzz target for policy documents: any bytes read as a YAML file and, when they start (after white space)
 * with <code>{</code> or {@code [}, as a JSON file too, then validated and compiled as {@code custody lint} does
 * ({@link PolicyReader#parse(byte[], String)}, {@link PolicyDocument#validate}), and compiled into a bundle as the
 * engine does ({@link PolicyBundle#compile}). Invariants: nothing throws (a problem is a {@link Finding}); every
 * finding has a non-empty one-line message and a position inside the text (line and column 1-based, or both 0); a
 * document without errors (and without two active policies of one id, which lint adds) compiles: every rule has a
 * compiled condition and the bundle is valid with every enabled rule of its active policies.
 *
 * <p>Committed inputs: {@code src/test/resources/dev/custody/engine/policy/PolicyDocumentFuzzInputs/policyDocument/}
 * (the example policies, a broken draft, envelopes, YAML oddities). Fuzzing:
 * {@code JAZZER_FUZZ=1 ./mvnw -B -pl engine-schema,engine-core test -Dtest=PolicyDocumentFuzz#policyDocument}
 * (docs/design.md §17).
 */
class PolicyDocumentFuzz {

    @FuzzTest(maxDuration = "10m")
    @DictionaryEntries({"name", "description", "approval_group_id", "wallet_ids", "rules", "status", "version",
        "workspace_id", "created_at", "updated_at", "rule_id", "trigger_action", "condition", "effect", "is_enabled",
        "policy_id", "data", "success", "withdrawal.create", "web3.contract_call", "ALLOW", "DENY", "active",
        "inactive", "pending", "99999999-9999-4999-8999-999999999999", "withdrawal.value_usd > 1000",
        "principal.role == 'signer'", "resource.decoded_args.to", "---", "- ", ": ", "|-", ">-", "&a", "*a", "!!str",
        "!!binary", "<<: ", "\"\\u00e9\"", "'", "\""})
    void policyDocument(byte[] bytes) {
        check(bytes, "fuzz.yaml");
        int i = 0;
        while (i < bytes.length && (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\n' || bytes[i] == '\r')) {
            i++;
        }
        if (i < bytes.length && (bytes[i] == '{' || bytes[i] == '[')) {
            check(bytes, "fuzz.json");
        }
    }

    /** Reads, validates and compiles the bytes as the named file; fails on any broken invariant. */
    static void check(byte[] bytes, String fileName) {
        PolicyDocument doc;
        List<Finding> findings;
        try {
            doc = PolicyReader.parse(bytes, fileName);
            findings = doc.validate(Fixtures.VALIDATOR);
        } catch (RuntimeException | StackOverflowError e) {
            throw new AssertionError("reading or validating " + fileName + " threw", e);
        }
        String text = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        if (text.startsWith("\uFEFF")) {
            text = text.substring(1);
        }
        for (Finding f : findings) {
            String m = f.diagnostic().message();
            assertTrue(m != null && !m.isBlank() && m.indexOf('\n') < 0 && m.indexOf('\r') < 0,
                    () -> "not a one-line message: " + f.oneLine());
            assertTrue(within(text, f.line(), f.column()), "position outside the text: " + f.oneLine());
        }
        boolean errors = findings.stream().anyMatch(f -> f.diagnostic().isError()) || duplicateActiveIds(doc);
        List<Policy> policies = doc.policies().stream().map(SourcedPolicy::policy).toList();
        PolicyBundle bundle;
        try {
            bundle = PolicyBundle.compile(policies, Fixtures.VALIDATOR);
        } catch (RuntimeException | StackOverflowError e) {
            throw new AssertionError("compiling the bundle of " + fileName + " threw", e);
        }
        if (errors) {
            return;
        }
        int enabled = 0;
        for (Policy p : policies) {
            PolicyValidation v = Fixtures.VALIDATOR.validate(p);
            assertTrue(v.valid(), () -> "lint found no error, the validator " + v.errors());
            for (int r = 0; r < p.rules().size(); r++) {
                int index = r;
                assertTrue(v.compiled(r).isPresent(), () -> "rule " + index + " of " + p.id() + " has no compiled form");
            }
            if (p.effectiveStatus().orElseThrow() == PolicyStatus.ACTIVE) {
                enabled += (int) p.rules().stream().filter(Rule::enabled).count();
            }
        }
        assertTrue(bundle.valid(), () -> "lint found no error, the bundle " + bundle.errors());
        assertEquals(enabled, bundle.ruleCount(), "every enabled rule of the active policies is in the bundle");
    }

    /** Lint's check across a file's policies: two active policies with one id (as the CLI's lint does it). */
    static boolean duplicateActiveIds(PolicyDocument doc) {
        Set<String> seen = new HashSet<>();
        for (SourcedPolicy sp : doc.policies()) {
            Optional<PolicyStatus> status = sp.policy().effectiveStatus();
            if (sp.policy().id() != null && status.isPresent() && status.get() == PolicyStatus.ACTIVE
                    && !seen.add(sp.policy().id())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a 1-based line and column fall inside the text or just past the end of a line (both 0: the whole
     * file). Lines end at any of the breaks YAML or Jackson know; a column may be at most one past the longest line
     * (characters), as YAML's and Jackson's column counts differ on line breaks other than {@code \n}.
     */
    static boolean within(String text, int line, int column) {
        if (line == 0 || column == 0) {
            return line == 0 && column == 0;
        }
        String[] lines = text.split("\r\n|\r|\n|\u0085|\u2028|\u2029", -1);
        int longest = 0;
        for (String l : text.split("\n", -1)) {
            longest = Math.max(longest, l.length());
        }
        return line >= 1 && line <= lines.length && column >= 1 && column <= longest + 1;
    }

}
