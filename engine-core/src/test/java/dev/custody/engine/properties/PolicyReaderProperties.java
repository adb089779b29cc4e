package dev.custody.engine.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.Fixtures;
import dev.custody.engine.internal.bundle.PolicyBundle;
import dev.custody.engine.files.Finding;
import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.files.PolicyReader;
import dev.custody.engine.files.SourcedPolicy;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.statistics.StatisticsReport;

/**
 * {@link PolicyReader#parse} never throws on any text, as JSON or YAML: random strings, soups of JSON and
 * YAML tokens, valid policy files with random edits, deep nesting and alias bombs. Its findings are values
 * with a code and a position, and what it reads goes on through validation and bundle building (the lint
 * and replay pipeline) without throwing either.
 */
@StatisticsReport(StatisticsReport.StatisticsReportMode.OFF)
class PolicyReaderProperties {
    private static final String JSON = """
            [{"id": "limits", "name": "Treasury limits", "approval_group_id": "%s",
              "wallet_ids": ["%s"], "status": "active",
              "rules": [{"rule_id": "big", "trigger_action": "withdrawal.create",
                         "condition": "withdrawal.value_usd > 10000", "effect": "DENY", "description": "too big"},
                        {"trigger_action": "withdrawal.create", "condition": "withdrawal.is_whitelisted",
                         "effect": "ALLOW", "is_enabled": false}]}]
            """.formatted(Fixtures.GROUP, Fixtures.WALLET);
    private static final String YAML = """
            id: limits
            name: Treasury limits
            approval_group_id: %s
            wallet_ids: [%s]
            rules:
              - rule_id: big
                trigger_action: withdrawal.create
                condition: >-
                  withdrawal.value_usd > 10000 &&
                  principal.role == 'signer'
                effect: DENY
              - trigger_action: web3.contract_call
                condition: |
                  has(resource.decoded_args.to) && resource.decoded_args.to == "0xabc"
                effect: ALLOW
                is_enabled: true
            """.formatted(Fixtures.GROUP, Fixtures.WALLET);

    @Property(tries = 300)
    void parseNeverThrows(@ForAll("documents") String text, @ForAll("fileNames") String fileName) {
        PolicyDocument doc = PolicyReader.parse(text, fileName);
        for (Finding f : doc.readErrors()) {
            assertTrue(f.line() >= 0 && f.column() >= 0, f.toString());
            assertFalse(f.diagnostic().message().isBlank(), f.toString());
        }
        // what was read goes through validation and bundle building without throwing too
        List<Finding> findings = doc.validate(Fixtures.VALIDATOR);
        assertTrue(findings.containsAll(doc.readErrors()), "lint reports every read error: " + findings);
        PolicyBundle.compile(doc.policies().stream().map(SourcedPolicy::policy).toList(), Fixtures.VALIDATOR);
        Statistics.label("read").collect(doc.valid() ? doc.policies().size() + " policies" : "read errors");
    }

    /** The documents the edits start from are valid, so the edits are what breaks them. */
    @Example
    void theUntouchedDocumentsRead() {
        assertTrue(PolicyReader.parse(JSON, "p.json").valid());
        PolicyDocument yaml = PolicyReader.parse(YAML, "p.yaml");
        assertTrue(yaml.valid(), yaml.readErrors().toString());
        assertEquals(List.of(), yaml.validate(Fixtures.VALIDATOR));
    }

    @Provide
    Arbitrary<String> fileNames() {
        return Arbitraries.of("p.json", "p.yaml", "p.yml", "P.YAML", "policy", "p.txt");
    }

    private static final List<String> TOKENS = List.of("{", "}", "[", "]", ",", ":", ": ", "- ", "\"", "'", "\n", "\n  ",
            "\n    ", "\t", "#", "---", "...", "%YAML 1.2\n", "&a ", "*a", "!!str ", "!!binary ", "!!python/object ",
            "<<: ", "? ", "|", ">-", "null", "~", "true", "yes", "1", "-0", "0x1F", "1e999", "1_000", ".inf", ".nan",
            "99999999999999999999", "\"name\"", "name", "rules", "condition", "\"condition\": \"x >\"", "effect",
            "is_enabled", "wallet_ids", "data", "\"data\": ", "\\u0000", "\\", "\uFEFF", "é", "😀", "\r\n");

    @Provide
    Arbitrary<String> documents() {
        Arbitrary<String> base = Arbitraries.of(JSON, YAML);
        Arbitrary<String> edited = base.flatMap(doc -> edit(doc).list().ofMinSize(1).ofMaxSize(4).map(edits -> {
            String s = doc;
            for (Edit e : edits) {
                s = e.apply(s);
            }
            return s;
        }));
        Arbitrary<String> deep = Combinators.combine(Arbitraries.integers().between(1, 5000), Arbitraries.integers().between(0, 5))
                .as((n, shape) -> switch (shape) {
                    case 0 -> "[".repeat(n) + "]".repeat(n);
                    case 1 -> "{\"a\": ".repeat(n) + "1" + "}".repeat(n);
                    case 2 -> "- ".repeat(n) + "x";
                    case 3 -> deepYamlMap(Math.min(n, 400));
                    case 4 -> "[".repeat(n);
                    default -> aliasBomb(Math.min(n, 12));
                });
        return Arbitraries.frequencyOf(
                Tuple.of(4, edited),
                Tuple.of(2, Arbitraries.of(TOKENS).list().ofMaxSize(60).map(l -> String.join("", l))),
                Tuple.of(2, Arbitraries.strings().ofMaxLength(200)),
                Tuple.of(1, deep),
                Tuple.of(1, Arbitraries.of("", " ", "\n", "null", "[]", "{}", "{\"data\": []}", "{\"data\": null}",
                        "data: 1", "[1, 2]", "\"x\"", "--- a\n--- b\n", "{\"name\": 1, \"name\": 2}", "a: 1\na: 2")));
    }

    /** One random edit: insert a token, delete a range, or duplicate a range. */
    record Edit(int kind, double at, int length, String token) {
        String apply(String s) {
            int i = (int) (at * s.length());
            int j = Math.min(s.length(), i + length);
            return switch (kind) {
                case 0 -> s.substring(0, i) + token + s.substring(i);
                case 1 -> s.substring(0, i) + s.substring(j);
                case 2 -> s.substring(0, j) + s.substring(i, j) + s.substring(j);
                default -> s.substring(0, i) + token + s.substring(j);
            };
        }
    }

    private static Arbitrary<Edit> edit(String doc) {
        return Combinators.combine(Arbitraries.integers().between(0, 3), Arbitraries.doubles().between(0, 1),
                Arbitraries.integers().between(0, 30), Arbitraries.of(TOKENS)).as(Edit::new);
    }

    private static String deepYamlMap(int n) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) {
            s.append("  ".repeat(i)).append("k").append(i).append(":\n");
        }
        return s.append("  ".repeat(n)).append("v\n").toString();
    }

    private static String aliasBomb(int levels) {
        StringBuilder s = new StringBuilder("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
        for (int i = 1; i < levels; i++) {
            s.append("a").append(i).append(": &a").append(i).append(" [");
            for (int k = 0; k < 9; k++) {
                s.append(k == 0 ? "" : ", ").append("*a").append(i - 1);
            }
            s.append("]\n");
        }
        return s.toString();
    }
}
