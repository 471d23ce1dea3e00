package dev.cdccache.coupon.caching;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Hit and miss counters of one cache of the {@code redis} mode, as {@code coupon.cache.gets{cache,result}}.
 * (The local caches report through the invalidation client's Caffeine metrics.) A bulk lookup counts
 * every id.
 */
final class CacheLookupMetrics {

    private final Counter hits;
    private final Counter misses;

    CacheLookupMetrics(MeterRegistry registry, String cache) {
        this.hits = counter(registry, cache, "hit");
        this.misses = counter(registry, cache, "miss");
    }

    private static Counter counter(MeterRegistry registry, String cache, String result) {
        return Counter.builder("coupon.cache.gets")
                .description("Lookups of the redis-mode cache by result")
                .tag("cache", cache)
                .tag("result", result)
                .register(registry);
    }

    void hits(int count) {
        if (count > 0) {
            hits.increment(count);
        }
    }

    void misses(int count) {
        if (count > 0) {
            misses.increment(count);
        }
    }
}
