package dev.cdccache.client.hibernate;

import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.cache.LoadStamp;
import java.util.function.UnaryOperator;
import org.hibernate.cache.spi.access.SoftLock;
import org.hibernate.cache.spi.support.DomainDataStorageAccess;
import org.hibernate.engine.spi.SharedSessionContractImplementor;

/**
 * The storage of one cached role (an entity hierarchy, a collection role, or an entity's natural ids): one
 * {@link InvalidatingCache} of the client, keyed by the row key its change events evict.
 *
 * <p><b>No stale populate.</b> Hibernate stores what a load read through {@code putFromLoad} (and, for
 * {@code READ_WRITE}, through {@code putIntoCache} of an item), and treats an absent entry as writable. So a
 * load that read a row before an external commit would be cached after that commit's eviction. Every
 * data-carrying put here is stamped as of the session's caching timestamp instead: a value of
 * {@link CdcRegionFactory#nextTimestamp()} drawn when the session opened or its transaction began, before any
 * read of the session; the put is dropped if an invalidation of the key was applied since that value was drawn.
 * That covers every load path (find, queries, collection initialisation, multi-load), since all of them read
 * inside the session. Soft locks ({@code READ_WRITE}) carry no data and are stored as they come.
 *
 * <p>Until the client exists (while the session factory is being built) nothing is stored.
 */
final class RoleStorage implements DomainDataStorageAccess {

    /** What {@code getOrDefault} returns on a miss; never a cached value. */
    private static final Object MISSING = new Object();

    private final String name;
    private final String regionName;
    private volatile UnaryOperator<Object> keys = key -> null;
    private volatile InvalidatingCache<Object, Object> cache;

    RoleStorage(String name, String regionName) {
        this.name = name;
        this.regionName = regionName;
    }

    /** The client cache name of this role. */
    String name() {
        return name;
    }

    String regionName() {
        return regionName;
    }

    /** Connects the storage to its client cache; {@code keys} turns Hibernate's keys into the cache's keys. */
    void bind(InvalidatingCache<Object, Object> cache, UnaryOperator<Object> keys) {
        this.keys = keys;
        this.cache = cache;
    }

    InvalidatingCache<Object, Object> cache() {
        return cache;
    }

    @Override
    public Object getFromCache(Object key, SharedSessionContractImplementor session) {
        InvalidatingCache<Object, Object> c = cache;
        Object k = c == null ? null : keys.apply(key);
        if (k == null) {
            return null;
        }
        return c.getIfPresent(k); // a cached absence is no entry to Hibernate either
    }

    @Override
    public void putFromLoad(Object key, Object value, SharedSessionContractImplementor session) {
        putIntoCache(key, value, session);
    }

    @Override
    public void putIntoCache(Object key, Object value, SharedSessionContractImplementor session) {
        InvalidatingCache<Object, Object> c = cache;
        Object k = c == null ? null : keys.apply(key);
        if (k == null || value == null) {
            return;
        }
        if (value instanceof SoftLock) {
            c.put(k, value);
            return;
        }
        if (session == null) {
            return; // no caching timestamp to stamp with: never guess
        }
        long drawn = session.getCacheTransactionSynchronization().getCachingTimestamp();
        LoadStamp<Object> stamp = c.beginLoadAsOf(k, drawn);
        c.putLoaded(stamp, value);
    }

    @Override
    public boolean contains(Object key) {
        InvalidatingCache<Object, Object> c = cache;
        Object k = c == null ? null : keys.apply(key);
        return k != null && c.getOrDefault(k, MISSING) != MISSING;
    }

    @Override
    public void evictData() {
        InvalidatingCache<Object, Object> c = cache;
        if (c != null) {
            c.invalidateAll();
        }
    }

    @Override
    public void evictData(Object key) {
        InvalidatingCache<Object, Object> c = cache;
        Object k = c == null ? null : keys.apply(key);
        if (k != null) {
            c.invalidate(k);
        } else if (c != null) {
            c.invalidateAll(); // a key we cannot map: the safe side
        }
    }

    @Override
    public void release() {
        // The client owns the cache; the region factory closes it.
    }

    @Override
    public String toString() {
        return "RoleStorage[" + name + " in region " + regionName + "]";
    }
}
