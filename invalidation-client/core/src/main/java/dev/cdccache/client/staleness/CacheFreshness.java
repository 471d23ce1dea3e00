package dev.cdccache.client.staleness;

import dev.cdccache.client.Internal;
import java.util.List;

/**
 * What one cache's freshness rests on: the tables (and their topics) it is bound to, and the guard that decides
 * whether its entries may be served. The consumer moves the guard's watermark to the minimum, over these tables,
 * of their proven coverage, so a missing topic, an unavailable partition or a table no connector covers makes
 * only the caches bound to it not fresh.
 *
 * @param cache the cache name
 * @param guard the cache's own guard (its hits check against it)
 * @param sources the tables feeding the cache
 * @param evictAll evicts every entry of the cache (when its entries cannot be proven)
 */
@Internal
public record CacheFreshness(String cache, StalenessGuard guard, List<Source> sources, Runnable evictAll) {

    public CacheFreshness {
        sources = List.copyOf(sources);
    }

    /**
     * One table feeding the cache.
     *
     * @param table {@code database.table}
     * @param topic the topic it is read from
     */
    public record Source(String table, String topic) {
    }
}
