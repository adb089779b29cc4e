package dev.custody.spark;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.KryoObjectInput;
import com.esotericsoftware.kryo.io.KryoObjectOutput;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import java.io.Externalizable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.Supplier;
import org.apache.spark.serializer.KryoRegistrator;

/**
 * The classes the job's shuffles and broadcasts carry, registered with Kryo ({@code spark.kryo.registrator}, set by
 * {@link ReplayJob} unless {@code spark.serializer} is configured): the shuffled ones in their own compact
 * {@link Externalizable} form, written straight to Kryo's stream, {@link PolicySet} with Java serialization inside
 * Kryo. (Not Kryo's {@code ExternalizableSerializer}: it looks for {@code writeReplace} by reflection on every
 * object, a {@code NoSuchMethodException} each time.) With Spark's default Java serializer the same classes travel
 * as Java serialization writes them. Stateless.
 */
public final class KryoClasses implements KryoRegistrator {
    @Override
    public void registerClasses(Kryo kryo) {
        kryo.register(JsonlReplay.SplitPos.class, new Direct<>(JsonlReplay.SplitPos::new));
        kryo.register(KeyedLedger.Op.class, new Direct<>(KeyedLedger.Op::new));
        kryo.register(JsonlReplay.Figures.class, new Direct<>(JsonlReplay.Figures::new));
        kryo.register(PolicySet.class, new JavaSerializer());
    }

    /** An {@link Externalizable} class's own form on Kryo's streams. */
    private static final class Direct<T extends Externalizable> extends Serializer<T> {
        private final Supplier<T> create;

        Direct(Supplier<T> create) {
            this.create = create;
        }

        @Override
        public void write(Kryo kryo, Output output, T object) {
            try {
                object.writeExternal(new KryoObjectOutput(kryo, output));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public T read(Kryo kryo, Input input, Class<T> type) {
            T object = create.get();
            try {
                object.readExternal(new KryoObjectInput(kryo, input));
            } catch (IOException | ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
            return object;
        }
    }
}
