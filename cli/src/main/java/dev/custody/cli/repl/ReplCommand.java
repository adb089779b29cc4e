package dev.custody.cli.repl;

import dev.custody.engine.compile.CostMeter;
import dev.custody.cli.ExitCode;
import dev.custody.engine.schema.TriggerAction;
import java.io.BufferedReader;
import java.io.IOError;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import org.jline.reader.LineReader;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code custody repl}: the interactive shell for policy authors (docs/design.md §5). Set up a payload field by
 * field or load an action file, type conditions and see {@code true}/{@code false} or the compiler's
 * diagnostics, load policy files and ask for the decision.
 *
 * <p>Two front-ends over one {@link Session}:
 * <ul>
 *   <li>on a terminal: jline line editing with completion, highlighting, multi-line entries and a history
 *       file ({@code ~/.custody_history}, or {@code --history FILE}); exit code 0 when the user leaves;
 *   <li>without one ({@code System.console() == null}, i.e. piped input or output, or {@code --no-tty}):
 *       entries from standard input, no prompt, no history, plain text output; exit code 0 when every entry
 *       went well, 1 when any printed an error, 3 when standard input cannot be read.
 * </ul>
 * The {@code --action}, {@code --at}, {@code --payload} and {@code --policies} options run the matching
 * commands before the first entry, in that order.
 */
@Command(name = "repl", mixinStandardHelpOptions = true,
        description = {
            "Interactive shell: build a payload, evaluate conditions, decide against policies.",
            "A line starting with `:` is a command (`:help` lists them); any other line is a condition."
        },
        footer = {
            "",
            "Without a terminal (piped input, or --no-tty) no prompt is printed and each entry prints only its",
            "result; the exit code is 1 if any entry printed an error, else 0.",
            "",
            "Examples:",
            "  custody repl --policies policies/",
            "  printf ':set withdrawal.value_usd 12000\\nwithdrawal.value_usd > 10000\\n' | custody repl",
            "  custody repl --no-tty --payload action.json --policies policies/ < checks.txt"
        })
public final class ReplCommand implements Callable<Integer> {

    /** Opens the terminal of an interactive session. */
    @FunctionalInterface
    interface TerminalFactory {
        Terminal open() throws IOException;
    }

    @Spec
    CommandSpec spec;

    @Option(names = "--action", paramLabel = "A", converter = ActionConverter.class,
            description = "Trigger action to start with: withdrawal.create (default) or web3.contract_call.")
    TriggerAction action = TriggerAction.WITHDRAWAL_CREATE;

    @Option(names = "--payload", paramLabel = "FILE", description = "Action file to load first (as `:load FILE`).")
    String payload;

    @Option(names = "--policies", paramLabel = "PATH", arity = "1..*",
            description = "Policy files or directories to load first (as `:policies PATH...`).")
    List<String> policies;

    @Option(names = "--at", paramLabel = "TIMESTAMP",
            description = "Instant behind context.* (ISO-8601, e.g. 2026-11-02T14:05:00Z); default: now.")
    String at;

    @Option(names = "--history", paramLabel = "FILE",
            description = "History file of the interactive shell (default: ~/.custody_history).")
    Path history;

    @Option(names = "--no-tty", description = "Read entries from standard input as a script, even on a terminal.")
    boolean noTty;

    @Option(names = "--time-budget", paramLabel = "MS", defaultValue = "1000",
            description = "Wall-clock backstop of one evaluation, in milliseconds (default: ${DEFAULT-VALUE}).")
    long timeBudgetMillis;

    @Option(names = "--cost-limit", paramLabel = "UNITS", defaultValue = "" + CostMeter.DEFAULT_LIMIT,
            converter = dev.custody.cli.Converters.CostLimitConverter.class,
            description = "Cost limit of one evaluation, in units (default: ${DEFAULT-VALUE}).")
    long costLimit;

    private final InputStream stdin;
    private final Clock clock;
    private final BooleanSupplier console;
    private final TerminalFactory terminals;
    private final Path workingDirectory;

    /** The command on the process's standard input, system clock, console and terminal. */
    public ReplCommand() {
        this(System.in, Clock.systemUTC(), () -> System.console() != null,
                () -> TerminalBuilder.builder().system(true).build(), Path.of(""));
    }

