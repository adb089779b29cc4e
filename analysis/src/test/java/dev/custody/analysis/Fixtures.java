package dev.custody.analysis;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.files.FilePolicySource;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.Decision;
import dev.custody.engine.check.ActionReader;
import dev.custody.engine.files.PolicyFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Policy sets written to temporary files and read as the CLI reads them; witnesses replayed through the engine. */
final class Fixtures {
    static final RuleCompiler COMPILER = RuleCompiler.create();

    private Fixtures() {}

    /** A policy set of one YAML file with this text. */
    static PolicySet yaml(Path dir, String name, String text) {
        try {
            Path f = dir.resolve(name + ".yaml");
            Files.writeString(f, text);
            return read(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static PolicySet read(Path... paths) {
        try {
            return PolicySet.of(PolicyFiles.read(List.of(paths)), COMPILER);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static AnalysisReport analyze(PolicySet set) {
        return new PolicyAnalyzer(PolicyAnalyzer.DEFAULT_TIMEOUT_MS).analyze(set, Optional.empty());
    }

    /** The engine a service would embed, over the set's documents. */
    static PolicyEngine engine(PolicySet set) {
        return PolicyEngine.builder(FilePolicySource.of(set.documents())::policies).build();
    }

    /** The engine's decision for an action given as a map (a witness); fails the test when it does not read. */
    static Decision decide(PolicySet set, Map<String, Object> action) {
        ActionReader.Result r = ActionReader.fromMap(new java.util.LinkedHashMap<>(action));
        assertTrue(r instanceof ActionReader.Read, () -> "witness does not read: " + r + " " + action);
        return engine(set).evaluate(((ActionReader.Read) r).action(), true);
    }

    /** A one-policy YAML text of every wallet, with rules given as {@code id, effect, condition} triples. */
    static String policy(String id, String... rules) {
        StringBuilder s = new StringBuilder();
        s.append("id: ").append(id).append("\nname: policy ").append(id)
                .append("\napproval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf\nrules:\n");
        for (int i = 0; i + 2 < rules.length + 2 && i < rules.length; i += 3) {
            String[] parts = rules[i].split(" ", 2);
            String action = parts.length > 1 ? parts[1] : "withdrawal.create";
            s.append("  - rule_id: ").append(parts[0]).append("\n    trigger_action: ").append(action)
                    .append("\n    effect: ").append(rules[i + 1]).append("\n    condition: '")
                    .append(rules[i + 2].replace("'", "''")).append("'\n");
        }
        return s.toString();
    }
}
