package dev.custody.cli.command.api;

import dev.custody.client.CustodyClient;
import dev.custody.client.model.Asset;
import dev.custody.client.model.AssetQuery;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code custody api assets list}: the public asset catalogue. Not thread-safe (picocli state). */
@Command(name = "assets",
        mixinStandardHelpOptions = true,
        description = "List assets (public).",
        subcommands = AssetsCommand.ListAssets.class,
        footerHeading = "%nExamples:%n",
        footer = {"  custody api assets list --search usdc --whitelisted"})
final class AssetsCommand extends ApiGroup {

    /** {@code assets list} with every filter of GET /assets; offset and limit are checked before sending. */
    @Command(name = "list",
            mixinStandardHelpOptions = true,
            description = "List assets (public endpoint: no credentials needed).",
            footerHeading = "%nExamples:%n",
            footer = {"  custody api assets list --network-id 3f6c… --tokens --limit 100",
                "  custody api assets list --search eth --native --format json"})
    static final class ListAssets extends ApiLeaf {
        @Option(names = "--network-id", paramLabel = "UUID", description = "Only assets of this network.")
        String networkId;

        @Option(names = "--search", paramLabel = "TEXT", description = "Filter by name or symbol.")
        String search;

        @ArgGroup(exclusive = true)
        Kind kind;

        @Option(names = "--whitelisted", description = "Only assets approved for platform use.")
        boolean whitelisted;

        @Option(names = "--offset", paramLabel = "N", description = "Skip N assets (0 to 100000).")
        Integer offset;

        @Option(names = "--limit", paramLabel = "N", description = "At most N assets (1 to 1000).")
        Integer limit;

        /** {@code --native} and {@code --tokens} exclude each other. */
        static final class Kind {
            @Option(names = "--native", required = true, description = "Only native currencies.")
            boolean nativeOnly;

            @Option(names = "--tokens", required = true, description = "Only tokens.")
            boolean tokensOnly;
        }

        @Override
        int run(CustodyClient client) {
            Boolean isNative = kind == null ? null : kind.nativeOnly;
            return printList(client.listAssets(
                    new AssetQuery(networkId, search, isNative, whitelisted ? Boolean.TRUE : null, offset, limit)),
                    "no assets", new String[] {"ID", "SYMBOL", "NAME", "NETWORK", "TYPE", "NATIVE", "WHITELISTED", "PRICE_USD"},
                    (Asset a) -> new Object[] {a.id(), a.symbol(), a.name(),
                        a.network() != null ? a.network().name() : a.networkId(), a.assetType(), a.isNative(),
                        a.isWhitelisted(), a.priceUsd()});
        }
    }
}
