package dev.cdccache.client.spring;

import dev.cdccache.client.InvalidatingCache;
import dev.cdccache.client.InvalidationClient;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;

/**
 * Exposes every cache of an {@link InvalidationClient} as a Spring {@link Cache} (for {@code @Cacheable}),
 * and as the core {@link InvalidatingCache} for bulk lookups ({@link #invalidatingCache(String)}).
 * Only configured caches exist: {@link #getCache(String)} returns {@code null} for other names (so a
 * {@link org.springframework.cache.support.CompositeCacheManager} falls through to the application's
 * other cache managers). Thread-safe.
 */
public class CdcCacheManager implements CacheManager {

    private final InvalidationClient client;
    private final Map<String, Cache> caches;

    public CdcCacheManager(InvalidationClient client) {
        this.client = client;
        Map<String, Cache> adapted = new LinkedHashMap<>();
        for (dev.cdccache.client.CacheDefinition definition : client.config().caches()) {
            String name = definition.name();
            adapted.put(name, new CdcSpringCache(client.cache(name), EvictedKeyTypes.of(definition),
                    client.metrics().registry(), client.instanceId()));
        }
        this.caches = Map.copyOf(adapted);
    }

    @Override
    public Cache getCache(String name) {
        return caches.get(name);
    }

    @Override
    public Collection<String> getCacheNames() {
        return client.cacheNames();
    }

    /**
     * The core cache named {@code name}, for {@link InvalidatingCache#getAll bulk lookups} and loads with
     * single-flight.
     *
     * @throws IllegalArgumentException if no such cache is configured
     */
    public <K, V> InvalidatingCache<K, V> invalidatingCache(String name) {
        return client.cache(name);
    }

    /** The client behind this manager. */
    public InvalidationClient client() {
        return client;
    }
}
