package dev.custody.client.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;
/**
 * The {@code data} of {@code GET /workspaces/{workspace_id}/stats}. USD values stay strings as sent.
 * Lists are never {@code null} (empty when absent). Immutable and thread-safe.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record WorkspaceStats(
        String totalValue,
        Integer totalWallets,
        Integer totalSmartContracts,
        Integer totalPendingTransactions,
        List<DailyVolume> dailyVolumeStats,
        List<MonthlyStat> monthlyStats,
        List<MonthlyNetworkFee> monthlyTotalFeeSpentPerNetwork) {

    public WorkspaceStats {
        dailyVolumeStats = dailyVolumeStats == null ? List.of() : List.copyOf(dailyVolumeStats);
        monthlyStats = monthlyStats == null ? List.of() : List.copyOf(monthlyStats);
        monthlyTotalFeeSpentPerNetwork = monthlyTotalFeeSpentPerNetwork == null
                ? List.of() : List.copyOf(monthlyTotalFeeSpentPerNetwork);
    }

    /** One {@code daily_volume_stats} entry (one per day, last 8 days). Immutable and thread-safe. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record DailyVolume(DayId id, String total, String totalInflowUsd, String totalOutflowUsd) {
    }

    /** The {@code id} of a daily entry: day of month and month 1-12. Immutable and thread-safe. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record DayId(Integer day, Integer month) {
    }

    /** One {@code monthly_stats} entry. Immutable and thread-safe. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record MonthlyStat(MonthId id, Integer totalTransaction, String totalVolume) {
    }

    /** The {@code id} of a monthly entry: month 1-12 and year. Immutable and thread-safe. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record MonthId(Integer month, Integer year) {
    }

    /**
     * One {@code monthly_total_fee_spent_per_network} entry: fee in native currency and in USD.
     * Immutable and thread-safe.
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record MonthlyNetworkFee(FeeId id, String totalFeeSpent, String value, FeeNetwork network) {
    }

    /** The {@code id} of a fee entry: month, network id and year. Immutable and thread-safe. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record FeeId(Integer month, String networkId, Integer year) {
    }

    /** The network of a fee entry: name and native currency symbol. Immutable and thread-safe. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record FeeNetwork(String name, String nativeCurrency) {
    }
}
