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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A sampled entry that differs from the database and, by the recheck, was replaced by a later load WITHOUT any
 * invalidation of its key: no invalidation explains the difference, so the sample is not {@code consistent}. With
 * refresh-ahead ({@code refresh-after}) the sampled hit of an old entry reloads it itself, and an entry past its
 * expiry is reloaded by the next miss; counted consistent, every such sample of a cache whose invalidations never
 * come (a table the connector does not capture, a key mapping that misses the key) hid the stale value it had served
 * and raised the consistency nines.
 */
class ConsistencySamplerReplacedEntryTest {

    private static final Duration BOUND = Duration.ofMillis(200);

    private final Map<Long, String> database = new ConcurrentHashMap<>();
    private final Function<Long, String> loader = database::get;
    private final List<Outcome> outcomes = new CopyOnWriteArrayList<>();
    private final CountDownLatch decided = new CountDownLatch(1);
    private final ConsistencySampler sampler = new ConsistencySampler(new ConsistencySampler.Settings(1, 100, BOUND,
            Duration.ofMinutes(10), Objects::deepEquals), System::currentTimeMillis, (cache, outcome) -> {
                outcomes.add(outcome);
                decided.countDown();
            });

    @AfterEach
    void close() {
        sampler.close();
    }

    /** Refreshes entries older than 1 ms ahead of time, on the reading thread. */
    private CaffeineInvalidatingCache<Long, String> refreshingCache() {
        StalenessGuard guard = new StalenessGuard(System::currentTimeMillis, Duration.ofSeconds(5),
                StalenessPolicy.SERVE_STALE, true);
        CaffeineInvalidatingCache<Long, String> cache = new CaffeineInvalidatingCache<>("coupons",
                Caffeine.newBuilder().maximumSize(10_000), guard, true, 1, Runnable::run,
                CaffeineInvalidatingCache.LoadListener.NONE, ReadGate.OPEN, sampler);
        cache.startAccepting();
        return cache;
    }

    @Test
    void aStaleEntryReloadedByRefreshAheadWithoutAnInvalidationIsNotConsistent() throws Exception {
        CaffeineInvalidatingCache<Long, String> cache = refreshingCache();
        database.put(1L, "new");
        cache.put(1L, "old"); // stale, and no invalidation will ever come
        Thread.sleep(5); // older than refresh-after

        assertThat(cache.get(1L, loader)).as("the stale value served").isEqualTo("old");
        assertThat(cache.getIfPresent(1L)).as("replaced by the hit's own refresh").isEqualTo("new");

        assertThat(decided.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(outcomes).doesNotContain(Outcome.CONSISTENT).hasSize(1);
    }
}
