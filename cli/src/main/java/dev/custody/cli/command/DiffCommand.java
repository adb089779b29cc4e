package dev.custody.cli.command;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.custody.cli.CliEnvironment;
import dev.custody.cli.CliRoot;
import dev.custody.cli.DebugOption;
import dev.custody.cli.ExitCode;
import dev.custody.cli.Style;
import dev.custody.cli.VersionProvider;
import dev.custody.engine.Decision;
import dev.custody.engine.payload.Action;
import dev.custody.engine.replay.ActionStream;
import dev.custody.engine.replay.DecisionRecords;
import dev.custody.engine.replay.Replayer;
import dev.custody.cli.CliException;
import java.time.Clock;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
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
 * {@code custody diff}: the impact of a policy revision. Every action of the stream is decided against the
 * base and the head policy sets, each exactly as {@code replay} would (the same {@link Replayer}, velocity
 * derived from the stream by a ledger of its own, the same {@code --velocity} and {@code --assume-settled}); the actions whose decision or
 * attribution (policy, rule, fail-closed) differs are listed, then a table of transitions such as
 * {@code NO_MATCH → DENY  412}. Exit 1 with {@code --fail-on-change} when anything changed, and when a line is
 * malformed or a policy set does not load or compile.
 */
@Command(name = "diff",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {"Actions whose decision or attribution differs between policy sets.",
            "The impact of a pending revision: each action is decided against --base and --head."},
        footerHeading = "%nExamples:%n",
        footer = {
            "  custody diff --base main/policies --head policies --actions month.jsonl",
            "  custody diff --base old/limits.yaml --head new/limits.yaml \\",
            "      --actions month.jsonl --fail-on-change",
            "  custody diff --base old/ --head new/ --actions month.jsonl --format jsonl",
            "  custody diff --semantic --base old/ --head new/   # every valid action",
        })
public final class DiffCommand implements Callable<Integer> {
    private static final int MAX_MALFORMED_REPORTED = 20;

    /** Output formats. */
    enum Format { text, jsonl, json }

    @ParentCommand
    CliRoot root;

    @Mixin
    DebugOption debug;

    @Mixin
    StreamOptions streamOptions;

    @Spec
    CommandSpec spec;

    @Mixin
    ChangeSides sides;

    @Option(names = "--actions", paramLabel = "FILE",
            description = "Action stream, one JSON action per line; `-` reads standard input.")
    String actions;

    @Option(names = "--semantic",
            description = "Instead of a stream: prove with an SMT solver whether the sets decide every valid action "
                    + "alike (decision and attribution), with one replayed witness action per kind of change.")
    boolean semantic;

