package dev.cdccache.client.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * {@code beginLoadAsOf}: a stamp taken at a cache miss that stands for one taken earlier, when the reader drew
 * an {@link InvalidationSequence} value before its database read (as an ORM session does once for all the rows
 * it reads). Each interleaving is written out in order: draw, read, commit and invalidate, stamp, store.
 */
class LoadAsOfSequenceTest {

    private final Map<Long, String> database = new ConcurrentHashMap<>();

    @Test
    void aValueReadAfterTheSequenceWasDrawnIsNotCachedWhenItsKeyWasInvalidatedBeforeTheMiss() {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
        database.put(1L, "old");

        long drawn = InvalidationSequence.next(); // the session begins
        String read = database.get(1L);           // and reads the old row
        database.put(1L, "new");                  // a writer commits
        cache.invalidate(1L);                     // its invalidation is applied: nothing cached to evict yet
        LoadStamp<Long> stamp = cache.beginLoadAsOf(1L, drawn); // the miss, after the invalidation

        assertThat(cache.putLoaded(stamp, read)).isFalse();
        assertThat(cache.lookup(1L)).isNull();
    }

    @Test
    void anInvalidationBetweenTheMissAndTheStoreIsSeenToo() {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
        database.put(1L, "old");

        long drawn = InvalidationSequence.next();
        LoadStamp<Long> stamp = cache.beginLoadAsOf(1L, drawn);
        String read = database.get(1L);
        database.put(1L, "new");
        cache.invalidate(1L);

        assertThat(cache.putLoaded(stamp, read)).isFalse();
    }

    @Test
    void anEvictAllAfterTheSequenceWasDrawnDiscardsTheLoad() {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
        long drawn = InvalidationSequence.next();
        cache.invalidateAll();

        assertThat(cache.putLoaded(cache.beginLoadAsOf(1L, drawn), "old")).isFalse();
    }

    @Test
    void invalidationsAppliedBeforeTheSequenceWasDrawnDoNotDiscardTheLoad() {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
        cache.invalidate(1L);
        cache.invalidateAll();
        long drawn = InvalidationSequence.next(); // after both: a read now sees their changes

        assertThat(cache.putLoaded(cache.beginLoadAsOf(1L, drawn), "current")).isTrue();
        assertThat(cache.getIfPresent(1L)).isEqualTo("current");
    }

    @Test
    void anInvalidationOfAnotherKeyDoesNotDiscardTheLoad() {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
        long other = 2L;
        while (InvalidationGenerations.stripe(other) == InvalidationGenerations.stripe(1L)) {
            other++;
        }
        long drawn = InvalidationSequence.next();
        cache.invalidate(other);

        assertThat(cache.putLoaded(cache.beginLoadAsOf(1L, drawn), "v")).isTrue();
    }

    @Test
    void aSequenceDrawnBeforeTheCacheBecameReadyIsNeverCached() {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.notReady();
        long drawn = InvalidationSequence.next();
        cache.startAccepting();

        assertThat(cache.putLoaded(cache.beginLoadAsOf(1L, drawn), "v")).isFalse();
        assertThat(cache.putLoaded(cache.beginLoadAsOf(1L, InvalidationSequence.next()), "v")).isTrue();
    }

    @Test
    void theLoadStartsWhenTheSequenceWasDrawn() {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.notReady(); // on the system clock
        cache.startAccepting();
        long drawn = InvalidationSequence.next();
        LoadStamp<Long> stamp = cache.beginLoadAsOf(1L, drawn);

        assertThat(stamp.startedAtMillis()).isEqualTo(InvalidationSequence.epochMillis(drawn))
                .isLessThanOrEqualTo(System.currentTimeMillis());
    }

    @Test
    void theLastInvalidationSequenceMovesWithEveryInvalidation() {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
        long before = cache.lastInvalidationSequence();
        long drawn = InvalidationSequence.next();
        assertThat(before).isLessThan(drawn);

        cache.invalidate(7L);
        assertThat(cache.lastInvalidationSequence()).isGreaterThanOrEqualTo(drawn);
        long again = InvalidationSequence.next();
        cache.invalidateAll();
        assertThat(cache.lastInvalidationSequence()).isGreaterThanOrEqualTo(again);
    }

    @Test
    void sequenceValuesStrictlyIncreaseAndNeverRunAheadOfTheClock() {
        long previous = InvalidationSequence.next();
        for (int i = 0; i < 20_000; i++) { // more than one millisecond's worth of values
            long value = InvalidationSequence.next();
            assertThat(value).isGreaterThan(previous);
            assertThat(InvalidationSequence.epochMillis(value)).isLessThanOrEqualTo(System.currentTimeMillis());
            previous = value;
        }
        assertThat(InvalidationSequence.current()).isGreaterThanOrEqualTo(previous);
    }
}
