package dev.cdccache.client;

import com.github.benmanes.caffeine.cache.Cache;
import dev.cdccache.client.cache.CachedValue;
import dev.cdccache.client.cache.LoadStamp;
import dev.cdccache.client.cache.SampledHit;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * A Caffeine cache whose entries are evicted by the database changes of the tables it is bound to, and
 * which never keeps a value that was read from the database before an invalidation it has applied
 * ("no stale populate").
 *
 * <p><b>Thread-safety.</b> All methods may be called from any thread. Invalidations arrive on the client's
 * consumer thread and never wait for a loader.
 *
 * <p><b>No stale populate.</b> Every way of filling the cache ({@link #get}, {@link #getAll},
 * {@link #putLoaded}, refresh-ahead) takes a {@link LoadStamp} of the key's invalidation generation
 * <em>before</em> the database is read; the value is stored only if no invalidation of that key (or of the
 * whole cache) was applied since. Otherwise it is returned to the caller but not cached.
 *
 * <p><b>Nulls.</b> Keys must not be null. A loader may return {@code null} for "no such row"; if the
 * cache is configured with {@code cache-nulls} (the default) that absence is cached, and an insert of the
 * key evicts it like any other change.
 *
 * <p><b>Bounded staleness.</b> While the client cannot show that it has applied every change up to
 * {@code max-staleness} ago, entries read from the database before that are treated as misses (policy
 * {@code bypass-cache}). Before the client is ready (positioned at the end of every partition) nothing is
 * cached: loads pass through.
 *
 * @param <K> key type; must match the cache's configured {@link KeyType} (e.g. {@code Long} for an id column)
 * @param <V> value type
 */
public interface InvalidatingCache<K, V> {

    /** The configured cache name. */
    String name();

    /**
     * Returns the cached value of {@code key}, or loads it. Concurrent misses of one key run one load
     * (single-flight); the others wait for its result. A loader exception is thrown to every waiting caller
     * and nothing is cached. The loader must not call back into this cache for the same key.
     *
     * @return the value, or {@code null} if the loader found none
     */
    V get(K key, Function<? super K, ? extends V> loader);

    /**
     * Returns the values of {@code keys}: cached ones from the cache, the others from ONE call of
     * {@code bulkLoader} with exactly the missing keys (no call if every key hits). The result iterates in
     * the order of {@code keys}; keys the loader returns no value for are omitted (and cached as absent if
     * {@code cache-nulls} is on). A key requested more than once appears once, at its first position. Loaded
     * values are cached only if no invalidation of their key was applied since the lookup started. The map returned
     * is unmodifiable.
     */
    Map<K, V> getAll(Collection<? extends K> keys,
            Function<? super Set<? extends K>, ? extends Map<? extends K, ? extends V>> bulkLoader);

    /** The cached value, or {@code null} if absent, cached as absent, or not servable (staleness). */
    V getIfPresent(K key);

    /**
     * The servable cache entry of {@code key}, or {@code null} on a miss; unlike {@link #getIfPresent} it
     * tells a cached absence ({@code entry.value() == null}) from a miss. An entry stored without its load time
     * (see {@link CachedValue}) is returned in a {@code CachedValue} made for the call, with
     * {@link CachedValue#UNKNOWN_LOAD}; {@link #getOrDefault} allocates nothing.
     */
    CachedValue<V> lookup(K key);

    /**
     * The servable value of {@code key}, {@code null} for a cached absence, or {@code ifMissing} on a miss: tells a
     * cached absence from a miss, like {@link #lookup}, without allocating. Counts a hit or a miss as
     * {@link #getIfPresent} does.
     */
    V getOrDefault(K key, V ifMissing);

    /**
     * Consistency sampling of a hit served by {@link #getOrDefault} or {@link #lookup}, for a caller that builds its
     * loader only after the read (Spring's non-{@code sync} {@code @Cacheable}): draws this hit like a hit of
     * {@link #get} is drawn, and returns the drawn hit, to be handed to the sampler with {@link SampledHit#reread};
     * {@code null} when not drawn, when consistency sampling is off, or when the entry that served the hit was
     * replaced or removed since. Allocates nothing unless drawn; costs one random draw while sampling is on and a
     * field test while it is off.
     *
     * @param key the key the hit was looked up with
     * @param served the value the hit returned (the same instance)
     */
    SampledHit<K, V> drawSample(K key, V served);

    /**
     * Starts a load outside {@link #get}: call it on a miss, BEFORE reading the database, and pass the
     * stamp to {@link #putLoaded}. This is how {@code put} after a miss stays safe.
     */
    LoadStamp<K> beginLoad(K key);

    /**
     * Starts a load whose database read began after {@code sequence} was drawn from
     * {@link dev.cdccache.client.cache.InvalidationSequence#next()}, possibly long before this call and before the
     * key was known (e.g. an ORM session draws one value when it begins and then reads rows of many keys). The
     * stamp is the one {@link #beginLoad} would have returned at that point: {@link #putLoaded} with it stores
     * the value only if no invalidation of the key or of the cache was applied since {@code sequence} was drawn.
     * The load's start time (for the staleness bound) is the time {@code sequence} was drawn.
     */
    LoadStamp<K> beginLoadAsOf(K key, long sequence);

    /**
     * The {@link dev.cdccache.client.cache.InvalidationSequence} value current when this cache last applied an
     * invalidation (of a key, of every entry, or when the client became ready); 0 if none yet. A value read from
     * the database after drawing {@code s} can only be older than an applied change if this is {@code >= s}.
     */
    long lastInvalidationSequence();

    /**
     * Stores {@code value} (possibly {@code null} = absent) read after {@code stamp} was taken, unless an
     * invalidation of the key was applied since.
     *
     * @return whether the value was cached
     */
    boolean putLoaded(LoadStamp<K> stamp, V value);

    /**
     * Stores a value without a preceding {@link #beginLoad}; it is treated as read from the database now.
     * Only for values known to be current (e.g. just written by this process); prefer {@link #putLoaded}.
     *
     * @return whether the value was cached (not while the client is not ready)
     */
    boolean put(K key, V value);

    /** Evicts {@code key}; loads of it that are in flight will not be cached. */
    void invalidate(K key);

    /** Evicts every entry; loads in flight will not be cached. */
    void invalidateAll();

    /** Caffeine's estimate of the number of entries. */
    long estimatedSize();

    /**
     * The underlying Caffeine cache, for statistics, inspection and iteration. Its statistics count one hit or
     * miss per key read through this cache, an entry that may not be served (staleness) as a miss. Its values are
     * the cached values, or {@link CachedValue}s for entries that keep their load time (see there);
     * {@link CachedValue#valueOf} reads either. Writing to it directly bypasses the no-stale-populate protection.
     */
    Cache<K, Object> caffeine();
}
