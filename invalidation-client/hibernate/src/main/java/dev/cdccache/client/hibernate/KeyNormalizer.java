package dev.cdccache.client.hibernate;

import dev.cdccache.client.keymapping.CompositeKey;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Turns the key Hibernate hands a region (an entity id, a collection's owner key) into the key the client's
 * change events evict: what {@link dev.cdccache.client.KeyType#AUTO} derives from the row's key columns. An
 * integer column becomes a {@link Long}, a text column a {@link String}, several columns a {@link CompositeKey}
 * of those in column order. Key columns of other types (dates, UUIDs, decimals) cannot be matched reliably with
 * Debezium's JSON, so a role with such a key is evicted as a whole on any change of its tables instead.
 */
final class KeyNormalizer {

    /** Splits a Hibernate key into the JDBC values of its columns, in key-column order. */
    @FunctionalInterface
    interface ColumnValues {
        void forEach(Object key, List<Object> into);
    }

    private static final Set<Class<?>> INTEGRAL = Set.of(Long.class, long.class, Integer.class, int.class,
            Short.class, short.class, Byte.class, byte.class, BigInteger.class);
    private static final Set<Class<?>> TEXT = Set.of(String.class);

    private final int columns;
    private final ColumnValues columnValues;

    private KeyNormalizer(int columns, ColumnValues columnValues) {
        this.columns = columns;
        this.columnValues = columnValues;
    }

    /**
     * @param columnTypes the Java types of the key columns' JDBC values
     * @return a normalizer, or {@code null} if some column type cannot be matched with change events
     */
    static KeyNormalizer of(List<Class<?>> columnTypes, ColumnValues columnValues) {
        for (Class<?> type : columnTypes) {
            if (!INTEGRAL.contains(type) && !TEXT.contains(type)) {
                return null;
            }
        }
        return new KeyNormalizer(columnTypes.size(), columnValues);
    }

    /** The client key of {@code hibernateKey}, or {@code null} if it cannot be derived (the entry is not cached). */
    Object normalize(Object hibernateKey) {
        if (hibernateKey == null) {
            return null;
        }
        if (columns == 1 && (hibernateKey instanceof Number || hibernateKey instanceof String)) {
            return component(hibernateKey);
        }
        List<Object> values = new ArrayList<>(columns);
        columnValues.forEach(hibernateKey, values);
        if (values.size() != columns) {
            return null;
        }
        if (columns == 1) {
            return component(values.get(0));
        }
        for (int i = 0; i < values.size(); i++) {
            Object component = component(values.get(i));
            if (component == null) {
                return null;
            }
            values.set(i, component);
        }
        return CompositeKey.of(values);
    }

    private static Object component(Object value) {
        if (value instanceof Long || value instanceof String) {
            return value;
        }
        if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return ((Number) value).longValue();
        }
        if (value instanceof BigInteger big && big.bitLength() < 64) {
            return big.longValue();
        }
        return null;
    }
}
