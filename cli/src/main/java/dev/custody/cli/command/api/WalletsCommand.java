package dev.custody.cli.command.api;

import dev.custody.cli.ExitCode;
import dev.custody.client.ApiResponse;
import dev.custody.client.CustodyClient;
import dev.custody.client.model.CreateWalletRequest;
import dev.custody.client.model.DepositAddress;
import dev.custody.client.model.SweepTaskParams;
import dev.custody.client.model.WalletAsset;
import dev.custody.client.model.WalletCreationResult;
import dev.custody.client.model.WalletCreationStatus;
import dev.custody.client.model.WalletListItem;
import dev.custody.client.model.WalletQuery;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code custody api wallets create|list|status|deposit-address|add-asset|remove-asset}.
 * Not thread-safe (picocli state).
 */
@Command(name = "wallets",
        mixinStandardHelpOptions = true,
        description = "Create and list wallets, read deposit addresses, add and remove wallet assets.",
        subcommands = {
            WalletsCommand.Create.class,
            WalletsCommand.ListWallets.class,
            WalletsCommand.Status.class,
            WalletsCommand.DepositAddressCommand.class,
            WalletsCommand.AddAsset.class,
            WalletsCommand.RemoveAsset.class,
        },
        footerHeading = "%nExamples:%n",
        footer = {"  custody api wallets create --name Treasury --type mpc --wait",
            "  custody api wallets list --workspace-id 7d0c… --type mpc"})
final class WalletsCommand extends ApiGroup {

    /** Prints the final creation status; exit 3 when it ended in {@code error}. */
    static int printCreation(ApiLeaf leaf, WalletCreationStatus status) {
        if (leaf.json()) {
            leaf.printJsonValue(status);
        } else {
            leaf.printFields("wallet_id", status.walletId(), "status", status.status());
        }
        if ("error".equals(status.status())) {
            leaf.err.println("error: creation of wallet `" + status.walletId() + "` ended with status `error`");
            return ExitCode.IO;
        }
        return ExitCode.OK;
    }

    /** {@code wallets create --name N --type standard|mpc [--purpose P] [sweep options] [--wait]}. */
    @Command(name = "create", mixinStandardHelpOptions = true,
            description = "Create a wallet; an mpc key takes about 7 to 15 s (use --wait to poll until it is ready).",
            footerHeading = "%nExamples:%n",
            footer = {"  custody api wallets create --name Treasury --type mpc --wait",
                "  custody api wallets create --name Deposits --type standard --purpose user "
                        + "--sweep-min-usd 1000 --sweep-destination 5b1e…"})
    static final class Create extends ApiLeaf {
        @Option(names = "--name", required = true, paramLabel = "NAME", description = "Wallet name.")
        String name;

        @Option(names = "--type", required = true, paramLabel = "TYPE", description = "standard or mpc.")
        String type;

        @Option(names = "--purpose", paramLabel = "PURPOSE", description = "general (server default), user or one_time_use.")
        String purpose;

        @Option(names = "--sweep-min-usd", paramLabel = "USD", description = "Sweep when the wallet value reaches this USD value.")
        BigDecimal sweepMinUsd;

        @Option(names = "--sweep-destination", paramLabel = "UUID", description = "Sweep destination wallet or address book record.")
        String sweepDestination;

        @Option(names = "--sweep-destination-type", paramLabel = "TYPE", description = "internal_wallet (default) or address_book.")
        String sweepDestinationType;

        @Option(names = "--sweep-task-id", paramLabel = "UUID", description = "Attach an existing sweep task (wins over --sweep-* parameters).")
        String sweepTaskId;

        @Option(names = "--wait", description = "Poll the creation status until it is no longer pending.")
        boolean await;

        @Option(names = "--wait-timeout", paramLabel = "SECONDS", defaultValue = "120", description = "Give up waiting after this many seconds (default: ${DEFAULT-VALUE}).")
        int waitTimeoutSeconds;

        @Override
        int run(CustodyClient client) {
            if (!List.of("standard", "mpc").contains(type)) {
                throw new UsageException("unknown wallet type `" + type + "`: use `standard` or `mpc`");
            }
            if (purpose != null && !List.of("general", "user", "one_time_use").contains(purpose)) {
                throw new UsageException("unknown wallet purpose `" + purpose + "`: use `general`, `user` or `one_time_use`");
            }
            if (sweepDestinationType != null && !List.of("internal_wallet", "address_book").contains(sweepDestinationType)) {
                throw new UsageException("unknown sweep destination type `" + sweepDestinationType
                        + "`: use `internal_wallet` or `address_book`");
            }
            SweepTaskParams sweep = null;
            if (sweepMinUsd != null || sweepDestination != null || sweepDestinationType != null) {
                if (sweepMinUsd == null || sweepDestination == null) {
                    throw new UsageException("a sweep task needs both `--sweep-min-usd` and `--sweep-destination`");
                }
                sweep = new SweepTaskParams(sweepMinUsd, sweepDestination, sweepDestinationType);
            }
            ApiResponse<WalletCreationResult> response = client.createWallet(
                    new CreateWalletRequest(name, type, purpose, sweep, sweepTaskId));
            WalletCreationResult created = response.data();
            if (await && "pending".equals(created.status())) {
                return printCreation(this, client.awaitWalletCreation(created.walletId(), Duration.ofSeconds(waitTimeoutSeconds)));
            }
            if (printedAsJson(response)) {
                return "error".equals(created.status()) ? ExitCode.IO : ExitCode.OK;
            }
            return printCreation(this, new WalletCreationStatus(created.walletId(), created.status()));
        }
    }

