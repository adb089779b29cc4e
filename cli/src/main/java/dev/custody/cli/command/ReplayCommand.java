package dev.custody.cli.command;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.custody.cli.CliEnvironment;
import dev.custody.cli.CliException;
import dev.custody.cli.CliRoot;
import dev.custody.cli.DebugOption;
import dev.custody.cli.ExitCode;
import dev.custody.cli.Style;
import dev.custody.cli.Utf8Writer;
import dev.custody.cli.VersionProvider;
import dev.custody.cli.Compilers;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.coverage.CoverageRecorder;
import dev.custody.engine.validate.PolicyValidator;
import dev.custody.engine.replay.ActionStream;
import dev.custody.engine.replay.DecisionRecords;
import dev.custody.engine.replay.Replayer;
import dev.custody.engine.replay.StreamLedger;
import dev.custody.engine.velocity.Settlement;
import dev.custody.engine.Decision;
import dev.custody.engine.Outcome;
import dev.custody.engine.TraceEntry;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import dev.custody.engine.velocity.VelocityLedger;
import java.time.Clock;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code custody replay}: the decision on every action of a stream, as the engine would have taken it, with
 * attribution. Streams line by line in constant memory; the summary (per decision, per rule, fail-closed
 * count) goes to stderr, with a progress line when stderr is a terminal.
 *
 * <p>Like the engine: one bundle per workspace (policies without {@code workspace_id} apply to all), policies
 * that do not load or compile deny every action ({@code fail_closed}) with their errors on stderr, a malformed
 * line is denied ({@code fail_closed}, with its line number) and the replay goes on.
 *
 * <p>Velocity (docs/design.md §4): records with an {@code "event"} key are not actions; {@code withdrawal.settled}
 * ones realize outflow in an in-memory {@link StreamLedger}, every withdrawal counts as an attempt, and a
 * withdrawal without {@code wallet}/{@code workspace} sections gets them from the ledger as of its
 * {@code at} (sections given in the action are used as given). With {@code --assume-settled} every
 * withdrawal that was not denied realizes its value too. With {@code --velocity given} there is no ledger:
 * actions are evaluated exactly as given (as the engine library does) and event records are only counted.
 * Exit 1 when a line (action or event) was malformed
 * or the policies did not load or compile.
 *
 * <p>With {@code --coverage}, {@code --coverage-html} or {@code --coverage-threshold} the engine counts coverage
 * ({@link CoverageOptions}, docs/design.md §5.3); the decisions and their output are the same, and coverage below
 * the threshold exits 1.
 */
@Command(name = "replay",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {"Decide every action of a stream, with attribution.",
            "One decision per action line as the engine would take it; the summary goes to stderr."},
        footerHeading = "%nExamples:%n",
        footer = {
            "  custody replay --policies policies/ --actions last-month.jsonl",
            "  custody replay --policies policies/ --actions last-month.jsonl \\",
            "      --format jsonl > decisions.jsonl",
            "  custody replay --policies policies/ --actions - --explain < action.jsonl",
            "  custody replay --policies policies/ --actions last-month.jsonl \\",
            "      --coverage coverage.json --coverage-html coverage/",
            "",
            "Formats: text (one line per action), jsonl (one decision record per line),",
            "json (one document: {\"decisions\": [...], \"summary\": {...}}).",
            "Each workspace gets the policies with its workspace_id and those without one;",
            "an action without workspace_id gets only the latter.",
            "Decisions are bounded by --cost-limit (failure cost_budget), the same on",
            "every machine; --time-budget is only a far wall-clock backstop.",
            "Errors of fail-closed records are the engine's, except: an unreadable line",
            "says `malformed action line: ...`; policy files that do not read cleanly,",
            "`policies could not be loaded: ...`.",
        })
public final class ReplayCommand implements Callable<Integer> {

    /**
     * How far back in time a record may arrive: a stream exported from several sources is rarely sorted to
     * the second. A withdrawal more than this before the latest record is denied fail-closed (its velocity
     * cannot be known exactly).
     */
    static final Duration REPLAY_LATENESS = Duration.ofHours(1);

    /** Output formats. */
    enum Format { text, jsonl, json }

    /** Where the velocity sections of a withdrawal come from. */
    enum Velocity {
        /** Absent sections are derived from the stream's ledger (events and earlier attempts). */
        derive,
        /** Actions are evaluated exactly as given: no ledger, absent sections stay absent (as the library does). */
        given
    }

    @ParentCommand
    CliRoot root;

    @Mixin
    DebugOption debug;

    @Mixin
    StreamOptions streamOptions;

    @Spec
    CommandSpec spec;

    @Option(names = "--policies", required = true, arity = "1..*", paramLabel = "PATH",
            description = "Policy files or directories (recursive).")
    List<Path> policies;

