package dev.cdccache.client.eviction;

import dev.cdccache.client.Internal;
import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.keymapping.KeyMapper;

/**
 * One cache bound to one table: how a change of that table evicts entries of that cache.
 *
 * @param cache the cache
 * @param table {@code database.table}
 * @param keyMapper derives keys from rows, or {@code null} if every change evicts the whole cache
 */
@Internal
public record CacheBinding(InvalidatingCache<Object, ?> cache, String table, KeyMapper keyMapper) {

    public boolean evictAll() {
        return keyMapper == null;
    }
}