    ReplCommand(InputStream stdin, Clock clock, BooleanSupplier console, TerminalFactory terminals,
            Path workingDirectory) {
        this.stdin = Objects.requireNonNull(stdin, "stdin");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.console = Objects.requireNonNull(console, "console");
        this.terminals = Objects.requireNonNull(terminals, "terminals");
        this.workingDirectory = Objects.requireNonNull(workingDirectory, "workingDirectory");
    }

    @Override
    public Integer call() {
        if (timeBudgetMillis <= 0) {
            throw new ParameterException(spec.commandLine(),
                    "--time-budget must be a positive number of milliseconds, got " + timeBudgetMillis);
        }
        if (noTty || !console.getAsBoolean()) {
            return script(spec.commandLine().getOut());
        }
        return interactive();
    }

    private Session session(PrintWriter out) {
        return Session.builder(out).action(action).clock(clock).workingDirectory(workingDirectory)
                .timeBudget(Duration.ofMillis(timeBudgetMillis)).costLimit(costLimit).build();
    }

    /** Runs the startup options; whether any failed. */
    private boolean startup(Session session) {
        boolean failed = false;
        if (at != null) {
            failed |= session.at(at) == Session.Status.ERROR;
        }
        if (payload != null) {
            failed |= session.load(payload) == Session.Status.ERROR;
        }
        if (policies != null) {
            failed |= session.policies(policies) == Session.Status.ERROR;
        }
        return failed;
    }

    private int script(PrintWriter out) {
        Session session = session(out);
        boolean failed = startup(session);
        BufferedReader in = new BufferedReader(new InputStreamReader(stdin, StandardCharsets.UTF_8));
        try {
            return new ScriptRunner(session, out).run(in, failed);
        } catch (IOException e) {
            out.flush();
            spec.commandLine().getErr().println("error: cannot read standard input: " + e.getMessage());
            return ExitCode.IO;
        }
    }

    private int interactive() {
        Path historyFile = history != null ? history : Path.of(System.getProperty("user.home"), ".custody_history");
        Terminal terminal;
        try {
            terminal = terminals.open();
        } catch (IOException | RuntimeException e) {
            spec.commandLine().getErr().println("error: cannot open the terminal: " + e.getMessage());
            return ExitCode.IO;
        }
        try (terminal) {
            PrintWriter out = terminal.writer();
            Session session = session(out);
            out.println("custody repl: `:help` lists the commands, Ctrl-D leaves");
            startup(session);
            boolean colour = !Terminal.TYPE_DUMB.equals(terminal.getType())
                    && !Terminal.TYPE_DUMB_COLOR.equals(terminal.getType()) && System.getenv("NO_COLOR") == null;
            Optional<String> problem = TerminalRunner.historyProblem(historyFile);
            problem.ifPresent(p -> spec.commandLine().getErr().println("warning: history not kept: `" + historyFile
                    + "` " + p));
            LineReader reader = TerminalRunner.lineReader(terminal, session,
                    problem.isPresent() ? null : historyFile, colour);
            int code = TerminalRunner.run(session, reader::readLine);
            if (problem.isEmpty()) {
                try {
                    reader.getHistory().save();
                } catch (IOException e) {
                    spec.commandLine().getErr().println("warning: cannot save the history to `" + historyFile
                            + "`: " + e.getMessage());
                }
            }
            out.flush();
            return code;
        } catch (IOException | IOError | RuntimeException e) {
            // the terminal itself failed (closed, unreadable): nothing more can be read from it
            spec.commandLine().getErr().println("error: terminal failure: " + e.getMessage());
            return ExitCode.IO;
        }
    }

    /** Reads {@code --action} by wire name; an unknown name is a usage error. */
    static final class ActionConverter implements CommandLine.ITypeConverter<TriggerAction> {
        @Override
        public TriggerAction convert(String value) {
            return TriggerAction.fromWireName(value).orElseThrow(() -> new CommandLine.TypeConversionException(
                    "unknown action `" + value + "`; actions: " + String.join(", ", Session.actionNames())));
        }
    }
}
