package dev.cdccache.client.hibernate;

import dev.cdccache.client.InvalidatingCache;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;
import org.hibernate.cache.spi.support.StorageAccess;
import org.hibernate.engine.spi.SharedSessionContractImplementor;

/**
 * The update-timestamps region behind Hibernate's query cache: for a query space (a table) the latest
 * {@link CdcRegionFactory#nextTimestamp()} value at which it changed. Hibernate serves a cached query result only
 * if every space it touches changed before the result's session drew its caching timestamp.
 *
 * <p>Changes this process makes through Hibernate are recorded by Hibernate itself (as with any region
 * factory). Changes by anyone else come from the change stream: each captured table has a client cache bound to
 * it with evict-all, which never holds an entry, and whose
 * {@link InvalidatingCache#lastInvalidationSequence()} is the sequence value current when the table's latest
 * change (or lost events, or an unparseable one) was applied. A space the connector does not capture has no such
 * cache: it reads as changed "now and forever", so results over it are never served from the query cache.
 */
final class TableChangeTimestamps implements StorageAccess {

    private final ConcurrentMap<Object, Object> local = new ConcurrentHashMap<>();
    private volatile Function<String, InvalidatingCache<?, ?>> tables;

    /** @param tables the change-tracking cache of a query space, or {@code null} if the space is not captured */
    void bind(Function<String, InvalidatingCache<?, ?>> tables) {
        this.tables = tables;
    }

    @Override
    public Object getFromCache(Object space, SharedSessionContractImplementor session) {
        Function<String, InvalidatingCache<?, ?>> t = tables;
        InvalidatingCache<?, ?> changes = t == null ? null : t.apply(space.toString());
        long external = changes == null ? Long.MAX_VALUE : changes.lastInvalidationSequence();
        Object own = local.get(space);
        return own instanceof Long ownTimestamp ? Math.max(ownTimestamp, external) : external;
    }

    @Override
    public void putIntoCache(Object space, Object value, SharedSessionContractImplementor session) {
        local.put(space, value);
    }

    @Override
    public boolean contains(Object space) {
        return true;
    }

    @Override
    public void evictData() {
        local.clear();
    }

    @Override
    public void evictData(Object space) {
        local.remove(space);
    }

    @Override
    public void release() {
        local.clear();
    }
}
