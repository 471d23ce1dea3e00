package dev.cdccache.client.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdccache.client.StalenessCheck;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.staleness.StalenessGuard;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * What {@link CaffeineInvalidatingCache#getAll} returns: the requested keys in order, each once, hits and loaded
 * values together, absent keys left out; the same map a {@code LinkedHashMap} filled key by key would be.
 */
class BulkLookupTest {

    private final Map<Long, String> database = new HashMap<>();
    private final List<Set<? extends Long>> loaderCalls = new ArrayList<>();
    private final Function<Set<? extends Long>, Map<Long, String>> loader = missing -> {
        loaderCalls.add(new LinkedHashSet<>(missing));
        Map<Long, String> rows = new HashMap<>();
        missing.forEach(id -> {
            if (database.containsKey(id)) {
                rows.put(id, database.get(id));
            }
        });
        return rows;
    };

    @Test
    void hitsAndLoadedValuesComeInTheRequestedOrderAndAbsentKeysAreLeftOut() {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
        database.put(1L, "a");
        database.put(2L, "b");
        database.put(3L, "c");
        cache.get(2L, database::get);

        Map<Long, String> result = cache.getAll(List.of(3L, 9L, 2L, 1L), loader);

        assertThat(result).containsExactly(Map.entry(3L, "c"), Map.entry(2L, "b"), Map.entry(1L, "a"));
        assertThat(loaderCalls).containsExactly(Set.of(3L, 9L, 1L));
        assertThat(result.get(9L)).isNull();
        assertThat(result.containsKey(9L)).isFalse();
        assertThat(result.get(2L)).isEqualTo("b");
        assertThat(result.keySet()).containsExactly(3L, 2L, 1L);
        assertThat(result.keySet().contains(2L)).isTrue();
        assertThat(result.keySet().contains(9L)).isFalse();
        assertThat(result.entrySet().contains(Map.entry(2L, "b"))).isTrue();
        assertThat(result.entrySet().contains(Map.entry(2L, "x"))).isFalse();
        assertThat(result.values()).containsExactly("c", "b", "a");
        assertThat(result).isEqualTo(Map.of(1L, "a", 2L, "b", 3L, "c"));
        assertThat(result.hashCode()).isEqualTo(Map.of(1L, "a", 2L, "b", 3L, "c").hashCode());
    }

    @Test
    void aRepeatedKeyIsLoadedOnceAndReturnedOnceAtItsFirstPosition() {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
        database.put(1L, "a");
        database.put(2L, "b");
        cache.get(2L, database::get);

        Map<Long, String> result = cache.getAll(List.of(1L, 2L, 1L, 2L, 1L), loader);

        assertThat(result).containsExactly(Map.entry(1L, "a"), Map.entry(2L, "b"));
        assertThat(result).hasSize(2);
        assertThat(loaderCalls).containsExactly(Set.of(1L));
        // The second lookup is all hits: the loader is not called again.
        assertThat(cache.getAll(List.of(2L, 1L, 2L), loader)).containsExactly(Map.entry(2L, "b"), Map.entry(1L, "a"));
        assertThat(loaderCalls).hasSize(1);
    }

    @Test
    void anEmptyRequestReturnsAnEmptyMapWithoutCallingTheLoader() {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
        assertThat(cache.getAll(List.of(), loader)).isEmpty();
        assertThat(loaderCalls).isEmpty();
    }

    @Test
    void theResultIsUnmodifiable() {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
        database.put(1L, "a");
        Map<Long, String> result = cache.getAll(List.of(1L), loader);
        assertThatThrownBy(() -> result.put(2L, "b")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> result.remove(1L)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(result::clear).isInstanceOf(UnsupportedOperationException.class);
        assertThat(result).containsExactly(Map.entry(1L, "a"));
    }

    @Test
    void keysWhoseHashCodesCollideAreEachFound() {
        // Keys with equal hash codes, and many keys, as the index of the result map must tell them apart.
        List<Colliding> keys = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            keys.add(new Colliding(i, i % 7));
        }
        Object[] requested = new Object[keys.size() + 2];
        Object[] values = new Object[requested.length];
        Map<Colliding, String> expected = new LinkedHashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            requested[i] = keys.get(i);
            values[i] = i % 5 == 0 ? null : "v" + i;
            if (values[i] != null) {
                expected.put(keys.get(i), (String) values[i]);
            }
        }
        requested[keys.size()] = keys.get(1); // a repeat: its first position, its last value (as put would)
        values[keys.size()] = "again";
        expected.put(keys.get(1), "again");
        requested[keys.size() + 1] = keys.get(0); // a repeat of a key without a value: it appears at the end
        values[keys.size() + 1] = "late";
        expected.put(keys.get(0), "late");

        Map<Colliding, String> result = new BulkLookupResult<Colliding, String>(requested, values).seal();

        assertThat(result).containsExactlyEntriesOf(expected);
        for (Colliding key : keys) {
            assertThat(result.get(new Colliding(key.id, key.hash))).isEqualTo(expected.get(key));
        }
        assertThat(result.get(new Colliding(10_000, 3))).isNull();
    }

    @Test
    void aBulkLookupThatFindsTheStalenessThresholdOutOfDateRecomputesItBeforeItServes() {
        // staleness-check: scheduled with the ticker stalled: the clock read a bulk lookup takes anyway catches it.
        AtomicLong clock = new AtomicLong(1_000_000);
        Duration maxStaleness = Duration.ofSeconds(5);
        Duration slack = Duration.ofMillis(500);
        StalenessGuard guard = new StalenessGuard(clock::get, maxStaleness, StalenessPolicy.BYPASS_CACHE, true,
                StalenessCheck.SCHEDULED, slack);
        CaffeineInvalidatingCache<Long, String> cache = new CaffeineInvalidatingCache<>("test",
                Caffeine.newBuilder().maximumSize(100), guard, true, 0, ForkJoinPool.commonPool(),
                CaffeineInvalidatingCache.LoadListener.NONE);
        cache.startAccepting();
        guard.markReady();
        guard.tick();
        database.put(1L, "a");
        cache.get(1L, database::get); // loaded now: served for max-staleness minus the slack
        clock.addAndGet(maxStaleness.toMillis() - slack.toMillis());
        assertThat(cache.getIfPresent(1L)).as("still within the precomputed threshold").isEqualTo("a");

        clock.addAndGet(slack.toMillis() + 1); // no tick since: the entry is now older than max-staleness
        assertThat(cache.getIfPresent(1L)).as("the outdated threshold serves it (nobody has read the clock)")
                .isEqualTo("a");
        database.put(2L, "b");
        cache.getAll(List.of(2L), loader);

        assertThat(cache.getIfPresent(1L)).as("served past the bound").isNull();
        assertThat(guard.overruns()).isEqualTo(1);
    }

    /** A key with a chosen hash code. */
    private record Colliding(int id, int hash) {
        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Colliding c && c.id == id;
        }
    }
}
