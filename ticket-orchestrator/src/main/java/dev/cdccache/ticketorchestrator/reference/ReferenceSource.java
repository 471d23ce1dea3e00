package dev.cdccache.ticketorchestrator.reference;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongFunction;

import dev.cdccache.client.InvalidatingCache;

/**
 * Where composition reads one kind of reference data from: a CDC-invalidated local cache in front of its
 * table, or, when caching is switched off ({@code ticket.composition.reference-cache=false}, the
 * measurements without caching), the table itself.
 *
 * <p>Thread-safe. Absent rows are never cached, so a row inserted later is found on the next read.
 *
 * @param <V> the row type, keyed by its {@code long} id
 */
public final class ReferenceSource<V> {

    private final ReferenceType type;
    private final InvalidatingCache<Long, V> cache;
    private final LongFunction<Optional<V>> loader;
    private final Function<Collection<Long>, Map<Long, V>> bulkLoader;

    /**
     * @param type       what kind of data this is
     * @param cache      the cache in front of the table, or {@code null} to read the table every time
     * @param loader     reads one row by id
     * @param bulkLoader reads the rows that exist among many ids, in one query
     */
    public ReferenceSource(ReferenceType type, InvalidatingCache<Long, V> cache, LongFunction<Optional<V>> loader,
                           Function<Collection<Long>, Map<Long, V>> bulkLoader) {
        this.type = type;
        this.cache = cache;
        this.loader = loader;
        this.bulkLoader = bulkLoader;
    }

    /** @return what kind of data this source serves */
    public ReferenceType type() {
        return type;
    }

    /** @return whether reads go through the local cache */
    public boolean cached() {
        return cache != null;
    }

    /**
     * One row by id: from the cache, or from one query on a miss.
     *
     * @return the row, or empty when it does not exist
     */
    public Optional<V> get(long id) {
        if (cache == null) {
            return loader.apply(id);
        }
        return Optional.ofNullable(cache.get(id, key -> loader.apply(key).orElse(null)));
    }

    /**
     * Many rows by id: the cached ones from the cache, the missing ones with a single {@code IN} query, no
     * query at all when every id is cached.
     *
     * @return the rows that exist, by id (absent ids are omitted)
     */
    public Map<Long, V> getAll(Collection<Long> ids) {
        if (ids.isEmpty()) {
            return Map.of();
        }
        if (cache == null) {
            return bulkLoader.apply(ids);
        }
        return cache.getAll(ids, missing -> bulkLoader.apply(List.<Long>copyOf(missing)));
    }
}
