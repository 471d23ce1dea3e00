package dev.cdccache.client.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ConsistencySamplerTest {

    private static final Duration BOUND = Duration.ofMillis(200);

    /** The "database": what the loader reads. */
    private final Map<Long, String> database = new ConcurrentHashMap<>();
    private final Function<Long, String> loader = database::get;
    private final List<Outcome> outcomes = new CopyOnWriteArrayList<>();
    private volatile CountDownLatch decided = new CountDownLatch(1);
    private ConsistencySampler sampler;

    @AfterEach
    void close() {
        if (sampler != null) {
            sampler.close();
        }
    }

    private CaffeineInvalidatingCache<Long, String> sampledCache(int oneIn, int maxPerSecond) {
        sampler = new ConsistencySampler(new ConsistencySampler.Settings(oneIn, maxPerSecond, BOUND,
                Duration.ofMinutes(10), Objects::deepEquals), System::currentTimeMillis, (cache, outcome) -> {
                    outcomes.add(outcome);
                    decided.countDown();
                });
        return cache(sampler);
    }

    /** A cache that serves its entries whatever their age, sampled by {@code sampler} ({@code null}: not sampled). */
    private static CaffeineInvalidatingCache<Long, String> cache(ConsistencySampler sampler) {
        StalenessGuard guard = new StalenessGuard(System::currentTimeMillis, Duration.ofSeconds(5),
                StalenessPolicy.SERVE_STALE, true);
        CaffeineInvalidatingCache<Long, String> cache = new CaffeineInvalidatingCache<>("coupons",
                Caffeine.newBuilder().maximumSize(10_000), guard, true, 0, ForkJoinPool.commonPool(),
                CaffeineInvalidatingCache.LoadListener.NONE, ReadGate.OPEN, sampler);
        cache.startAccepting();
        return cache;
    }

    /** A cache holding "old" for key 1 while the database says "new", and no invalidation will come. */
    private CaffeineInvalidatingCache<Long, String> deliberatelyStale(int oneIn) {
        CaffeineInvalidatingCache<Long, String> cache = sampledCache(oneIn, 100);
        database.put(1L, "new");
        cache.put(1L, "old");
        return cache;
    }

    /** A {@link #deliberatelyStale} cache with every hit sampled, after one hit served "old" and was judged stale. */
    private CaffeineInvalidatingCache<Long, String> staleHitSampled() throws InterruptedException {
        CaffeineInvalidatingCache<Long, String> cache = deliberatelyStale(1);
        assertThat(cache.get(1L, loader)).isEqualTo("old");
        assertThat(decided.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(outcomes).containsExactly(Outcome.STALE);
        return cache;
    }

    @Test
    void aStaleValueWithoutInvalidationIsReportedStaleByTheFirstSampleWhenEveryHitIsSampled() throws Exception {
        CaffeineInvalidatingCache<Long, String> cache = staleHitSampled();
        assertThat(sampler.counts("coupons").stale()).isEqualTo(1);
        assertThat(sampler.counts("coupons").staleInWindow()).isEqualTo(1);
        assertThat(sampler.counts("coupons").nines()).isEqualTo(0.0);
    }

    @Test
    void aStaleEntryFoundBySamplingIsEvictedSoTheNextReadLoadsWhatTheDatabaseHolds() throws Exception {
        CaffeineInvalidatingCache<Long, String> cache = staleHitSampled();

        assertThat(cache.get(1L, k -> "loaded again")).as("no event will ever evict it").isEqualTo("loaded again");
    }

    @Test
    void theSameInstanceStoredAgainAfterAnEvictAllCountsAsTakenOutNotStale() throws Exception {
        CaffeineInvalidatingCache<Long, String> cache = sampledCache(1, 100);
        String on = "ON"; // one shared instance, as a loader of enums or Booleans returns
        database.put(1L, on);
        cache.get(1L, loader); // miss: "ON" stored as is
        database.put(1L, "OFF"); // a change committed, its event on its way
        assertThat(cache.get(1L, loader)).isEqualTo("ON"); // a hit, sampled: the first re-read finds "OFF"
        Thread.sleep(BOUND.toMillis() / 2);
        cache.invalidateAll(); // the change arrives as an evict-all
        database.put(1L, on); // changed back, and that change applied too
        cache.invalidateAll();
        assertThat(cache.get(1L, loader)).isSameAs(on); // the same instance stored again
        database.put(1L, "OFF"); // a third change, within its bound at the recheck

        assertThat(decided.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(outcomes).as("an invalidation took the sampled entry out; the instance came back by a reload")
                .containsExactly(Outcome.CONSISTENT);
        assertThat(cache.caffeine().asMap().get(1L)).as("not evicted as stale").isSameAs(on);
    }

    @Test
    void theSamplersOwnEvictionOfAStaleEntryDoesNotMakeAnotherSampleOfItConsistent() throws Exception {
        CaffeineInvalidatingCache<Long, String> cache = deliberatelyStale(1);
        decided = new CountDownLatch(2);

        assertThat(cache.get(1L, loader)).isEqualTo("old");
        assertThat(cache.get(1L, loader)).isEqualTo("old"); // a second sample of the same stale entry

        assertThat(decided.await(5, TimeUnit.SECONDS)).isTrue();
        // The first recheck evicts the entry; no change event ever came, so nothing explains the second sample's
        // difference: the eviction the sampler did itself is no invalidation that arrived.
        assertThat(outcomes).containsExactly(Outcome.STALE, Outcome.STALE);
        assertThat(sampler.counts("coupons").nines()).isEqualTo(0.0);
    }

    @Test
    void aStaleValueIsReportedWithinTwentyThousandHitsAtOneInAThousand() throws Exception {
        // Each hit is drawn with probability 1/1000: no sample in 20,000 hits has a probability of about 2e-9.
        CaffeineInvalidatingCache<Long, String> cache = deliberatelyStale(1_000);

        for (int i = 0; i < 20_000; i++) {
            cache.get(1L, loader);
        }

        assertThat(decided.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(outcomes).first().isEqualTo(Outcome.STALE);
    }

    @Test
    void aDifferenceExplainedByAnInvalidationWithinTheBoundIsConsistent() throws Exception {
        CaffeineInvalidatingCache<Long, String> cache = sampledCache(1, 100);
        database.put(1L, "v1");
        assertThat(cache.get(1L, loader)).isEqualTo("v1"); // miss: loaded, not sampled
        database.put(1L, "v2"); // committed; its change event is still on its way

        assertThat(cache.get(1L, loader)).isEqualTo("v1"); // hit, sampled: the re-read sees "v2"
        cache.invalidate(1L); // the change event arrives, within the bound

        assertThat(decided.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(outcomes).containsExactly(Outcome.CONSISTENT);
    }

    @Test
    void anEntryEvictedWithoutInvalidationBeforeTheRecheckIsInconclusive() throws Exception {
        CaffeineInvalidatingCache<Long, String> cache = deliberatelyStale(1);

        cache.get(1L, loader);
        cache.caffeine().asMap().remove(1L); // as a size eviction would: no invalidation generation moves

        assertThat(decided.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(outcomes).containsExactly(Outcome.INCONCLUSIVE);
    }

    @Test
    void aFailingReReadIsInconclusive() throws Exception {
        CaffeineInvalidatingCache<Long, String> cache = sampledCache(1, 100);
        cache.put(1L, "cached");
        AtomicBoolean down = new AtomicBoolean(true);

        cache.get(1L, key -> {
            if (down.get()) {
                throw new IllegalStateException("database unreachable");
            }
            return "cached";
        });

        assertThat(decided.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(outcomes).containsExactly(Outcome.INCONCLUSIVE);
    }

    @Test
    void aCorrectCacheUnderConcurrentWritesAndInvalidationsReportsNoStaleSample() throws Exception {
        CaffeineInvalidatingCache<Long, String> cache = sampledCache(1, 5_000);
        long keys = 50;
        for (long k = 0; k < keys; k++) {
            database.put(k, "v0");
        }
        AtomicBoolean running = new AtomicBoolean(true);
        // The writer commits a change and applies its invalidation a moment later, well within the bound, as the
        // change stream does for a correct cache.
        Thread writer = new Thread(() -> {
            int version = 0;
            while (running.get()) {
                long key = ThreadLocalRandom.current().nextLong(keys);
                database.put(key, "v" + ++version);
                sleep(2);
                cache.invalidate(key);
            }
        });
        Thread[] readers = new Thread[2];
        for (int r = 0; r < readers.length; r++) {
            readers[r] = new Thread(() -> {
                while (running.get()) {
                    cache.get(ThreadLocalRandom.current().nextLong(keys), loader);
                }
            });
        }
        writer.start();
        for (Thread reader : readers) {
            reader.start();
        }
        sleep(1_000);
        running.set(false);
        writer.join();
        for (Thread reader : readers) {
            reader.join();
        }
        // Every sample taken is decided within one bound (plus a re-read) of its hit.
        sleep(BOUND.toMillis() * 3);

        ConsistencySampler.Counts counts = sampler.counts("coupons");
        assertThat(counts.consistent()).isGreaterThan(100);
        assertThat(counts.stale()).isZero();
        assertThat(counts.nines()).isGreaterThan(2.0);
    }

    @Test
    void aHitOfLookupHandedOverWithItsLoaderLaterIsClassifiedLikeAHitOfGet() throws Exception {
        CaffeineInvalidatingCache<Long, String> cache = deliberatelyStale(1);
        String served = cache.getOrDefault(1L, null);

        SampledHit<Long, String> hit = cache.drawSample(1L, served);
        assertThat(hit).as("drawn at one-in 1").isNotNull();
        assertThat(outcomes).as("nothing before the hand-over").isEmpty();
        hit.reread(loader);

        assertThat(decided.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(outcomes).containsExactly(Outcome.STALE);
    }

    @Test
    void anInvalidationBetweenTheHitAndItsHandOverCountsAsOneThatTookTheEntryOut() throws Exception {
        CaffeineInvalidatingCache<Long, String> cache = sampledCache(1, 100);
        database.put(1L, "v1");
        cache.get(1L, loader); // miss: loaded, not sampled
        String served = cache.getOrDefault(1L, null);
        SampledHit<Long, String> hit = cache.drawSample(1L, served);
        database.put(1L, "v2");
        cache.invalidate(1L); // before the caller hands the hit over: the generations were taken at the hit

        hit.reread(loader);

        assertThat(decided.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(outcomes).containsExactly(Outcome.CONSISTENT);
    }

    @Test
    void withoutASamplerNoHitIsDrawn() {
        CaffeineInvalidatingCache<Long, String> cache = cache(null);
        cache.put(1L, "cached");

        assertThat(cache.drawSample(1L, cache.getIfPresent(1L))).isNull();
    }

    @Test
    void settingsNameTheValueToFix() {
        assertThatThrownBy(() -> new ConsistencySampler.Settings(0, 10, BOUND, Duration.ofHours(1),
                Objects::deepEquals)).hasMessageContaining("one-in must be at least 1");
        assertThatThrownBy(() -> new ConsistencySampler.Settings(10, 0, BOUND, Duration.ofHours(1),
                Objects::deepEquals)).hasMessageContaining("max-per-second must be at least 1");
        assertThatThrownBy(() -> new ConsistencySampler.Settings(10, 10, BOUND, BOUND, Objects::deepEquals))
                .hasMessageContaining("window must be longer than the bound");
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
