package dev.custody.engine.check;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * An unmodifiable map over a range of two arrays, keys in the order given, for the few entries of a section read
 * from a stream ({@link JsonLine#action}): one object over arrays shared by the line's sections, where a
 * {@code LinkedHashMap} takes a node per entry and a table. Equal to, and iterating in the same order as, the
 * {@code LinkedHashMap} the general path fills from the same text. Lookups compare keys one by one, which for a
 * section's ten-odd fields costs less than hashing.
 *
 * <p>Keys are distinct and not null (the reader gives up on a duplicate); values may be anything. Immutable and
 * thread-safe once made, provided the caller no longer writes the arrays.
 */
final class ArrayMap<V> extends AbstractMap<String, V> {
    private final String[] keys;
    private final Object[] values;
    private final int from;
    private final int size;

    /** The map of {@code keys[i] -> values[i]} for {@code i} in {@code [0, size)}. */
    ArrayMap(String[] keys, Object[] values, int size) {
        this(keys, values, 0, size);
    }

    /** The map of {@code keys[i] -> values[i]} for {@code i} in {@code [from, from + size)}. */
    ArrayMap(String[] keys, Object[] values, int from, int size) {
        this.keys = keys;
        this.values = values;
        this.from = from;
        this.size = size;
    }

    private int indexOf(Object key) {
        for (int i = from; i < from + size; i++) {
            if (keys[i].equals(key)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    @SuppressWarnings("unchecked")
    public V get(Object key) {
        int i = indexOf(key);
        return i < 0 ? null : (V) values[i];
    }

    @Override
    public boolean containsKey(Object key) {
        return indexOf(key) >= 0;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Set<Entry<String, V>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public int size() {
                return size;
            }

            @Override
            public Iterator<Entry<String, V>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < size;
                    }

                    @Override
                    @SuppressWarnings("unchecked")
                    public Entry<String, V> next() {
                        if (next >= size) {
                            throw new NoSuchElementException();
                        }
                        int i = from + next++;
                        return new SimpleImmutableEntry<>(keys[i], (V) values[i]);
                    }
                };
            }
        };
    }
}
