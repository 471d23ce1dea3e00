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
    private final Map<String, CdcSpringCache.Shared> caches;

    public CdcCacheManager(InvalidationClient client) {
        this.client = client;
        Map<String, CdcSpringCache.Shared> adapted = new LinkedHashMap<>();
        for (dev.cdccache.client.CacheDefinition definition : client.config().caches()) {
            String name = definition.name();
            adapted.put(name, new CdcSpringCache.Shared(client.cache(name), EvictedKeyTypes.of(definition),
                    client.meterRegistry(), client.instanceId()));
        }
        this.caches = Map.copyOf(adapted);
    }

    /**
     * A new view of the cache named {@code name} on every call, or {@code null} if none: Spring's caching
     * interceptor asks at the start of every invocation, so the load stamps of one invocation never reach another
     * (see {@link CdcSpringCache}). Views are cheap; all views of one name share the same entries.
     */
    @Override
    public Cache getCache(String name) {
        CdcSpringCache.Shared shared = caches.get(name);
        return shared == null ? null : new CdcSpringCache(shared);
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
