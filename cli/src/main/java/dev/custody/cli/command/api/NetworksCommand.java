package dev.custody.cli.command.api;

import dev.custody.cli.ExitCode;
import dev.custody.client.ApiResponse;
import dev.custody.client.CustodyClient;
import dev.custody.client.model.Network;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code custody api networks list|rescan}: the public network catalogue, and re-indexing of a
 * transaction. Not thread-safe (picocli state).
 */
@Command(name = "networks",
        mixinStandardHelpOptions = true,
        description = "List networks (public) or rescan a transaction.",
        subcommands = {NetworksCommand.ListNetworks.class, NetworksCommand.Rescan.class},
        footerHeading = "%nExamples:%n",
        footer = {"  custody api networks list --search base", "  custody api networks rescan --tx-hash 0xab… --network-id 3f6c…"})
final class NetworksCommand extends ApiGroup {

    /** {@code networks list [--search S]}: GET /networks, sent without credentials. */
    @Command(name = "list",
            mixinStandardHelpOptions = true,
            description = "List supported networks (public endpoint: no credentials needed).",
            footerHeading = "%nExamples:%n",
            footer = {"  custody api networks list", "  custody api networks list --search polygon --format json"})
    static final class ListNetworks extends ApiLeaf {
        @Option(names = "--search", paramLabel = "TEXT", description = "Filter by network name.")
        String search;

        @Override
        int run(CustodyClient client) {
            return printList(client.listNetworks(search), "no networks",
                    new String[] {"ID", "NAME", "CODE", "CHAIN_ID", "NATIVE", "EVM", "TESTNET", "DISABLED"},
                    (Network n) -> new Object[] {n.id(), n.name(), n.internalCode(), n.chainId(), n.nativeCurrency(),
                        n.isEvm(), n.isTestnet(), n.disabled()});
        }
    }

    /** {@code networks rescan --tx-hash H --network-id N}: POST /networks/rescan-transaction. */
    @Command(name = "rescan",
            mixinStandardHelpOptions = true,
            description = "Re-index a transaction that was not indexed (for example after an RPC outage).",
            footerHeading = "%nExamples:%n",
            footer = {"  custody api networks rescan --tx-hash 0x5c50… --network-id 3f6c2a9e-…"})
    static final class Rescan extends ApiLeaf {
        @Option(names = "--tx-hash", required = true, paramLabel = "HASH", description = "Transaction hash.")
        String txHash;

        @Option(names = "--network-id", required = true, paramLabel = "UUID", description = "Network id.")
        String networkId;

        @Override
        int run(CustodyClient client) {
            ApiResponse<?> response = client.rescanTransaction(txHash, networkId);
            if (printedAsJson(response)) {
                return ExitCode.OK;
            }
            out.println("rescan requested for `" + txHash + "`"
                    + (response.message() == null || response.message().isBlank() ? "" : ": " + response.message()));
            return ExitCode.OK;
        }
    }
}
