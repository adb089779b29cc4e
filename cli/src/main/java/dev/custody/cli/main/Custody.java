package dev.custody.cli.main;

import dev.custody.cli.CliEnvironment;
import dev.custody.cli.CliRoot;
import dev.custody.cli.Compilers;
import dev.custody.cli.ExitCode;
import dev.custody.cli.Style;
import dev.custody.cli.VersionProvider;

import dev.custody.cli.command.BenchCommand;
import dev.custody.cli.command.AnalyzeCommand;
import dev.custody.cli.command.DiffCommand;
import dev.custody.cli.command.ReviewCommand;
import dev.custody.cli.command.EvalCommand;
import dev.custody.cli.command.LintCommand;
import dev.custody.cli.command.ReplayCommand;
import dev.custody.cli.command.SchemaCommand;
import dev.custody.cli.command.TestCommand;
import dev.custody.cli.command.ValidateCommand;
import dev.custody.cli.command.api.ApiCommand;
import dev.custody.cli.repl.ReplCommand;
import dev.custody.cli.serve.ServeCommand;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.UsageMessageSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code custody}: the policy engine's command-line tool (docs/design.md §5). Each verb is its own
 * {@code Callable<Integer>} in {@code dev.custody.cli.command}; to add one, list its class in {@link #VERBS}.
 *
 * <p>{@link #commandLine(CliEnvironment)} builds the configured command line (writers, error handlers,
 * colour, the shared exit-code table), so tests run any command in-process with captured output;
 * {@link #main} runs it on the real process.
 *
 * <p>The verbs are added to the root in code rather than in {@code @Command(subcommands)}: picocli builds
 * the model of every subcommand it is given, and the {@code api} tree alone made that most of a cold
 * {@code validate}. {@link #main} therefore adds only the verb it was asked for (all of them when the first
 * argument names none, so help, {@code help VERB} and "unknown command" still see every verb).
 */
@Command(name = "custody",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Spend-control policies for a custody service: validate and lint CEL rules, evaluate, "
                + "replay and diff action streams, run policy tests, benchmark.",
        footerHeading = "%nExamples:%n",
        footer = {
            "  custody validate --action withdrawal.create --effect DENY \\",
            "      'withdrawal.value_usd > 10000'",
            "  custody lint --format github policies/",
            "  custody replay --policies policies/ --actions actions.jsonl",
            "  custody test policies/tests/",
            "  custody help replay",
        })
public final class Custody implements Callable<Integer>, CliRoot {

    /** The verbs, in the order the help lists them. */
    static final List<Class<?>> VERBS = List.of(
            ValidateCommand.class,
            LintCommand.class,
            EvalCommand.class,
            ReplayCommand.class,
            DiffCommand.class,
            ReviewCommand.class,
            AnalyzeCommand.class,
            TestCommand.class,
            BenchCommand.class,
            SchemaCommand.class,
            ReplCommand.class,
            ApiCommand.class,
            dev.custody.cli.lsp.LspCommand.class,
            // custody serve (issue 27)
            ServeCommand.class,
            CommandLine.HelpCommand.class);

    /**
     * The verbs that compile conditions: for these, {@link #main} starts building the shared compiler on a
     * second thread before picocli parses the arguments.
     */
    static final java.util.Set<String> COMPILING_VERBS =
            java.util.Set.of("validate", "lint", "eval", "replay", "diff", "test", "bench", "serve", "analyze");

    /** The exit codes, shown under every command's help (docs/design.md §5). */
    static final Map<String, String> EXIT_CODES = exitCodes();

    @Option(names = "--debug", description = "Print the stack trace of internal errors.")
    boolean debug;

    @Spec
    CommandSpec spec;

    private final CliEnvironment environment;

    /** A root over the real process (what picocli's tools, such as the completion generator, instantiate). */
    public Custody() {
        this(CliEnvironment.system());
    }

    /** A root over this environment. */
    public Custody(CliEnvironment environment) {
        this.environment = environment;
    }

    @Override
    public CliEnvironment environment() {
        return environment;
    }

    @Override
    public Style style() {
        return new Style(environment.colour());
    }

    /** {@code custody} alone: the usage on stderr, exit 2. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCode.USAGE;
    }

    /** The command line over the real process. */
    public static CommandLine commandLine() {
        return commandLine(CliEnvironment.system());
    }

    /**
     * The configured command line over an environment, with every verb: its writers, the error handlers
     * mapping failures to exit codes 2 and 3, colour only when the environment allows it, the exit-code table
     * in every help.
     */
    public static CommandLine commandLine(CliEnvironment environment) {
        return commandLine(environment, null);
    }

    /**
     * As {@link #commandLine(CliEnvironment)}, with only the verb named {@code verb} when there is one: what an
     * in-process caller running one known verb many times uses (the conformance corpus), since building every
     * verb's model, the {@code api} tree above all, costs more than a small replay.
     */
    public static CommandLine commandLine(CliEnvironment environment, String verb) {
        CommandLine cl = new CommandLine(new Custody(environment));
        boolean known = VERBS.stream().anyMatch(c -> name(c).equals(verb));
        for (Class<?> c : VERBS) {
            if (!known || name(c).equals(verb)) {
                cl.addSubcommand(c);
            }
        }
        cl.setOut(environment.out());
        cl.setErr(environment.err());
        ErrorHandler handler = new ErrorHandler();
        cl.setExecutionExceptionHandler(handler);
        cl.setParameterExceptionHandler(handler);
        cl.setColorScheme(Help.defaultColorScheme(environment.colour() ? Help.Ansi.ON : Help.Ansi.OFF));
        addExitCodes(cl);
        return cl;
    }

    public static void main(String[] args) {
        String verb = args.length > 0 ? args[0] : null;
        if (verb != null && COMPILING_VERBS.contains(verb)) {
            Compilers.prestart();
        }
        if ("analyze".equals(verb)) {
            dev.custody.analysis.PolicyAnalyzer.prestart();
        }
        CommandLine cl = commandLine(CliEnvironment.system(), verb);
        int exit = cl.execute(args);
        cl.getOut().flush();
        cl.getErr().flush();
        System.exit(exit);
    }

    private static String name(Class<?> verb) {
        return verb.getAnnotation(Command.class).name();
    }

    private static void addExitCodes(CommandLine cl) {
        UsageMessageSpec usage = cl.getCommandSpec().usageMessage();
        if (usage.exitCodeList().isEmpty()) {
            usage.exitCodeListHeading("%nExit codes:%n").exitCodeList(EXIT_CODES);
        }
        cl.getSubcommands().values().forEach(Custody::addExitCodes);
    }

    private static Map<String, String> exitCodes() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("  " + ExitCode.OK, "success: valid, no lint errors, tests pass, command done");
        m.put("  " + ExitCode.INPUT, "the input has problems: invalid condition, lint errors, failing tests, "
                + "malformed action lines, changes with --fail-on-change");
        m.put("  " + ExitCode.USAGE, "usage error: unknown option, missing argument, unknown action or effect");
        m.put("  " + ExitCode.IO, "i/o, network or internal error: missing file, unreadable input");
        return m;
    }
}
