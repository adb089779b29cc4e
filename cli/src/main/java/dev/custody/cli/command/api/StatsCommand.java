package dev.custody.cli.command.api;

import dev.custody.cli.ExitCode;
import dev.custody.client.ApiResponse;
import dev.custody.client.CustodyClient;
import dev.custody.client.model.WorkspaceStats;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code custody api stats --workspace-id W}: totals, daily volumes, monthly stats and fees. Not thread-safe. */
@Command(name = "stats",
        mixinStandardHelpOptions = true,
        description = "Show workspace statistics: totals, daily volume (8 days), monthly volume and fees per network.",
        footerHeading = "%nExamples:%n",
        footer = {"  custody api stats --workspace-id 7d0c…", "  custody api stats --workspace-id 7d0c… --format json"})
final class StatsCommand extends ApiLeaf {
    @Option(names = "--workspace-id", required = true, paramLabel = "UUID", description = "Workspace id.")
    String workspaceId;

    @Override
    int run(CustodyClient client) {
        ApiResponse<WorkspaceStats> response = client.workspaceStats(workspaceId);
        if (printedAsJson(response)) {
            return ExitCode.OK;
        }
        WorkspaceStats s = response.data();
        printFields("total value usd", s.totalValue(), "wallets", s.totalWallets(), "smart contracts", s.totalSmartContracts(),
                "pending transactions", s.totalPendingTransactions());
        if (!s.dailyVolumeStats().isEmpty()) {
            out.println();
            Table daily = new Table("DAY", "TOTAL_USD", "INFLOW_USD", "OUTFLOW_USD");
            for (WorkspaceStats.DailyVolume d : s.dailyVolumeStats()) {
                daily.row(d.id() == null ? null : date(d.id().month(), d.id().day()), d.total(),
                        d.totalInflowUsd(), d.totalOutflowUsd());
            }
            daily.print(out);
        }
        if (!s.monthlyStats().isEmpty()) {
            out.println();
            Table monthly = new Table("MONTH", "TRANSACTIONS", "VOLUME_USD");
            for (WorkspaceStats.MonthlyStat m : s.monthlyStats()) {
                monthly.row(m.id() == null ? null : date(m.id().year(), m.id().month()), m.totalTransaction(),
                        m.totalVolume());
            }
            monthly.print(out);
        }
        if (!s.monthlyTotalFeeSpentPerNetwork().isEmpty()) {
            out.println();
            Table fees = new Table("MONTH", "NETWORK", "FEE", "CURRENCY", "FEE_USD");
            for (WorkspaceStats.MonthlyNetworkFee f : s.monthlyTotalFeeSpentPerNetwork()) {
                fees.row(f.id() == null ? null : date(f.id().year(), f.id().month()),
                        f.network() == null ? (f.id() == null ? null : f.id().networkId()) : f.network().name(),
                        f.totalFeeSpent(), f.network() == null ? null : f.network().nativeCurrency(), f.value());
            }
            fees.print(out);
        }
        return ExitCode.OK;
    }

    /** {@code 2026-11} or {@code 11-09}: two numbers, the second zero-padded; null when one is absent. */
    private static String date(Integer first, Integer second) {
        if (first == null || second == null) {
            return null;
        }
        return (first < 10 ? "0" + first : first.toString()) + "-" + (second < 10 ? "0" + second : second.toString());
    }
}