    @Option(names = "--action", paramLabel = "ACTION",
            description = "With --semantic: only actions of this trigger action.")
    String action;

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "5000",
            description = "With --semantic: time-out of one solver query in milliseconds (default: ${DEFAULT-VALUE}).")
    long timeoutMs;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text",
            description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    Format format;

    @Option(names = "--fail-on-change", description = "Exit 1 when any action's decision or attribution changed.")
    boolean failOnChange;

    @Mixin
    EvaluationOptions evaluation;

    @Option(names = "--assume-settled",
            description = "As in replay: every withdrawal a side does not deny realizes its value_usd as outflow "
                    + "for that side's later withdrawals.")
    boolean assumeSettled;

    @Option(names = "--velocity", paramLabel = "MODE", defaultValue = "derive",
            description = "As in replay: where absent `wallet`/`workspace` sections come from: "
                    + "${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    ReplayCommand.Velocity velocity;

    @Override
    public Integer call() throws Exception {
        CliEnvironment env = root.environment();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (semantic) {
            return SemanticDiffOutput.run(this, out, err);
        }
        if (actions == null) {
            throw CliException.usage("missing `--actions FILE` (or use `--semantic` to compare every valid action)");
        }
        if (velocity == ReplayCommand.Velocity.given && assumeSettled) {
            throw CliException.usage("`--assume-settled` needs a velocity ledger; it cannot be used with "
                    + "`--velocity given`");
        }
        try (ActionStream stream = streamOptions.open(actions, env.stdin())) {
            Clock clock = evaluation.clock(env);
            LocalEngine baseEngine = LocalEngine.read(sides.base, clock, evaluation.timeBudget, evaluation.costLimit, err, "base policies");
            LocalEngine headEngine = LocalEngine.read(sides.head, clock, evaluation.timeBudget, evaluation.costLimit, err, "head policies");
            // each side replays the stream exactly as `custody replay` would, with a ledger of its own: with
            // --assume-settled, what a side allowed is what its later withdrawals see
            Replayer baseReplay = ReplayCommand.replayer(baseEngine.engine(), velocity, assumeSettled, clock, false);
            Replayer headReplay = ReplayCommand.replayer(headEngine.engine(), velocity, assumeSettled, clock, false);
            JsonGenerator g = format == Format.text ? null : JsonOutput.generator(out);
            if (format == Format.json) {
                g.writeStartObject();
                g.writeArrayFieldStart("changes");
            }
            Style style = root.style();
            long[] malformedShown = new long[1];
            TrafficDiff.Totals t = TrafficDiff.stream(stream, baseReplay, headReplay, new TrafficDiff.Listener() {
                @Override
                public void changed(Action a, long line, Decision before, Decision after) throws IOException {
                    if (g == null) {
                        out.println(textLine(a, line, before, after, style));
                    } else {
                        DecisionRecords.change(g, a.id(), line, a.action().wireName(), before, after);
                        if (format == Format.jsonl) {
                            g.writeRaw('\n');
                        }
                    }
                }

                @Override
                public void malformed(long line, String message) {
                    if (++malformedShown[0] <= MAX_MALFORMED_REPORTED) {
                        err.println("error: line " + line + ": " + message);
                    }
                }
            });
            long total = t.actions();
            long changed = t.changed();
            long malformed = t.malformed();
            if (malformed > MAX_MALFORMED_REPORTED) {
                err.println("error: " + (malformed - MAX_MALFORMED_REPORTED) + " more malformed action lines");
            }
            List<Map.Entry<TrafficDiff.Transition, Long>> table = t.transitions();
            String summary = Inputs.plural(total, "action") + ", " + changed + " changed"
                    + (malformed > 0 ? ", " + malformed + " malformed (denied on both sides)" : "");
            if (format == Format.json) {
                g.writeEndArray();
                g.writeNumberField("actions", total);
                g.writeNumberField("changed", changed);
                g.writeNumberField("malformed_lines", malformed);
                g.writeArrayFieldStart("transitions");
                for (Map.Entry<TrafficDiff.Transition, Long> e : table) {
                    g.writeStartObject();
                    g.writeStringField("from", e.getKey().from());
                    g.writeStringField("to", e.getKey().to());
                    g.writeNumberField("count", e.getValue());
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
                g.writeRaw('\n');
            }
            if (g != null) {
                g.flush();
            }
            PrintWriter tableOut = format == Format.text ? out : err;
            if (format == Format.text && changed > 0) {
                out.println();
            }
            tableOut.println(summary);
            int width = table.stream().mapToInt(e -> e.getKey().label().length()).max().orElse(0);
            for (Map.Entry<TrafficDiff.Transition, Long> e : table) {
                String label = e.getKey().label();
                tableOut.println("  " + label + " ".repeat(width - label.length()) + "  " + e.getValue());
            }
            out.flush();
            err.flush();
            boolean failed = malformed > 0 || baseEngine.failed() || headEngine.failed();
            return failed || (failOnChange && changed > 0) ? ExitCode.INPUT : ExitCode.OK;
        }
    }

    private static String textLine(Action a, long line, Decision before, Decision after, Style style) {
        String id = a.id() == null ? "line " + line : a.id();
        StringBuilder s = new StringBuilder(id);
        s.append(" ".repeat(Math.max(1, 13 - id.length())));
        String change = TrafficDiff.label(before) + " → " + TrafficDiff.label(after);
        s.append(style.bold(change)).append(" ".repeat(Math.max(1, 34 - change.length())));
        s.append(attribution(before)).append(" → ").append(attribution(after));
        return s.toString();
    }

    private static String attribution(Decision d) {
        return d.ruleId() == null ? "-" : d.ruleId();
    }
}
