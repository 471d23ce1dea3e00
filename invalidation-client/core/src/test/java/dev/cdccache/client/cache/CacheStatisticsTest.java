package dev.cdccache.client.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.staleness.StalenessGuard;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Hits and misses are counted by the cache's read paths on the counter behind Caffeine's {@code stats()} (the
 * map view the reads use records none), so hit-rate metrics stay right.
 */
class CacheStatisticsTest {

    private final AtomicLong clock = new AtomicLong(1_000_000);

    @Test
    void everyReadPathCountsOneHitOrOneMissPerKeyOnCaffeinesStatistics() {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready(0, ForkJoinPool.commonPool(), clock);
        cache.put(1L, "one");

        assertThat(cache.getIfPresent(1L)).isEqualTo("one");
        assertThat(cache.getIfPresent(2L)).isNull();
        assertThat(cache.lookup(1L)).isNotNull();
        assertThat(cache.lookup(3L)).isNull();
        assertThat(cache.get(1L, key -> "unused")).isEqualTo("one");
        assertThat(cache.get(4L, key -> "four")).isEqualTo("four");
        Map<Long, String> all = cache.getAll(List.of(1L, 4L, 5L), keys -> Map.of(5L, "five"));

        assertThat(all).containsExactly(Map.entry(1L, "one"), Map.entry(4L, "four"), Map.entry(5L, "five"));
        CacheStats stats = cache.caffeine().stats();
        assertThat(stats.hitCount()).isEqualTo(5); // getIfPresent, lookup, get, and two in getAll
        assertThat(stats.missCount()).isEqualTo(4); // getIfPresent, lookup, get, and one in getAll
    }

    @Test
    void aPresentEntryThatMayNotBeServedCountsAsAMiss() {
        StalenessGuard guard = new StalenessGuard(clock::get, Duration.ofSeconds(5), StalenessPolicy.BYPASS_CACHE,
                true);
        CaffeineInvalidatingCache<Long, String> cache = new CaffeineInvalidatingCache<>("test",
                Caffeine.newBuilder(), guard, true, 0, ForkJoinPool.commonPool(),
                CaffeineInvalidatingCache.LoadListener.NONE);
        cache.startAccepting();
        cache.put(1L, "one");
        assertThat(cache.getIfPresent(1L)).isEqualTo("one");

        clock.addAndGet(Duration.ofSeconds(6).toMillis()); // no watermark: the entry is now past max-staleness

        assertThat(cache.getIfPresent(1L)).isNull();
        assertThat(cache.estimatedSize()).isEqualTo(1);
        CacheStats stats = cache.caffeine().stats();
        assertThat(stats.hitCount()).isEqualTo(1);
        assertThat(stats.missCount()).isEqualTo(1);
    }
}
