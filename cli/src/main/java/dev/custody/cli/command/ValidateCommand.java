package dev.custody.cli.command;

import dev.custody.cli.Converters;
import dev.custody.cli.Compilers;
import dev.custody.cli.CliRoot;
import dev.custody.cli.DebugOption;
import dev.custody.cli.ExitCode;
import dev.custody.cli.Style;
import dev.custody.cli.VersionProvider;
import dev.custody.engine.compile.CompileResult;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.TriggerAction;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code custody validate}: compile-checks one condition, as the validate endpoint does, plus guard
 * analysis. Text output shows the condition with a caret under each problem; {@code --format json} prints
 * {@code {"valid", "diagnostics": [{"severity", "code", "message", "line", "column", "hint"}]}}. Exit 1 when
 * the condition is invalid (warnings alone do not fail).
 */
@Command(name = "validate",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {"Compile-check one rule condition.",
            "Same checks as the validate endpoint (fields, types, boolean result) plus has() guards."},
        footerHeading = "%nExamples:%n",
        footer = {
            "  custody validate --action withdrawal.create --effect DENY \\",
            "      'withdrawal.value_usd > 10000'",
            "  custody validate --action web3.contract_call --effect DENY --format json \\",
            "      'has(resource.decoded_args.to) && resource.decoded_args.to == \"0x1\"'",
            "  echo 'principal.role == \"guest\"' |",
            "      custody validate --action withdrawal.create --effect DENY -",
        })
public final class ValidateCommand implements Callable<Integer> {

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
            description = "Trigger action whose fields the condition reads: ${COMPLETION-CANDIDATES}.")
    TriggerAction action;

    @Option(names = "--effect", required = true, paramLabel = "EFFECT",
            converter = Converters.EffectConverter.class, completionCandidates = Converters.EffectNames.class,
            description = "Effect of the rule: ${COMPLETION-CANDIDATES}.")
    Effect effect;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text",
            description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    Format format;

    @Parameters(index = "0", paramLabel = "CONDITION",
            description = "The CEL condition; `-` reads it from standard input.")
    String condition;

    @Override
    public Integer call() throws Exception {
        String text = Inputs.condition(condition, root.environment().stdin());
        CompileResult result = Compilers.shared().compile(action, text);
        PrintWriter out = spec.commandLine().getOut();
        if (format == Format.json) {
            out.println(JsonOutput.write(json(result)));
        } else {
            printText(out, result, text, root.style());
        }
        out.flush();
        return result.valid() ? ExitCode.OK : ExitCode.INPUT;
    }

    /**
     * {@code {"valid", "diagnostics": [...], "cost_estimate", "compiled"}} as docs/design.md §5 gives it, with the
     * worst-case cost of docs/design.md §3.15 (null when the condition is invalid or its cost is unbounded) and
     * whether the condition has a compiled form (docs/design.md §10.4; null when it is invalid).
     */
    static Map<String, Object> json(CompileResult result) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("valid", result.valid());
        m.put("diagnostics", json(result.diagnostics()));
        m.put("cost_estimate", result.condition().map(c -> c.costEstimate() < 0 ? null : c.costEstimate()).orElse(null));
        m.put("compiled", result.condition().map(c -> (Object) c.compiled()).orElse(null));
        return m;
    }

    /** Condition diagnostics as {@code [{"severity", "code", "message", "line", "column", "hint"}]}. */
    static List<Object> json(List<Diagnostic> diagnostics) {
        List<Object> ds = new ArrayList<>();
        for (Diagnostic d : diagnostics) {
            Map<String, Object> j = new LinkedHashMap<>();
            j.put("severity", d.severity().wireName());
            j.put("code", d.code().id());
            j.put("message", d.message());
            j.put("line", d.line());
            j.put("column", d.column());
            j.put("hint", d.hint());
            ds.add(j);
        }
        return ds;
    }

    static void printText(PrintWriter out, CompileResult result, String source, Style style) {
        long errors = result.diagnostics().stream().filter(Diagnostic::isError).count();
        long warnings = result.diagnostics().size() - errors;
        for (Diagnostic d : result.diagnostics()) {
            out.print(Diagnostics.colourHead(d, dev.custody.engine.format.DiagnosticFormatter.render(d, source), style));
        }
        if (result.valid()) {
            out.println(style.green("valid") + (warnings > 0 ? " (" + Inputs.plural(warnings, "warning") + ")" : ""));
        } else {
            out.println(style.red("invalid") + ": " + Inputs.plural(errors, "error")
                    + (warnings > 0 ? ", " + Inputs.plural(warnings, "warning") : ""));
        }
    }
}
