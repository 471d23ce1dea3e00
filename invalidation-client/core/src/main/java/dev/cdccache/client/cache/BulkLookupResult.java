package dev.cdccache.client.cache;

import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * The unmodifiable map {@link CaffeineInvalidatingCache#getAll} returns: the keys in the order they were requested,
 * each once, with their values.
 *
 * <p>Why not a {@code LinkedHashMap}: a bulk lookup of hundreds of ids would allocate a node per id and copy every
 * value a second time. This map keeps the two arrays the lookup already filled (keys and values side by side) and
 * adds one {@code int} table to find a key by hash; a lookup of 400 ids allocates three arrays instead of 400
 * nodes plus a table.
 *
 * <p>Not thread-safe to build; once {@link #seal sealed} it is immutable and may be shared.
 *
 * @param <K> key type
 * @param <V> value type
 */
final class BulkLookupResult<K, V> extends AbstractMap<K, V> {

    private final Object[] keys;
    private final Object[] values;
    /** Position + 1 in {@link #keys} of the key hashed to a slot, 0 for an empty slot (linear probing). */
    private final int[] slots;
    private final int mask;
    private int size;
    private Set<Map.Entry<K, V>> entrySet;

    /**
     * Takes over {@code keys} and {@code values} (same length, position by position): {@link #seal} then keeps the
     * pairs whose value is not {@code null}, in order, each key once.
     */
    BulkLookupResult(Object[] keys, Object[] values) {
        this.keys = keys;
        this.values = values;
        // At most half full: short probe sequences even when hash codes cluster.
        int capacity = Integer.highestOneBit(Math.max(2, keys.length) * 2 - 1) << 1;
        this.slots = new int[capacity];
        this.mask = capacity - 1;
    }

    /**
     * Drops the pairs without a value and repeated keys (a repeated key keeps its first position and its last
     * value, as {@code Map#put} in a {@code LinkedHashMap} would), and builds the hash index. Returns {@code this}.
     */
    BulkLookupResult<K, V> seal() {
        int kept = 0;
        for (int i = 0; i < keys.length; i++) {
            Object value = values[i];
            if (value == null) {
                continue;
            }
            Object key = keys[i];
            int slot = slotOf(key);
            if (slots[slot] != 0) {
                values[slots[slot] - 1] = value;
                continue;
            }
            // Compacting in place: kept <= i, so no pair not yet visited is overwritten.
            keys[kept] = key;
            values[kept] = value;
            slots[slot] = ++kept;
        }
        for (int i = kept; i < keys.length; i++) {
            keys[i] = null;
            values[i] = null;
        }
        size = kept;
        return this;
    }

    /** The slot holding {@code key}, or the empty slot where it would go. */
    private int slotOf(Object key) {
        int h = key.hashCode();
        int slot = (h ^ (h >>> 16)) & mask;
        while (true) {
            int position = slots[slot];
            if (position == 0 || key.equals(keys[position - 1])) {
                return slot;
            }
            slot = (slot + 1) & mask;
        }
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public boolean containsKey(Object key) {
        return key != null && slots[slotOf(key)] != 0;
    }

    @Override
    @SuppressWarnings("unchecked")
    public V get(Object key) {
        if (key == null) {
            return null;
        }
        int position = slots[slotOf(key)];
        return position == 0 ? null : (V) values[position - 1];
    }

    @Override
    @SuppressWarnings("unchecked")
    public void forEach(BiConsumer<? super K, ? super V> action) {
        Objects.requireNonNull(action, "action");
        for (int i = 0; i < size; i++) {
            action.accept((K) keys[i], (V) values[i]);
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public Set<K> keySet() {
        return new PositionSet<>(i -> (K) keys[i], this::containsKey);
    }

    @Override
    @SuppressWarnings("unchecked")
    public Collection<V> values() {
        return new AbstractCollection<>() {
            @Override
            public int size() {
                return size;
            }

            @Override
            public Iterator<V> iterator() {
                return new Cursor<>(i -> (V) values[i]);
            }
        };
    }

    @Override
    @SuppressWarnings("unchecked")
    public Set<Map.Entry<K, V>> entrySet() {
        Set<Map.Entry<K, V>> view = entrySet;
        if (view == null) {
            view = new PositionSet<>(i -> new AbstractMap.SimpleImmutableEntry<>((K) keys[i], (V) values[i]), null);
            entrySet = view;
        }
        return view;
    }

    /** The keys or the entries as a set view. */
    private final class PositionSet<T> extends AbstractSet<T> {
        private final IntFunction<T> at;
        /** A faster {@code contains} than walking the positions, or {@code null}. */
        private final Predicate<Object> member;

        PositionSet(IntFunction<T> at, Predicate<Object> member) {
            this.at = at;
            this.member = member;
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public boolean contains(Object o) {
            return member != null ? member.test(o) : super.contains(o);
        }

        @Override
        public Iterator<T> iterator() {
            return new Cursor<>(at);
        }
    }

    /** Walks the positions in order; unmodifiable (no {@code remove}), so none of the views can change the map. */
    private final class Cursor<T> implements Iterator<T> {
        /** What the iterator returns for a position. */
        private final IntFunction<T> at;
        private int next;

        Cursor(IntFunction<T> at) {
            this.at = at;
        }

        @Override
        public boolean hasNext() {
            return next < size;
        }

        @Override
        public T next() {
            if (next >= size) {
                throw new NoSuchElementException();
            }
            return at.apply(next++);
        }
    }
}
