package dev.custody.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import dev.custody.engine.velocity.Velocity;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The shuffled classes through Kryo as {@link KryoClasses} registers them: each comes back as it went. */
class KryoClassesTest {
    private static <T> T roundTrip(T value) {
        Kryo kryo = new Kryo();
        kryo.setRegistrationRequired(true);
        new KryoClasses().registerClasses(kryo);
        Output out = new Output(256, -1);
        kryo.writeClassAndObject(out, value);
        @SuppressWarnings("unchecked")
        T back = (T) kryo.readClassAndObject(new Input(out.toBytes()));
        return back;
    }

    @Test
    void ledgerOperationsSplitPositionsAndFiguresComeBackAsTheyWent() {
        KeyedLedger.Op op = new KeyedLedger.Op();
        op.kind = KeyedLedger.WITHDRAWAL;
        op.split = 7;
        op.pos = (3L << 40) + 12_345;
        op.t = 1_793_000_000_123_456_789L;
        op.m = Long.MIN_VALUE;
        op.wallet = "cea35e29-55d0-434c-9037-3c44148d4eca";
        op.workspace = "00cd4ae6-310e-4566-99ae-1270f1ed5570";
        op.network = "ETHEREUM_MAINNET";
        op.query = true;
        op.usd = new BigDecimal("123456789012345678901234.5");
        op.line = "{\"id\": \"ü\"}".getBytes(StandardCharsets.UTF_8);
        KeyedLedger.Op back = roundTrip(op);
        assertEquals(op.kind, back.kind);
        assertEquals(op.split, back.split);
        assertEquals(op.pos, back.pos);
        assertEquals(op.t, back.t);
        assertEquals(op.m, back.m);
        assertEquals(op.wallet, back.wallet);
        assertEquals(op.workspace, back.workspace);
        assertEquals(op.network, back.network);
        assertNull(back.group);
        assertEquals(true, back.query);
        assertEquals(false, back.realize);
        assertEquals(op.usd, back.usd);
        assertArrayEquals(op.line, back.line);

        JsonlReplay.SplitPos key = roundTrip(new JsonlReplay.SplitPos(3, Long.MIN_VALUE + 3));
        assertEquals(new JsonlReplay.SplitPos(3, Long.MIN_VALUE + 3), key);

        Velocity v = new Velocity(new Velocity.Figures(new BigDecimal("1.500000"), BigDecimal.ZERO, new BigDecimal("2.000000"), 4),
                Velocity.Figures.ZERO, new Velocity.Figures(BigDecimal.ONE, BigDecimal.TEN, new BigDecimal("1e30"), 0));
        JsonlReplay.Figures f = roundTrip(JsonlReplay.Figures.of(2, 99, v));
        assertEquals(2, f.split);
        assertEquals(99, f.pos);
        assertNull(f.refusedM);
        // scales kept: a derived figure prints as the ledger gave it
        assertEquals(v, f.velocity());
        JsonlReplay.Figures refused = roundTrip(JsonlReplay.Figures.refused(1, 5, 1_793_000_000_000_000_000L));
        assertEquals(1_793_000_000_000_000_000L, refused.refusedM);
        assertNull(refused.velocity());
    }
}
