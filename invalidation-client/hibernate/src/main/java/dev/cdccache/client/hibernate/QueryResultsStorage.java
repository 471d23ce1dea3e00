package dev.cdccache.client.hibernate;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.cache.InvalidationSequence;
import org.hibernate.cache.spi.support.StorageAccess;
import org.hibernate.engine.spi.SharedSessionContractImplementor;

/**
 * The query-results region: a bounded Caffeine cache. Whether a result is still current is Hibernate's own
 * check against the timestamps region ({@link TableChangeTimestamps}), which the change stream keeps up to date
 * per table; this storage adds the client's staleness bound (a result is served only while the client can show
 * it is within {@code max-staleness} of the result's read) and stores nothing before the client is ready.
 */
final class QueryResultsStorage implements StorageAccess {

    private record Stored(Object value, long loadedAtMillis) {
    }

    private final Cache<Object, Stored> results;
    private volatile InvalidationClient client;

    QueryResultsStorage(String spec) {
        this.results = Caffeine.from(spec).recordStats().build();
    }

    void bind(InvalidationClient client, String name) {
        client.bindCacheMetrics(name, results);
        this.client = client;
    }

    @Override
    public Object getFromCache(Object key, SharedSessionContractImplementor session) {
        InvalidationClient c = client;
        if (c == null) {
            return null;
        }
        Stored stored = results.getIfPresent(key);
        return stored != null && c.isServable(stored.loadedAtMillis()) ? stored.value() : null;
    }

    @Override
    public void putIntoCache(Object key, Object value, SharedSessionContractImplementor session) {
        InvalidationClient c = client;
        if (c == null || !c.isReady() || session == null || value == null) {
            return;
        }
        long drawn = session.getCacheTransactionSynchronization().getCachingTimestamp();
        results.put(key, new Stored(value, InvalidationSequence.epochMillis(drawn)));
    }

    @Override
    public boolean contains(Object key) {
        return getFromCache(key, null) != null;
    }

    @Override
    public void evictData() {
        results.invalidateAll();
    }

    @Override
    public void evictData(Object key) {
        results.invalidate(key);
    }

    @Override
    public void release() {
        results.invalidateAll();
    }
}
