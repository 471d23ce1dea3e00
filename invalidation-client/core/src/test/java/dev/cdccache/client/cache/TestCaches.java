package dev.cdccache.client.cache;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.staleness.StalenessGuard;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicLong;

/** Builds caches for tests without Kafka: a ready cache whose staleness guard serves everything. */
final class TestCaches {

    private TestCaches() {
    }

    static CaffeineInvalidatingCache<Long, String> ready() {
        return ready(0, ForkJoinPool.commonPool(), new AtomicLong(System.currentTimeMillis()));
    }

    /** A cache of a client that is not ready yet: nothing is cached until {@code startAccepting()}. */
    static CaffeineInvalidatingCache<Long, String> notReady() {
        StalenessGuard guard = new StalenessGuard(System::currentTimeMillis, Duration.ofSeconds(5),
                StalenessPolicy.SERVE_STALE, true);
        return new CaffeineInvalidatingCache<>("test", Caffeine.newBuilder().maximumSize(100_000), guard, true, 0,
                ForkJoinPool.commonPool(), CaffeineInvalidatingCache.LoadListener.NONE);
    }

    static CaffeineInvalidatingCache<Long, String> ready(long refreshAfterMillis, Executor refreshExecutor,
            AtomicLong clock) {
        StalenessGuard guard = new StalenessGuard(clock::get, Duration.ofSeconds(5), StalenessPolicy.SERVE_STALE, true);
        CaffeineInvalidatingCache<Long, String> cache = new CaffeineInvalidatingCache<>("test",
                Caffeine.newBuilder().maximumSize(100_000), guard, true, refreshAfterMillis, refreshExecutor,
                CaffeineInvalidatingCache.LoadListener.NONE);
        cache.startAccepting();
        return cache;
    }
}
