package dev.custody.cli.command.api;

import dev.custody.cli.ExitCode;
import dev.custody.client.ApiResponse;
import dev.custody.client.CustodyClient;
import dev.custody.client.model.BalanceBySymbol;
import dev.custody.client.model.NetworkBalance;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code custody api balances --workspace-id W [--symbol S]…}: holdings per symbol and network. Not thread-safe. */
@Command(name = "balances",
        mixinStandardHelpOptions = true,
        description = "Show workspace balances per symbol, aggregated across networks, with the per-network breakdown.",
        footerHeading = "%nExamples:%n",
        footer = {"  custody api balances --workspace-id 7d0c…", "  custody api balances --workspace-id 7d0c… --symbol USDC --symbol ETH"})
final class BalancesCommand extends ApiLeaf {
    @Option(names = "--workspace-id", required = true, paramLabel = "UUID", description = "Workspace id.")
    String workspaceId;

    @Option(names = "--symbol", paramLabel = "SYMBOL", description = "Only this symbol (repeatable).")
    List<String> symbols = new ArrayList<>();

    @Override
    int run(CustodyClient client) {
        ApiResponse<List<BalanceBySymbol>> response = client.balances(workspaceId, symbols);
        if (printedAsJson(response)) {
            return ExitCode.OK;
        }
        if (response.data().isEmpty()) {
            out.println("no balances");
            return ExitCode.OK;
        }
        Table table = new Table("SYMBOL", "NETWORK", "BALANCE", "VALUE_USD", "WALLETS");
        for (BalanceBySymbol b : response.data()) {
            table.row(b.symbol(), "(all)", b.totalBalance(), b.totalValueUsd(), b.totalWalletCount());
            for (NetworkBalance n : b.networks()) {
                table.row("", n.networkName(), n.balance(), "", n.walletCount());
            }
        }
        table.print(out);
        return ExitCode.OK;
    }
}
