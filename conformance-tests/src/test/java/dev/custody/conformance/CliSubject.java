package dev.custody.conformance;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.custody.cli.CliEnvironment;
import dev.custody.cli.main.Custody;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.TriggerAction;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import picocli.CommandLine;

/**
 * The corpus run through the {@code custody} command line (docs/design.md §5), in-process: each case is one
 * {@code custody} run through the picocli entry point ({@link Custody#commandLine(CliEnvironment, String)})
 * with captured writers, on files in a fresh temporary directory, so the CLI's own file reading, option
 * parsing and output formats are what is tested.
 *
 * <ul>
 *   <li>{@code decide}: {@code replay --format jsonl --velocity given} over {@code <tmp>/policies/} (empty when
 *       the case has no policy) and a one-line {@code actions.jsonl}; the one decision record is the answer.
 *   <li>{@code validate}: {@code validate --format json}; an unknown or absent trigger action or effect is a
 *       usage error for the CLI (exit 2), so those cases are skipped for this subject.
 *   <li>{@code validatePolicy}: {@code lint --format json} on the file; positions are lint's
 *       {@code condition_line}/{@code condition_column} (inside the condition), not the file position.
 *   <li>{@code validateRuleUpdate}: unsupported (no rule-update verb).
 * </ul>
 *
 * <p>Normalisations (each only a documented CLI prefix; listed in the corpus README): a replay record for an
 * unreadable action line says {@code malformed action line: …} where the library says
 * {@code malformed action: …}.
 *
 * <p>Thread-safe: each call has its own directory and writers; the compiled CEL environment is the CLI's
 * shared one.
 */
public final class CliSubject implements ConformanceSubject {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** The prefix replay gives the error of an unreadable action line (DecisionJson), and the library's. */
    static final String CLI_MALFORMED = "malformed action line: ";
    static final String LIBRARY_MALFORMED = "malformed action: ";

    @Override
    public String name() {
        return "cli";
    }

    @Override
    public DecisionResult decide(DecisionRequest request) {
        return inTempDir(dir -> {
            Path policies = Files.createDirectories(dir.resolve("policies"));
            if (!request.policiesJson().isBlank() && !request.policiesJson().strip().equals("[]")) {
                Files.writeString(policies.resolve(request.policiesFileName()), request.policiesJson());
            }
            Path actions = dir.resolve("actions.jsonl");
            // one line: a pretty-printed or multi-line raw action would be several lines of the stream
            Files.writeString(actions, request.actionJson().replace("\r", "").replace("\n", " ") + "\n");
            List<String> args = new ArrayList<>(List.of("replay", "--policies", policies.toString(),
                    "--actions", actions.toString(), "--format", "jsonl", "--velocity", "given", "--threads", "1"));
            if (request.now() != null) {
                args.add("--now");
                args.add(request.now().toString());
            }
            if (request.budget() != null) {
                args.add("--time-budget");
                args.add(request.budget().toMillis() + "ms");
            }
            if (request.costLimit() != null) {
                args.add("--cost-limit");
                args.add(request.costLimit().toString());
            }
            Run r = run(args);
            if (r.exit() != 0 && r.exit() != 1) {
                throw r.failure();
            }
            List<String> records = r.out().lines().filter(l -> !l.isBlank()).toList();
            if (records.size() != 1) {
                throw r.failure("expected one decision record, got " + records.size());
            }
            JsonNode d = JSON.readTree(records.get(0));
            String error = text(d, "error");
            if (error != null && error.startsWith(CLI_MALFORMED)) {
                error = LIBRARY_MALFORMED + error.substring(CLI_MALFORMED.length());
            }
            return new DecisionResult(d.get("decision").asText(), text(d, "policy_id"), text(d, "rule_id"),
                    text(d, "reason"), d.get("fail_closed").asBoolean(), text(d, "failure"), error);
        });
    }

