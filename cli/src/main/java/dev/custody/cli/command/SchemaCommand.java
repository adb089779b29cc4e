package dev.custody.cli.command;

import dev.custody.cli.Converters;
import dev.custody.cli.CliRoot;
import dev.custody.cli.DebugOption;
import dev.custody.cli.ExitCode;
import dev.custody.cli.Style;
import dev.custody.cli.VersionProvider;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.TriggerAction;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code custody schema}: the fields a condition can read, per trigger action. Text is a table (field, type,
 * notes); {@code --format json} prints exactly the {@code data} of {@code GET /policy/schema}
 * ({@link FieldSchema#toJson()}), or with {@code --action} the same object restricted to that action.
 */
@Command(name = "schema",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {"The fields a condition can read, per trigger action.",
            "Sections, fields, types and enums; --format json prints the data of GET /policy/schema."},
        footerHeading = "%nExamples:%n",
        footer = {
            "  custody schema",
            "  custody schema --action web3.contract_call",
            "  custody schema --format json | jq '.\"withdrawal.create\".withdrawal[].name'",
        })
public final class SchemaCommand implements Callable<Integer> {

    /** Output formats. */
    enum Format { text, json }

    @ParentCommand
    CliRoot root;

    @Mixin
    DebugOption debug;

    @Spec
    CommandSpec spec;

    @Option(names = "--action", paramLabel = "ACTION",
            converter = Converters.ActionConverter.class, completionCandidates = Converters.ActionNames.class,
            description = "Only this trigger action: ${COMPLETION-CANDIDATES}.")
    TriggerAction action;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text",
            description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    Format format;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (format == Format.json) {
            if (action == null) {
                out.println(FieldSchema.toJson());
            } else {
                Map<String, Object> one = new LinkedHashMap<>();
                one.put(action.wireName(), FieldSchema.asData().get(action.wireName()));
                out.println(JsonOutput.write(one));
            }
        } else {
            Style style = root.style();
            List<TriggerAction> actions = action == null ? List.of(TriggerAction.values()) : List.of(action);
            int width = 0;
            for (TriggerAction a : actions) {
                for (FieldSpec f : FieldSchema.fields(a)) {
                    width = Math.max(width, f.path().length());
                }
            }
            boolean first = true;
            for (TriggerAction a : actions) {
                if (!first) {
                    out.println();
                }
                first = false;
                out.println(style.bold(a.wireName()));
                out.println("  " + pad("FIELD", width) + "  " + pad("TYPE", 7) + "  NOTES");
                for (FieldSpec f : FieldSchema.fields(a)) {
                    out.println("  " + pad(f.path(), width) + "  " + pad(f.type().wireName(), 7) + "  " + notes(f));
                }
            }
        }
        out.flush();
        return ExitCode.OK;
    }

    private static String notes(FieldSpec f) {
        StringBuilder s = new StringBuilder();
        if (f.optional()) {
            s.append("optional (guard with has()); ");
        }
        if (!f.enumValues().isEmpty()) {
            s.append("one of ").append(String.join(", ", f.enumValues())).append("; ");
        }
        return s.append(f.description()).toString();
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }
}
