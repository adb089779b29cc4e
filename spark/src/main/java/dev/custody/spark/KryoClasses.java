package dev.custody.spark;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.serializers.ExternalizableSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import org.apache.spark.serializer.KryoRegistrator;

/**
 * The classes the job's shuffles and broadcasts carry, registered with Kryo ({@code spark.kryo.registrator}, set by
 * {@link ReplayJob} unless {@code spark.serializer} is configured): the shuffled ones with their own compact
 * {@link java.io.Externalizable} form, {@link PolicySet} with Java serialization inside Kryo. With Spark's default
 * Java serializer the same classes travel as Java serialization writes them (a profile of {@code --velocity derive}
 * found 17 % of the executors' time in Java's object streams). Stateless.
 */
public final class KryoClasses implements KryoRegistrator {
    @Override
    public void registerClasses(Kryo kryo) {
        kryo.register(JsonlReplay.SplitPos.class, new ExternalizableSerializer());
        kryo.register(KeyedLedger.Op.class, new ExternalizableSerializer());
        kryo.register(JsonlReplay.Figures.class, new ExternalizableSerializer());
        kryo.register(PolicySet.class, new JavaSerializer());
    }
}
