package dev.custody.velocity.jdbc;

import dev.custody.engine.velocity.Velocity;
import java.math.BigDecimal;

/**
 * The figures an attempt was given, as the text its id row keeps for retries: per scope (wallet, workspace,
 * network) {@code outflow_1h,outflow_6h,outflow_24h,count_1h} in micro-dollars and attempts, scopes separated by
 * {@code ;}. Exact: the figures come out as the ledger gave them (scale 6).
 */
final class FiguresText {
    private FiguresText() {}

    static String write(Velocity v) {
        StringBuilder b = new StringBuilder(96);
        Velocity.Figures[] scopes = {v.wallet(), v.workspace(), v.network()};
        for (int i = 0; i < scopes.length; i++) {
            Velocity.Figures f = scopes[i];
            if (i > 0) {
                b.append(';');
            }
            b.append(micros(f.outflow1h())).append(',').append(micros(f.outflow6h())).append(',')
                    .append(micros(f.outflow24h())).append(',').append(f.withdrawalCount1h());
        }
        return b.toString();
    }

    static Velocity read(String text) {
        String[] scopes = text.split(";", -1);
        if (scopes.length != 3) {
            throw new IllegalArgumentException("stored figures `" + text + "` do not have three scopes");
        }
        Velocity.Figures[] f = new Velocity.Figures[3];
        for (int i = 0; i < 3; i++) {
            String[] v = scopes[i].split(",", -1);
            if (v.length != 4) {
                throw new IllegalArgumentException("stored figures `" + text + "` do not have four values a scope");
            }
            f[i] = new Velocity.Figures(BigDecimal.valueOf(Long.parseLong(v[0]), 6),
                    BigDecimal.valueOf(Long.parseLong(v[1]), 6), BigDecimal.valueOf(Long.parseLong(v[2]), 6),
                    Long.parseLong(v[3]));
        }
        return new Velocity(f[0], f[1], f[2]);
    }

    private static String micros(BigDecimal usd) {
        return usd.setScale(6).unscaledValue().toString();
    }
}
