package dev.cdccache.client.cache;

/**
 * A cache entry that carries the time its database read started, which the staleness guard compares with the
 * time up to which the client has applied every change.
 *
 * <p>Most entries are stored without it: a value loaded while the client is provably fresh is stored as is, and
 * counts as loaded at {@link #UNKNOWN_LOAD}, so it is served only while the client stays fresh (every entry is then
 * servable, whatever its age). An entry is stored in a {@code CachedValue} when its load time matters: loaded while
 * the client lags (so it stays servable within the bound, as with a time-to-live), under refresh-ahead (which needs
 * its age), or a cached absence ({@code null} value). {@link #valueOf} and {@link #loadedAtMillis(Object)} read
 * either form, for code that inspects the map of {@code InvalidatingCache#caffeine()}.
 *
 * @param <V> value type
 */
public final class CachedValue<V> {

    /** The load time of an entry stored without one: older than every threshold the staleness guard sets. */
    public static final long UNKNOWN_LOAD = Long.MIN_VALUE;

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

    /** Epoch milliseconds at which the database read behind this value started, or {@link #UNKNOWN_LOAD}. */
    public long loadedAtMillis() {
        return loadedAtMillis;
    }

    /**
     * The value held by an entry of the cache's map, in either form.
     *
     * @param stored a value of the map of {@code InvalidatingCache#caffeine()}, not {@code null}
     */
    @SuppressWarnings("unchecked")
    public static <V> V valueOf(Object stored) {
        return stored instanceof CachedValue<?> entry ? (V) entry.value : (V) stored;
    }

    /**
     * The load time of an entry of the cache's map, in either form: {@link #UNKNOWN_LOAD} for a value stored as is.
     *
     * @param stored a value of the map of {@code InvalidatingCache#caffeine()}, not {@code null}
     */
    public static long loadedAtMillis(Object stored) {
        return stored instanceof CachedValue<?> entry ? entry.loadedAtMillis : UNKNOWN_LOAD;
    }

    @Override
    public String toString() {
        return "CachedValue[" + value + " loaded at " + (loadedAtMillis == UNKNOWN_LOAD ? "unknown" : loadedAtMillis)
                + "]";
    }
}
