package dev.custody.engine.velocity;

import java.math.BigDecimal;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The velocity figures of one withdrawal: the wallet's, the workspace's, and the workspace's on the
 * withdrawal's network, ready to become the {@code wallet} and {@code workspace} payload sections.
 *
 * <p>Outflows are exact decimal USD ({@link BigDecimal}); the payload check turns them into CEL doubles
 * once, at the boundary, so the rounding is that of one conversion and never an accumulated drift.
 * Immutable and thread-safe.
 *
 * @param wallet figures of the wallet (across all its networks)
 * @param workspace figures of the whole workspace
 * @param network figures of the workspace on the withdrawal's network
 */
public record Velocity(Figures wallet, Figures workspace, Figures network) {

    public Velocity {
        Objects.requireNonNull(wallet, "wallet");
        Objects.requireNonNull(workspace, "workspace");
        Objects.requireNonNull(network, "network");
    }

    /** Figures with nothing in them. */
    public static final Velocity NONE = new Velocity(Figures.ZERO, Figures.ZERO, Figures.ZERO);

    /**
     * The {@code wallet} section: {@code outflow_1h}, {@code outflow_6h}, {@code outflow_24h},
     * {@code withdrawal_count_1h}.
     */
    public Map<String, Object> walletSection() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("outflow_1h", wallet.outflow1h());
        m.put("outflow_6h", wallet.outflow6h());
        m.put("outflow_24h", wallet.outflow24h());
        m.put("withdrawal_count_1h", wallet.withdrawalCount1h());
        return Collections.unmodifiableMap(m);
    }

    /**
     * The {@code workspace} section: {@code outflow_*}, {@code withdrawal_count_1h},
     * {@code network_outflow_*}, {@code network_withdrawal_count_1h}.
     */
    public Map<String, Object> workspaceSection() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("outflow_1h", workspace.outflow1h());
        m.put("outflow_6h", workspace.outflow6h());
        m.put("outflow_24h", workspace.outflow24h());
        m.put("withdrawal_count_1h", workspace.withdrawalCount1h());
        m.put("network_outflow_1h", network.outflow1h());
        m.put("network_outflow_6h", network.outflow6h());
        m.put("network_outflow_24h", network.outflow24h());
        m.put("network_withdrawal_count_1h", network.withdrawalCount1h());
        return Collections.unmodifiableMap(m);
    }

    /**
     * The figures of one scope.
     *
     * @param outflow1h realized USD outflow over the last hour
     * @param outflow6h realized USD outflow over the last 6 hours
     * @param outflow24h realized USD outflow over the last 24 hours
     * @param withdrawalCount1h withdrawal attempts over the last hour
     */
    public record Figures(BigDecimal outflow1h, BigDecimal outflow6h, BigDecimal outflow24h, long withdrawalCount1h) {
        /** No outflow, no attempts. */
        public static final Figures ZERO = new Figures(BigDecimal.ZERO, BigDecimal.ZERO, BigDecimal.ZERO, 0);

        public Figures {
            Objects.requireNonNull(outflow1h, "outflow1h");
            Objects.requireNonNull(outflow6h, "outflow6h");
            Objects.requireNonNull(outflow24h, "outflow24h");
            if (outflow1h.signum() < 0 || outflow6h.signum() < 0 || outflow24h.signum() < 0 || withdrawalCount1h < 0) {
                throw new IllegalArgumentException("velocity figures must not be negative");
            }
        }
    }
}