    @Option(names = "--from-log", paramLabel = "LOG",
            description = "Re-decide the actions of a decision log (JSON lines, as the engine's JsonLinesDecisionSink "
                    + "writes them) against --policies and list the decisions that differ; exit 1 if any does.")
    String fromLog;

    @Option(names = "--actions", paramLabel = "FILE",
            description = "Action stream, one JSON action per line; `-` reads standard input.")
    String actions;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text",
            description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    Format format;

    @Option(names = "--explain", description = "Add every evaluated rule and its result (\"trace\").")
    boolean explain;

    /** Writes the JSON records, a decision's rule-dependent part rendered once (shared by the pipeline's threads). */
    private final RecordWriter records = new RecordWriter();

    /** Each pipeline thread's JSON output, reused batch after batch. */
    private final ThreadLocal<JsonBuffer> json = ThreadLocal.withInitial(JsonBuffer::new);

    /**
     * A thread's buffer for JSON records and the one generator on it, reused for every batch the thread renders:
     * a batch's bytes are copied out ({@link #take}), so the buffer never leaves the thread. Making a generator and
     * a buffer sized for the worst batch for each batch, twice per batch, cost about 3% of a replay's CPU (allocating
     * and zeroing 128 KB each time, and the generator's set-up).
     */
    private static final class JsonBuffer {
        final ReplayPipeline.Bytes bytes = new ReplayPipeline.Bytes(64 * 1024);
        final JsonGenerator g;