    @Override
    public ValidationResult validate(String triggerAction, String condition, String effect) {
        if (triggerAction == null || effect == null || condition == null) {
            // required options and parameter: a usage error, not a diagnostic
            throw new UnsupportedOperationException("the CLI requires --action, --effect and CONDITION");
        }
        Run r = run(List.of("validate", "--format", "json", "--action", triggerAction, "--effect", effect, "--",
                condition));
        if (r.exit() == 2) {
            // an unknown trigger action or effect is a usage error of `custody validate` by contract; a usage error
            // for known ones is the CLI failing, and must not be skipped as a case it cannot express
            if (TriggerAction.fromWireName(triggerAction).isPresent() && Effect.fromWireName(effect).isPresent()) {
                throw r.failure("usage error, though the trigger action and the effect are known");
            }
            throw new UnsupportedOperationException("the CLI rejects the arguments as a usage error: " + r.err().strip());
        }
        if (r.exit() != 0 && r.exit() != 1) {
            throw r.failure();
        }
        JsonNode json = r.json();
        List<DiagnosticResult> out = new ArrayList<>();
        for (JsonNode d : json.get("diagnostics")) {
            out.add(new DiagnosticResult(d.get("code").asText(), d.get("severity").asText(), "",
                    d.path("line").asInt(), d.path("column").asInt(), d.get("message").asText(), text(d, "hint")));
        }
        boolean valid = json.get("valid").asBoolean();
        if (valid != (r.exit() == 0)) {
            throw r.failure("exit code and `valid` disagree");
        }
        return new ValidationResult(valid, out);
    }

    @Override
    public ValidationResult validatePolicy(String fileName, String policyJson) {
        return inTempDir(dir -> {
            Path file = dir.resolve(fileName);
            Files.writeString(file, policyJson);
            Run r = run(List.of("lint", "--format", "json", file.toString()));
            if (r.exit() != 0 && r.exit() != 1) {
                throw r.failure();
            }
            JsonNode json = r.json();
            List<DiagnosticResult> out = new ArrayList<>();
            for (JsonNode d : json.get("diagnostics")) {
                out.add(new DiagnosticResult(d.get("code").asText(), d.get("severity").asText(),
                        d.get("pointer").asText(), d.path("condition_line").asInt(), d.path("condition_column").asInt(),
                        d.get("message").asText(), text(d, "hint")));
            }
            boolean valid = json.get("errors").asInt() == 0;
            if (valid != (r.exit() == 0)) {
                throw r.failure("exit code and `errors` disagree");
            }
            return new ValidationResult(valid, out);
        });
    }

    @Override
    public ValidationResult validateRuleUpdate(String existingRuleJson, String updateJson) {
        throw new UnsupportedOperationException("the CLI has no rule-update verb");
    }

    /** What one run printed and returned. */
    record Run(List<String> args, int exit, String out, String err) {
        JsonNode json() {
            try {
                return JSON.readTree(out);
            } catch (JsonProcessingException e) {
                throw failure("stdout is not JSON: " + e.getOriginalMessage());
            }
        }

        IllegalStateException failure() {
            return failure("unexpected exit code");
        }

        IllegalStateException failure(String what) {
            return new IllegalStateException("custody " + String.join(" ", args) + ": " + what + " (exit " + exit
                    + ")\n--- stdout\n" + out + "--- stderr\n" + err);
        }
    }

    /** One in-process {@code custody} run: no stdin, no colour, no progress, the real clock. */
    static Run run(List<String> args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CliEnvironment env = new CliEnvironment(new ByteArrayInputStream(new byte[0]), new PrintWriter(out),
                new PrintWriter(err), Clock.systemUTC(), false, false);
        CommandLine cl = Custody.commandLine(env, args.get(0));
        int exit = cl.execute(args.toArray(String[]::new));
        env.out().flush();
        env.err().flush();
        return new Run(args, exit, out.toString(), err.toString());
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    private interface InDir<T> {
        T apply(Path dir) throws IOException;
    }

    private static <T> T inTempDir(InDir<T> body) {
        Path dir;
        try {
            dir = Files.createTempDirectory("custody-cli-subject");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            return body.apply(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            delete(dir);
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a leftover temporary directory is harmless
        }
    }
}
