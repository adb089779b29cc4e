package dev.custody.cli.command;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.custody.cli.CliException;
import dev.custody.cli.Converters;
import dev.custody.cli.Compilers;
import dev.custody.cli.CliRoot;
import dev.custody.cli.DebugOption;
import dev.custody.cli.ExitCode;
import dev.custody.cli.Style;
import dev.custody.cli.VersionProvider;
import dev.custody.engine.compile.CompileResult;
import dev.custody.engine.compile.CompiledCondition;
import dev.custody.engine.compile.CostMeter;
import dev.custody.engine.compile.ThreadClock;
import dev.custody.engine.compile.ConditionResult;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.format.DiagnosticFormatter;
import dev.custody.engine.text.JsonLimits;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.ActionReader;
import dev.custody.engine.check.Payload;
import dev.custody.engine.check.PayloadResult;
import dev.custody.engine.check.PayloadValidator;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code custody eval}: evaluates one condition against one payload and prints {@code true}, {@code false}, or
 * the error (a read of an absent field, a non-boolean result, the time budget). The payload is an action as
 * in a stream (docs/design.md §4) or just its sections; a missing {@code wallet_id} is filled with a placeholder, and
 * {@code context.*} comes from the action's {@code at}, {@code --at}, or now. Exit 0 for true or false, 1 when
 * the condition is invalid, the payload malformed, or the evaluation fails.
 */
@Command(name = "eval",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {"Evaluate one condition against one payload.",
            "Prints true, false, or the error (an absent field, a non-boolean result, the time budget)."},
        footerHeading = "%nExamples:%n",
        footer = {
            "  custody eval --action withdrawal.create --payload action.json \\",
            "      'withdrawal.value_usd > 10000'",
            "  echo '{\"withdrawal\": {\"value_usd\": 12000}}' |",
            "      custody eval --action withdrawal.create --payload - --explain \\",
            "      'withdrawal.value_usd > 10000'",
            "  custody eval --action withdrawal.create --at 2026-11-07T23:30:00Z \\",
            "      'context.day_of_week in [\"Saturday\", \"Sunday\"]'",
        })
public final class EvalCommand implements Callable<Integer> {
    /** The wallet id given to payloads that have none. */
    static final String PLACEHOLDER_WALLET = "00000000-0000-4000-8000-000000000000";
    private static final Pattern FIELD = Pattern.compile(
            "\\b(principal|context|withdrawal|wallet|workspace|resource)\\s*\\.\\s*([A-Za-z_][A-Za-z0-9_]*)");

