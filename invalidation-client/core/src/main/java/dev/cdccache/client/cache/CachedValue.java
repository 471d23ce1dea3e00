package dev.cdccache.client.cache;

/**
 * A cache entry: the value (or {@code null} for a cached absence) and the time its database read started,
 * which the staleness guard compares with the time up to which the client has applied every change.
 *
 * @param <V> value type
 */
public final class CachedValue<V> {

    private final V value;
    private final long loadedAtMillis;

    public CachedValue(V value, long loadedAtMillis) {
        this.value = value;
        this.loadedAtMillis = loadedAtMillis;
    }

    /** The value, or {@code null} when the entry records that the row does not exist. */
    public V value() {
        return value;
    }

    /** Epoch milliseconds at which the database read behind this value started. */
    public long loadedAtMillis() {
        return loadedAtMillis;
    }

    @Override
    public String toString() {
        return "CachedValue[" + value + " loaded at " + loadedAtMillis + "]";
    }
}