        JsonBuffer() {
            try {
                g = JsonOutput.generator(bytes);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Where the next byte written goes, counting what the generator holds. */
        int position() {
            return bytes.size() + g.getOutputBuffered();
        }

        /** What was written since the last take, as an array of its own; the buffer is empty again. */
        byte[] take() throws IOException {
            g.flush();
            byte[] out = java.util.Arrays.copyOf(bytes.array(), bytes.size());
            bytes.reset();
            return out;
        }
    }

    @Mixin
    EvaluationOptions evaluation;

    @Option(names = "--assume-settled",
            description = "Every withdrawal that is not denied realizes its value_usd as outflow for the later ones "
                    + "(default: only `withdrawal.settled` records with status executed or success do).")
    boolean assumeSettled;

    @Option(names = "--velocity", paramLabel = "MODE", defaultValue = "derive",
            description = {"Where absent `wallet`/`workspace` sections come from: ${COMPLETION-CANDIDATES} "
                    + "(default: ${DEFAULT-VALUE}).",
                "derive: from the stream's ledger (settled events, earlier withdrawals as attempts).",
                "given: none; actions are evaluated exactly as given (absent sections stay absent, "
                    + "event records are counted but not applied), as the engine library evaluates them. "
                    + "Not with --assume-settled."})
    Velocity velocity;

    @Mixin
    CoverageOptions coverage;

    @Option(names = "--threads", paramLabel = "N",
            description = "Threads that parse and decide besides the one that reads, sequences and writes (default: "
                    + "one fewer than the processors, at least 1). The output order is the stream's whatever the number.")
    Integer threads;

    @Override
    public Integer call() throws Exception {
        CliEnvironment env = root.environment();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (threads != null && threads < 1) {
            throw CliException.usage("`--threads` must be at least 1, got " + threads);
        }
        if (velocity == Velocity.given && assumeSettled) {
            throw CliException.usage("`--assume-settled` needs a velocity ledger; it cannot be used with "
                    + "`--velocity given`");
        }
        if ((actions == null) == (fromLog == null)) {
            throw CliException.usage("give either `--actions FILE` or `--from-log LOG`");
        }
        coverage.checkWritable();
        CoverageRecorder recorder = coverage.recorder();
        if (fromLog != null) {
            LocalEngine local = LocalEngine.read(policies, evaluation.clock(env), evaluation.timeBudget,
                    evaluation.costLimit, err, "policies", recorder);
            seed(recorder, local);
            int code = LogReplay.run(fromLog, env.stdin(), local, format == Format.text ? LogReplay.Format.text
                    : LogReplay.Format.jsonl, out, err);
            return recorder != null && CoverageFiles.finish(coverage, recorder, local.documents(), err)
                    ? ExitCode.INPUT : code;
        }
        try (ActionStream stream = streamOptions.open(actions, env.stdin());
                ReplayPipeline pipeline = new ReplayPipeline(
                        threads != null ? threads : defaultThreads())) {
            LocalEngine local = LocalEngine.read(policies, evaluation.clock(env), evaluation.timeBudget,
                    evaluation.costLimit, err, "policies", recorder);
            seed(recorder, local);
            if (local.documents().isEmpty()) {
                err.println("warning: no policy files under the given paths; every action is NO_MATCH");
            }
            Replayer replayer = replayer(local.engine(), velocity, assumeSettled, evaluation.clock(env), explain);
            Format f = format;
            Style style = root.style();
            boolean[] first = {true};
            if (f == Format.json) {
                out.print("{\"decisions\":[");
            }
            ReplaySummary summary = new ReplaySummary(velocity == Velocity.given);
            Progress progress = new Progress(err, env.progress(), size(actions));
            pipeline.run(stream, lines -> read(lines, replayer, f), lines -> sequence(lines, replayer),
                    (batch, parsed) -> render(batch, parsed, replayer, f, style),
                    batch -> {
                if (batch.text() != null) {
                    out.write(batch.text());
                } else {
                    // the first record of a JSON document has no comma before it
                    int skip = f == Format.json && first[0] && batch.size() > 0 ? 1 : 0;
                    first[0] &= skip == 0;
                    Utf8Writer.write(out, batch.bytes(), skip, batch.size() - skip);
                }
                for (int i = 0; i < batch.lines().size(); i++) {
                    ActionStream.Line line = batch.lines().get(i);
                    if (line instanceof ActionStream.ActionLine) {
                        summary.add(batch.decisions().get(i));
                    } else if (line instanceof ActionStream.MalformedLine) {
                        summary.malformed();
                    } else if (line instanceof ActionStream.SettlementLine) {
                        summary.event(Settlement.EVENT);
                    }
                    progress.update(summary.actions(), stream.charsRead());
                }
            });
            summary.finish();
            progress.done();
            if (f == Format.json) {
                out.print("],\"summary\":");
                out.print(JsonOutput.write(summary.json()));
                out.print("}\n");
            }
            out.flush();
            StreamOptions.checkAccounted(stream, summary.actions() + summary.eventRecords(), "replay");
            summary.print(err, Inputs.STDIN.equals(actions) ? "standard input" : "`" + actions + "`");
            boolean below = recorder != null && CoverageFiles.finish(coverage, recorder, local.documents(), err);
            err.flush();
            return summary.malformedLines() > 0 || local.failed() || below ? ExitCode.INPUT : ExitCode.OK;
        }
    }

    /**
     * The pool's default size: one fewer than the processors, since the replay's own thread is busy too (it reads
     * the stream, runs the velocity ledger in order and writes). On 2 cores, 1 pool thread replayed 400,000 lines
     * 7% faster than 2, which left three busy threads to share two cores (engine-core/BENCHMARKS.md).
     */
    static int defaultThreads() {
        return Math.max(1, Runtime.getRuntime().availableProcessors() - 1);
    }

    /** Lists every rule of the files with the recorder first, in declaration order (when coverage is on). */
    private static void seed(CoverageRecorder recorder, LocalEngine local) {
        if (recorder != null) {
            CoverageFiles.seed(recorder, local.documents(), new PolicyValidator(Compilers.shared()));
        }
    }

    /**
     * The replay of a stream as {@code replay} runs it (and {@code diff} on each side): with a velocity ledger
     * unless {@code --velocity given}.
     */
    static Replayer replayer(PolicyEngine engine, Velocity velocity, boolean assumeSettled, Clock clock,
            boolean explain) {
        StreamLedger ledger = velocity == Velocity.given ? null
                : new StreamLedger(VelocityLedger.builder().lateness(REPLAY_LATENESS).build(), assumeSettled, clock);
        return new Replayer(engine, ledger, assumeSettled, explain);
    }

    /**
     * The parse stage's own work on a batch ({@link Replayer#read}); as JSON, the records of the actions it decided are
     * rendered now, while their decisions are in this thread's cache.
     */
    private ReplayPipeline.Parsed read(List<ActionStream.Line> lines, Replayer replayer, Format f) {
        List<Replayer.Step> steps = new ArrayList<>(lines.size());
        JsonBuffer out = null;
        int[] start = null;
        int[] end = null;
        byte[] bytes = null;
        try {
            for (int i = 0; i < lines.size(); i++) {
                Replayer.Step step = replayer.read(lines.get(i));
                steps.add(step);
                if (step.decided() == null || f == Format.text) {
                    continue;
                }
                if (out == null) {
                    out = json.get();
                    start = new int[lines.size()];
                    end = new int[lines.size()];
                    java.util.Arrays.fill(start, -1);
                }
                start[i] = out.position();
                records.write(out.g, step.decided(), explain);
                end[i] = out.position();
            }
            if (out != null) {
                bytes = out.take();
            }
        } catch (IOException | RuntimeException e) {
            json.remove(); // its generator may be halfway through a record
            throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
        }
        return new ReplayPipeline.Parsed(steps, bytes, start, end);
    }

    /** The in-order stage: {@link Replayer#sequence} on each line. */
    private static List<Replayer.Step> sequence(List<Replayer.Step> lines, Replayer replayer) {
        List<Replayer.Step> out = new ArrayList<>(lines.size());
        for (Replayer.Step line : lines) {
            out.add(replayer.sequence(line));
        }
        return out;
    }

    /** Decides a batch (what the sequence stage left undecided) and renders it; runs on the pipeline's threads. */
    private ReplayPipeline.Rendered render(List<Replayer.Step> batch, ReplayPipeline.Parsed parsed, Replayer replayer,
            Format f, Style style) {
        List<ActionStream.Line> lines = new ArrayList<>(batch.size());
        List<Decision> decisions = new ArrayList<>(batch.size());
        StringWriter buffer = f == Format.text ? new StringWriter(batch.size() * 100) : null;
        JsonBuffer out = f == Format.text ? null : json.get();
        ReplayPipeline.Bytes bytes = out == null ? null : out.bytes;
        byte[] written = null;
        try {
            JsonGenerator g = out == null ? null : out.g;
            TextLines text = f == Format.text ? new TextLines(buffer, style, explain) : null;
            for (int i = 0; i < batch.size(); i++) {
                Replayer.Step step = batch.get(i);
                ActionStream.Line line = step.line();
                Decision d = replayer.decide(step);
                boolean record = line instanceof ActionStream.ActionLine || line instanceof ActionStream.MalformedLine;
                if (record && g == null) {
                    if (line instanceof ActionStream.MalformedLine m) {
                        text.malformed(m);
                    } else {
                        text.decision(d);
                    }
                } else if (record) {
                    if (f == Format.json) {
                        g.writeRaw(',');
                    }
                    if (parsed.rendered(i, step)) {
                        g.flush();
                        bytes.write(parsed.bytes(), parsed.start()[i], parsed.end()[i] - parsed.start()[i]);
                    } else if (line instanceof ActionStream.MalformedLine m) {
                        DecisionRecords.malformed(g, m, explain);
                    } else {
                        records.write(g, d, explain);
                    }
                    if (f == Format.jsonl) {
                        g.writeRaw('\n');
                    }
                }
                lines.add(line);
                decisions.add(d);
            }
            if (out != null) {
                written = out.take();
            }
        } catch (IOException | RuntimeException e) {
            json.remove(); // its generator may be halfway through a record
            throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
        }
        return buffer != null ? new ReplayPipeline.Rendered(lines, decisions, buffer.toString(), null, 0)
                : new ReplayPipeline.Rendered(lines, decisions, null, written, written.length);
    }

    private static long size(String actions) {
        if (Inputs.STDIN.equals(actions)) {
            return -1;
        }
        try {
            return Files.size(Path.of(actions));
        } catch (IOException e) {
            return -1;
        }
    }

    /** One line per action: id, decision, deciding rule, reason (or the error of a fail-closed DENY). */
    static final class TextLines {
        private final java.io.Writer out;
        private final Style style;
        private final boolean explain;
        private final StringBuilder line = new StringBuilder(160);

        TextLines(java.io.Writer out, Style style, boolean explain) {
            this.out = out;
            this.style = style;
            this.explain = explain;
        }

        void decision(Decision d) throws IOException {
            write(d.actionId() == null ? "-" : d.actionId(), d.outcome(), d.ruleId(),
                    d.failClosed() ? "fail-closed: " + d.error() : d.reason());
            if (explain) {
                for (TraceEntry t : d.trace()) {
                    out.write("    " + t.ruleId() + " (" + t.effect() + "): " + switch (t.result()) {
                        case TRUE -> "true";
                        case FALSE -> "false";
                        case ERROR -> "error: " + t.error();
                    } + "\n");
                }
            }
        }

        void malformed(ActionStream.MalformedLine m) throws IOException {
            write(m.id() == null ? "line " + m.number() : m.id(), Outcome.DENY, null,
                    "fail-closed: malformed action line " + m.number() + ": " + m.message());
        }

        private void write(String id, Outcome decision, String rule, String text) throws IOException {
            line.setLength(0);
            pad(id, 12);
            String name = decision.name();
            line.append(switch (decision) {
                case ALLOW -> style.green(name);
                case DENY -> style.red(name);
                case NO_MATCH -> style.dim(name);
            });
            line.append(" ".repeat(Math.max(1, 10 - name.length())));
            pad(rule == null ? "-" : rule, 26);
            if (text != null) {
                line.append(text);
            }
            int end = line.length();
            while (end > 0 && line.charAt(end - 1) == ' ') {
                end--;
            }
            line.setLength(end);
            line.append('\n');
            out.append(line);
        }

        private void pad(String s, int width) {
            line.append(s);
            for (int i = s.length(); i < width; i++) {
                line.append(' ');
            }
            line.append(' ');
        }
    }
}