    /**
     * Reads payloads as strictly as {@link ActionReader} reads an action line (docs/design.md §4.2): a duplicate key
     * is refused rather than letting the second one win, nesting is bounded, and nothing may follow the object.
     */
    private static final ObjectMapper PAYLOAD = JsonMapper.builder(JsonFactory.builder()
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(ActionReader.MAX_DEPTH).build())
                    .build())
            .build();

    /** Output formats. */
    enum Format { text, json }

    @ParentCommand
    CliRoot root;

    @Mixin
    DebugOption debug;

    @Spec
    CommandSpec spec;

    @Option(names = "--action", required = true, paramLabel = "ACTION",
            converter = Converters.ActionConverter.class, completionCandidates = Converters.ActionNames.class,
            description = "Trigger action of the condition and payload: ${COMPLETION-CANDIDATES}.")
    TriggerAction action;

    @Option(names = "--payload", paramLabel = "FILE",
            description = "JSON payload: an action (docs/design.md §4) or just its sections; `-` reads standard input. "
                    + "Without it, every field is absent.")
    String payloadFile;

    @Option(names = "--at", paramLabel = "INSTANT", converter = Converters.InstantConverter.class,
            description = "Evaluation instant behind context.hour and context.day_of_week (default: the payload's "
                    + "`at`, else now), e.g. 2026-11-02T14:05:00Z.")
    Instant at;

    @Option(names = "--explain", description = "Also print the value of every field the condition reads.")
    boolean explain;

    @Option(names = "--cost-limit", paramLabel = "UNITS", defaultValue = "" + CostMeter.DEFAULT_LIMIT,
            converter = Converters.CostLimitConverter.class,
            description = "Cost limit of the evaluation, in units (default: ${DEFAULT-VALUE}); past it the condition fails.")
    long costLimit;

    @Option(names = "--time-budget", paramLabel = "DURATION", defaultValue = "1s",
            converter = Converters.DurationConverter.class,
            description = "Wall-clock backstop of the evaluation (default: ${DEFAULT-VALUE}).")
    Duration timeBudget;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text",
            description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    Format format;

    @Parameters(index = "0", paramLabel = "CONDITION", description = "The CEL condition; `-` reads it from standard input.")
    String condition;

    @Override
    public Integer call() throws Exception {
        if (Inputs.STDIN.equals(condition) && Inputs.STDIN.equals(payloadFile)) {
            throw CliException.usage("the condition and `--payload` cannot both read standard input");
        }
        String text = Inputs.condition(condition, root.environment().stdin());
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Style style = root.style();
        CompileResult compiled = Compilers.shared().compile(action, text);
        if (!compiled.valid()) {
            if (format == Format.json) {
                out.println(JsonOutput.write(json(null, "condition is invalid", compiled.diagnostics(), null)));
            } else {
                ValidateCommand.printText(out, compiled, text, style);
            }
            out.flush();
            return ExitCode.INPUT;
        }
        if (format == Format.text) {
            for (Diagnostic d : compiled.diagnostics()) {
                err.print(Diagnostics.colourHead(d, DiagnosticFormatter.render(d, text), style));
            }
        }
        Payload payload = payload();
        CompiledCondition condition = compiled.condition().orElseThrow();
        // The first evaluation in a fresh JVM loads cel-java's runtime classes, which can take longer than the
        // budget; evaluating once beforehand (conditions are pure) keeps the budget about the condition itself.
        condition.evaluate(payload, ThreadClock.now() + Duration.ofSeconds(10).toNanos());
        ConditionResult result = condition.evaluate(payload, ThreadClock.now() + timeBudget.toNanos(),
                new CostMeter(costLimit));
        Map<String, Object> fields = explain ? fieldsRead(text, payload) : null;
        Boolean value = result instanceof ConditionResult.Value v ? v.value() : null;
        String error = result instanceof ConditionResult.Failure f ? f.message() : null;
        if (format == Format.json) {
            out.println(JsonOutput.write(json(value, error, compiled.diagnostics(), fields)));
        } else {
            out.println(value != null ? value.toString() : style.red("error") + ": " + error);
            if (fields != null) {
                out.println("fields:");
                for (Map.Entry<String, Object> e : fields.entrySet()) {
                    out.println("  " + e.getKey() + " = " + (e.getValue() == Absent.INSTANCE ? "(absent)"
                            : JsonOutput.write(e.getValue())));
                }
            }
        }
        out.flush();
        return value != null ? ExitCode.OK : ExitCode.INPUT;
    }

    private Payload payload() throws Exception {
        Map<String, Object> map = new LinkedHashMap<>();
        if (payloadFile != null) {
            String json = Inputs.readText(payloadFile, root.environment().stdin());
            if (json.isBlank()) {
                throw CliException.input("payload is empty; give a JSON object such as `{\"withdrawal\": {...}}`");
            }
            Object tree;
            try {
                try (JsonParser parser = PAYLOAD.createParser(json)) {
                    tree = PAYLOAD.readValue(parser, Object.class);
                    if (parser.nextToken() != null) {
                        JsonLocation l = parser.currentTokenLocation();
                        throw CliException.input("payload is not valid JSON: unexpected content after the JSON value"
                                + " (line " + l.getLineNr() + ", column " + l.getColumnNr() + ")");
                    }
                }
            } catch (StreamConstraintsException e) {
                // Jackson's message names its own configuration API; say what is wrong with the text
                throw CliException.input("payload is not valid JSON: " + JsonLimits.describe(e));
            } catch (JsonProcessingException e) {
                String m = e.getOriginalMessage().lines().findFirst().orElse("unreadable")
                        .replaceAll("'([^']*)'", "`$1`").replace('"', '`');
                m = m.isEmpty() ? m : Character.toLowerCase(m.charAt(0)) + m.substring(1);
                throw CliException.input("payload is not valid JSON: " + m + (e.getLocation() == null ? ""
                        : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")"));
            }
            if (!(tree instanceof Map<?, ?> m)) {
                throw CliException.input("payload must be a JSON object");
            }
            m.forEach((k, v) -> map.put(String.valueOf(k), v));
        }
        Object given = map.get("action");
        if (given != null && !action.wireName().equals(given)) {
            throw CliException.input("payload is a `" + given + "` action but `--action` is `" + action.wireName() + "`");
        }
        map.put("action", action.wireName());
        map.putIfAbsent("wallet_id", PLACEHOLDER_WALLET);
        ActionReader.Result read = ActionReader.fromMap(map);
        if (read instanceof ActionReader.Malformed e) {
            throw CliException.input("payload: " + e.message());
        }
        Action a = ((ActionReader.Read) read).action();
        if (at != null) {
            a = a.withAt(at);
        }
        PayloadResult checked = PayloadValidator.validate(a, root.environment().clock().instant());
        if (checked instanceof PayloadResult.Invalid invalid) {
            throw CliException.input("malformed payload: " + invalid.error());
        }
        return ((PayloadResult.Valid) checked).payload();
    }

    /** Marks a field the condition reads that the payload does not have. */
    enum Absent { INSTANCE }

    /** The fields the condition names (outside string literals), in order, with their payload values. */
    static Map<String, Object> fieldsRead(String condition, Payload payload) {
        Set<String> paths = new LinkedHashSet<>();
        Matcher m = FIELD.matcher(withoutStrings(condition));
        while (m.find()) {
            Section section = Section.fromWireName(m.group(1)).orElseThrow();
            if (FieldSchema.hasSection(payload.action(), section) && FieldSchema.field(section, m.group(2)).isPresent()) {
                paths.add(m.group(1) + "." + m.group(2));
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        for (String path : paths) {
            int dot = path.indexOf('.');
            Map<String, Object> section = payload.sections().get(path.substring(0, dot));
            Object value = section == null ? null : section.get(path.substring(dot + 1));
            out.put(path, value == null ? Absent.INSTANCE : value);
        }
        return out;
    }

    /** The condition with the contents of its string literals blanked, so a field name inside a string is not a read. */
    static String withoutStrings(String s) {
        StringBuilder out = new StringBuilder(s.length());
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '"' || c == '\'') {
                boolean triple = s.startsWith(String.valueOf(c).repeat(3), i);
                String close = triple ? String.valueOf(c).repeat(3) : String.valueOf(c);
                boolean raw = i > 0 && (s.charAt(i - 1) == 'r' || s.charAt(i - 1) == 'R');
                int j = i + close.length();
                while (j < s.length() && !s.startsWith(close, j)) {
                    j += !raw && s.charAt(j) == '\\' ? 2 : 1;
                }
                int end = Math.min(s.length(), j + close.length());
                out.append(" ".repeat(end - i));
                i = end;
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    private static Map<String, Object> json(Boolean value, String error, List<Diagnostic> diagnostics,
            Map<String, Object> fields) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("result", value);
        m.put("error", error);
        m.put("diagnostics", ValidateCommand.json(diagnostics));
        if (fields != null) {
            Map<String, Object> f = new LinkedHashMap<>();
            fields.forEach((k, v) -> f.put(k, v == Absent.INSTANCE ? null : v));
            m.put("fields", f);
        }
        return m;
    }
}
