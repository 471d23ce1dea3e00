package dev.cdccache.client.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.cache.ConsistencySampler.Outcome;
import dev.cdccache.client.staleness.StalenessGuard;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Ways the consistency sampler can stop reporting, or count a stale entry consistent. */
class ConsistencySamplerRobustnessTest {

    private static final Duration BOUND = Duration.ofMillis(200);

    /** The "database": what the loader reads. */
    private final Map<Long, Object> database = new ConcurrentHashMap<>();
    private final Function<Long, Object> loader = database::get;
    private final List<Outcome> outcomes = new CopyOnWriteArrayList<>();
    /** The sampler's clock, moved by hand so that its per-second cap is deterministic. */
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private ConsistencySampler sampler;

    @AfterEach
    void close() {
        if (sampler != null) {
            sampler.close();
        }
    }

    /** Every hit drawn, at most one sample a second (so at most two pending). */
    private CaffeineInvalidatingCache<Long, Object> sampledCache() {
        sampler = new ConsistencySampler(new ConsistencySampler.Settings(1, 1, BOUND, Duration.ofMinutes(10),
                Objects::deepEquals), clock::get, (cache, outcome) -> outcomes.add(outcome));
        StalenessGuard guard = new StalenessGuard(System::currentTimeMillis, Duration.ofSeconds(5),
                StalenessPolicy.SERVE_STALE, true);
        CaffeineInvalidatingCache<Long, Object> cache = new CaffeineInvalidatingCache<>("coupons",
                Caffeine.newBuilder().maximumSize(10_000), guard, true, 0, ForkJoinPool.commonPool(),
                CaffeineInvalidatingCache.LoadListener.NONE, ReadGate.OPEN, sampler);
        cache.startAccepting();
        return cache;
    }

    /** A value whose equals fails, as an entity's does when it touches a lazy association outside its session. */
    private static final class LazyEntity {
        @Override
        public boolean equals(Object other) {
            throw new IllegalStateException("could not initialize proxy - no Session");
        }

        @Override
        public int hashCode() {
            return 1;
        }
    }

    private static void awaitQuiet() throws InterruptedException {
        TimeUnit.MILLISECONDS.sleep(300); // lets the sampler's thread run what was handed to it
    }

    /** A key stale beyond the bound: the cache holds "old", the database "new", and no invalidation will come. */
    private boolean staleKeyIsReported(CaffeineInvalidatingCache<Long, Object> cache) throws InterruptedException {
        database.put(99L, "new");
        cache.put(99L, "old");
        clock.addAndGet(1_000); // a new second: the per-second cap admits a sample
        cache.get(99L, loader);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (System.nanoTime() < deadline) {
            if (outcomes.contains(Outcome.STALE)) {
                return true;
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
        return false;
    }

    @Test
    void samplesWhoseComparisonThrowsDoNotStopTheSamplerFromReportingALaterStaleHit() throws Exception {
        CaffeineInvalidatingCache<Long, Object> cache = sampledCache();
        database.put(1L, new LazyEntity());
        cache.put(1L, new LazyEntity());
        for (int i = 0; i < 2; i++) { // as many as may be pending (max-per-second 1, bound < 1 s: 2)
            clock.addAndGet(1_000);
            cache.get(1L, loader); // sampled; its comparison throws on the sampler's thread
            awaitQuiet();
        }

        assertThat(staleKeyIsReported(cache))
                .as("a stale hit sampled after two samples whose comparison threw; outcomes " + outcomes
                        + ", counts consistent/stale/inconclusive " + sampler.counts("coupons").consistent() + "/"
                        + sampler.counts("coupons").stale() + "/" + sampler.counts("coupons").inconclusive())
                .isTrue();
    }

    @Test
    void reReadsThatThrowAnErrorDoNotStopTheSamplerFromReportingALaterStaleHit() throws Exception {
        CaffeineInvalidatingCache<Long, Object> cache = sampledCache();
        cache.put(1L, "cached");
        Function<Long, Object> failing = key -> {
            throw new NoClassDefFoundError("com/example/Mapper"); // an Error, not a RuntimeException
        };
        for (int i = 0; i < 2; i++) {
            clock.addAndGet(1_000);
            cache.get(1L, failing);
            awaitQuiet();
        }

        assertThat(staleKeyIsReported(cache)).as("outcomes " + outcomes).isTrue();
    }

    @Test
    void aStaleEntryEvictedBySizeIsNotCountedConsistentBecauseAnotherKeyOfItsStripeWasInvalidated()
            throws Exception {
        CaffeineInvalidatingCache<Long, Object> cache = sampledCache();
        long other = 2;
        while (InvalidationGenerations.stripe(other) != InvalidationGenerations.stripe(1L)) {
            other++;
        }
        database.put(1L, "new");
        cache.put(1L, "old"); // stale; its invalidation never comes
        clock.addAndGet(1_000);
        cache.get(1L, loader); // sampled: the re-read differs, the recheck follows one bound later

        cache.caffeine().asMap().remove(1L); // a size eviction: no invalidation of key 1
        cache.invalidate(other); // an unrelated key that happens to share key 1's stripe

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (outcomes.isEmpty() && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(20);
        }
        assertThat(outcomes).as("key " + other + " shares the stripe of key 1").containsExactly(Outcome.INCONCLUSIVE);
    }
}