    /** {@code wallets list --workspace-id W [--type T] [--limit N] [--offset N]}. */
    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the wallets of a workspace.",
            footerHeading = "%nExamples:%n", footer = {"  custody api wallets list --workspace-id 7d0c… --type mpc --limit 50"})
    static final class ListWallets extends ApiLeaf {
        @Option(names = "--workspace-id", required = true, paramLabel = "UUID", description = "Workspace id.")
        String workspaceId;

        @Option(names = "--type", paramLabel = "TYPE", description = "standard or mpc.")
        String type;

        @Option(names = "--limit", paramLabel = "N", description = "At most N wallets.")
        Integer limit;

        @Option(names = "--offset", paramLabel = "N", description = "Skip N wallets.")
        Integer offset;

        @Override
        int run(CustodyClient client) {
            return printList(client.listWallets(workspaceId, new WalletQuery(type, limit, offset)), "no wallets",
                    new String[] {"ID", "NAME", "TYPE", "PURPOSE", "ROLE", "VALUE_USD"},
                    (WalletListItem w) -> new Object[] {w.id(), w.name(), w.walletType(), w.walletPurpose(), w.role(),
                        w.valueUsd()});
        }
    }

    /** {@code wallets status --wallet-id ID [--wait]}: the creation status. */
    @Command(name = "status", mixinStandardHelpOptions = true, description = "Show the creation status of a wallet.",
            footerHeading = "%nExamples:%n", footer = {"  custody api wallets status --wallet-id 5b1e… --wait"})
    static final class Status extends ApiLeaf {
        @Option(names = "--wallet-id", required = true, paramLabel = "UUID", description = "Wallet id.")
        String walletId;

        @Option(names = "--wait", description = "Poll until the status is no longer pending.")
        boolean await;

        @Option(names = "--wait-timeout", paramLabel = "SECONDS", defaultValue = "120", description = "Give up waiting after this many seconds (default: ${DEFAULT-VALUE}).")
        int waitTimeoutSeconds;

        @Override
        int run(CustodyClient client) {
            if (await) {
                return printCreation(this, client.awaitWalletCreation(walletId, Duration.ofSeconds(waitTimeoutSeconds)));
            }
            ApiResponse<WalletCreationStatus> response = client.walletCreationStatus(walletId);
            if (printedAsJson(response)) {
                return "error".equals(response.data().status()) ? ExitCode.IO : ExitCode.OK;
            }
            return printCreation(this, response.data());
        }
    }

    /** {@code wallets deposit-address --wallet-id W --asset-id A --address-type evm|sol}. */
    @Command(name = "deposit-address", mixinStandardHelpOptions = true,
            description = "Show the deposit address of a wallet for an asset (address types evm and sol; tron is not available yet).",
            footerHeading = "%nExamples:%n",
            footer = {"  custody api wallets deposit-address --wallet-id 5b1e… --asset-id 0c7d… --address-type evm"})
    static final class DepositAddressCommand extends ApiLeaf {
        @Option(names = "--wallet-id", required = true, paramLabel = "UUID", description = "Wallet id.")
        String walletId;

        @Option(names = "--asset-id", required = true, paramLabel = "UUID", description = "Asset id.")
        String assetId;

        @Option(names = "--address-type", required = true, paramLabel = "TYPE", description = "evm or sol.")
        String addressType;

        @Override
        int run(CustodyClient client) {
            ApiResponse<DepositAddress> response = client.depositAddress(walletId, assetId, addressType);
            if (printedAsJson(response)) {
                return ExitCode.OK;
            }
            DepositAddress a = response.data();
            printFields("address", a.address(), "asset_id", a.assetId(), "qr_code", a.qrCode());
            return ExitCode.OK;
        }
    }

    /** {@code wallets add-asset --wallet-id W --asset-id A}. */
    @Command(name = "add-asset", mixinStandardHelpOptions = true,
            description = "Add an asset to a wallet (the wallet needs an address type of the asset's network).",
            footerHeading = "%nExamples:%n", footer = {"  custody api wallets add-asset --wallet-id 5b1e… --asset-id 0c7d…"})
    static final class AddAsset extends ApiLeaf {
        @Option(names = "--wallet-id", required = true, paramLabel = "UUID", description = "Wallet id.")
        String walletId;

        @Option(names = "--asset-id", required = true, paramLabel = "UUID", description = "Asset id.")
        String assetId;

        @Override
        int run(CustodyClient client) {
            ApiResponse<WalletAsset> response = client.addWalletAsset(walletId, assetId);
            if (printedAsJson(response)) {
                return ExitCode.OK;
            }
            WalletAsset a = response.data();
            printFields("id", a.id(), "wallet_id", a.walletId(), "asset_id", a.assetId(),
                    "deposit_address", a.depositAddress(), "hidden", a.hidden());
            return ExitCode.OK;
        }
    }

    /** {@code wallets remove-asset --wallet-id W --asset-id A}. */
    @Command(name = "remove-asset", mixinStandardHelpOptions = true,
            description = "Remove an asset from a wallet (refused unless its balance is zero).",
            footerHeading = "%nExamples:%n", footer = {"  custody api wallets remove-asset --wallet-id 5b1e… --asset-id 0c7d…"})
    static final class RemoveAsset extends ApiLeaf {
        @Option(names = "--wallet-id", required = true, paramLabel = "UUID", description = "Wallet id.")
        String walletId;

        @Option(names = "--asset-id", required = true, paramLabel = "UUID", description = "Asset id.")
        String assetId;

        @Override
        int run(CustodyClient client) {
            ApiResponse<?> response = client.removeWalletAsset(walletId, assetId);
            if (printedAsJson(response)) {
                return ExitCode.OK;
            }
            out.println("removed asset `" + assetId + "` from wallet `" + walletId + "`");
            return ExitCode.OK;
        }
    }
}
