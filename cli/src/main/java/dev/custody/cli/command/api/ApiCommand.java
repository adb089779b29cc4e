package dev.custody.cli.command.api;

import dev.custody.cli.ExitCode;
import java.util.Objects;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code custody api}: the custody REST API from the command line (docs/design.md §5, §6). The root
 * {@code custody} command registers an instance of this class as a subcommand; tests run it
 * directly with {@code new CommandLine(new ApiCommand(environment))}.
 *
 * <p>Every leaf command reads its configuration from {@code --base-url} or
 * {@code CUSTODY_BASE_URL} (the URL includes {@code /api/v1}), {@code CUSTODY_API_KEY} and
 * {@code CUSTODY_API_SECRET}, prints through the command line's writers, and exits with
 * {@link ExitCode}: 0 done, 1 invalid input (a rule that does not validate, a malformed input
 * file), 2 usage (bad option, value refused before sending, missing configuration), 3 API, network
 * or I/O failure.
 *
 * <p>Not thread-safe: picocli populates the command objects of one invocation.
 */
@Command(name = "api",
        mixinStandardHelpOptions = true,
        description = "Call the custody REST API: networks, assets, wallets, policies, rules, stats, balances, signing.",
        subcommands = {
            NetworksCommand.class,
            AssetsCommand.class,
            PoliciesCommand.class,
            RulesCommand.class,
            WalletsCommand.class,
            StatsCommand.class,
            BalancesCommand.class,
            SignCommand.class,
        },
        footerHeading = "%nExamples:%n",
        footer = {
            "  export CUSTODY_BASE_URL=https://custody.example.com/api/v1",
            "  export CUSTODY_API_KEY=... CUSTODY_API_SECRET=...",
            "  custody api networks list --search ethereum",
            "  custody api policies list --workspace-id 7d0c... --status active --format json",
            "  custody api sign message --wallet-id 5b1e... --chain-id 1 'hello' --wait",
        })
public final class ApiCommand implements Callable<Integer> {
    private final ApiEnvironment environment;

    @Spec
    CommandSpec spec;

    /** Uses the process environment, the system clock and real sleeps. */
    public ApiCommand() {
        this(ApiEnvironment.system());
    }

    /** Uses {@code environment} (tests pass fakes). */
    public ApiCommand(ApiEnvironment environment) {
        this.environment = Objects.requireNonNull(environment, "environment");
    }

    ApiEnvironment environment() {
        return environment;
    }

    /** {@code custody api} without a subcommand: usage on stderr, exit 2. */
    @Override
    public Integer call() {
        return ApiGroup.missingSubcommand(spec);
    }
}
