package dev.cdccache.client.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.cdccache.client.StalenessCheck;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.staleness.StalenessGuard;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Which entries keep their load time, and that an entry stored without it is served only while the client is
 * proven fresh: with either way of checking staleness, whatever the read path.
 */
class StoredLoadTimeTest {

    private static final long MAX_STALENESS = 5_000;

    private final AtomicLong clock = new AtomicLong(1_000_000);

    private StalenessGuard guard(StalenessCheck check) {
        StalenessGuard guard = new StalenessGuard(clock::get, Duration.ofMillis(MAX_STALENESS),
                StalenessPolicy.BYPASS_CACHE, true, check, Duration.ofMillis(500));
        guard.markReady();
        return guard;
    }

    private static CaffeineInvalidatingCache<Long, String> cache(StalenessGuard guard, long refreshAfterMillis) {
        CaffeineInvalidatingCache<Long, String> cache = new CaffeineInvalidatingCache<>("test",
                Caffeine.newBuilder().maximumSize(1_000), guard, true, refreshAfterMillis, Runnable::run,
                CaffeineInvalidatingCache.LoadListener.NONE);
        cache.startAccepting();
        return cache;
    }

    /** The consumer confirmed its position now, with the latest heartbeat written {@code age} ms ago. */
    private void confirmedWithHeartbeatAged(StalenessGuard guard, long age) {
        guard.heartbeatApplied(clock.get() - age);
        guard.positionsConfirmed(clock.get(), guard.lastHeartbeat());
    }

    private void advance(StalenessGuard guard, long millis) {
        clock.addAndGet(millis);
        guard.tick(); // what the client's ticker does; a no-op with the every-hit check
    }

    @ParameterizedTest
    @EnumSource(StalenessCheck.class)
    void aValueLoadedWhileTheClientIsFreshIsStoredAsIsAndServed(StalenessCheck check) {
        StalenessGuard guard = guard(check);
        confirmedWithHeartbeatAged(guard, 0);
        CaffeineInvalidatingCache<Long, String> cache = cache(guard, 0);
        String loaded = new String("one");

        assertThat(cache.get(1L, id -> loaded)).isSameAs(loaded);

        assertThat(cache.caffeine().asMap().get(1L)).as("no wrapper").isSameAs(loaded);
        assertThat(cache.getIfPresent(1L)).isSameAs(loaded);
        assertThat(cache.getOrDefault(1L, "missing")).isSameAs(loaded);
        assertThat(cache.lookup(1L).value()).isSameAs(loaded);
        assertThat(cache.lookup(1L).loadedAtMillis()).isEqualTo(CachedValue.UNKNOWN_LOAD);
        assertThat(cache.getAll(List.of(1L), ids -> Map.of())).containsExactly(Map.entry(1L, "one"));
    }

    @ParameterizedTest
    @EnumSource(StalenessCheck.class)
    void aValueStoredAsIsIsAMissOnEveryReadPathOnceTheWatermarkIsOlderThanTheBound(StalenessCheck check) {
        StalenessGuard guard = guard(check);
        confirmedWithHeartbeatAged(guard, 0);
        CaffeineInvalidatingCache<Long, String> cache = cache(guard, 0);
        cache.get(1L, id -> "one");
        advance(guard, 1_000);
        assertThat(cache.getIfPresent(1L)).as("loaded 1 s ago, watermark 1 s old").isEqualTo("one");

        advance(guard, MAX_STALENESS); // no position confirmed since: the watermark is 6 s old

        // Loaded only 6 s ago, but without its load time it cannot be shown to be within the bound.
        assertThat(cache.caffeine().asMap().get(1L)).as("still stored").isEqualTo("one");
        assertThat(cache.getIfPresent(1L)).isNull();
        assertThat(cache.getOrDefault(1L, "missing")).isEqualTo("missing");
        assertThat(cache.lookup(1L)).isNull();
        assertThat(cache.getAll(List.of(1L), ids -> Map.of(1L, "reloaded"))).containsExactly(Map.entry(1L, "reloaded"));
        assertThat(cache.get(1L, id -> "reloaded again")).as("the reload above replaced it, with its load time")
                .isEqualTo("reloaded");
    }

    @ParameterizedTest
    @EnumSource(StalenessCheck.class)
    void aValueLoadedWhileTheClientLagsKeepsItsLoadTimeAndIsServedWithinTheBound(StalenessCheck check) {
        StalenessGuard guard = guard(check);
        confirmedWithHeartbeatAged(guard, MAX_STALENESS / 2 + 1); // older than half the bound
        CaffeineInvalidatingCache<Long, String> cache = cache(guard, 0);
        long loadedAt = clock.get();

        cache.get(1L, id -> "one");

        assertThat(cache.caffeine().asMap().get(1L)).isInstanceOf(CachedValue.class);
        assertThat(CachedValue.loadedAtMillis(cache.caffeine().asMap().get(1L))).isEqualTo(loadedAt);
        // The watermark is far older than the bound; the load is not (the scheduled check keeps 500 ms of slack).
        advance(guard, MAX_STALENESS - 600);
        assertThat(cache.getIfPresent(1L)).as("as with a time-to-live").isEqualTo("one");
        advance(guard, 601); // the load is older than the bound
        assertThat(cache.getIfPresent(1L)).isNull();
    }

    @ParameterizedTest
    @EnumSource(StalenessCheck.class)
    void aLoadThatStartedBeforeAValueStoredAsIsNeverReplacesIt(StalenessCheck check) {
        StalenessGuard guard = guard(check);
        confirmedWithHeartbeatAged(guard, 0);
        CaffeineInvalidatingCache<Long, String> cache = cache(guard, 0);
        LoadStamp<Long> early = cache.beginLoad(1L); // reads the row as it was
        clock.addAndGet(10);
        cache.get(1L, id -> "later read");

        assertThat(cache.putLoaded(early, "earlier read")).isFalse();

        // Without its load time the later read cannot be told from a stripe-mate's: it is dropped too, not kept.
        assertThat(cache.getIfPresent(1L)).isNull();
        assertThat(cache.get(1L, id -> "read again")).isEqualTo("read again");
        clock.addAndGet(10);
        assertThat(cache.putLoaded(cache.beginLoad(1L), "latest read")).as("a later read replaces it").isTrue();
        assertThat(cache.getIfPresent(1L)).isEqualTo("latest read");
    }

    @ParameterizedTest
    @EnumSource(StalenessCheck.class)
    void anEarlierStampReplacesAValueStoredAsIsWhenNoKeyOfItsStripeWasLoadedSince(StalenessCheck check) {
        StalenessGuard guard = guard(check);
        confirmedWithHeartbeatAged(guard, 0);
        CaffeineInvalidatingCache<Long, String> cache = cache(guard, 0);
        cache.get(1L, id -> "v1");
        clock.addAndGet(10);
        LoadStamp<Long> transactionBegin = cache.beginLoad(1L); // e.g. a put inside a transaction, stamped at its begin
        clock.addAndGet(10);
        long other = keyOfAnotherStripeThan(1L);
        cache.get(other, id -> "another key, loaded later");

        assertThat(cache.putLoaded(transactionBegin, "v2")).as("v1 was read before the stamp").isTrue();

        assertThat(cache.getIfPresent(1L)).isEqualTo("v2");
    }

    @ParameterizedTest
    @EnumSource(StalenessCheck.class)
    void anEarlierStampOntoAValueStoredAsIsWhoseStripeHadALaterLoadKeepsNeither(StalenessCheck check) {
        StalenessGuard guard = guard(check);
        confirmedWithHeartbeatAged(guard, 0);
        CaffeineInvalidatingCache<Long, String> cache = cache(guard, 0);
        cache.get(1L, id -> "v1");
        clock.addAndGet(10);
        LoadStamp<Long> early = cache.beginLoad(1L);
        clock.addAndGet(10);
        long mate = keyOfTheSameStripeAs(1L);
        cache.get(mate, id -> "a stripe-mate, loaded later");

        assertThat(cache.putLoaded(early, "v2")).isFalse();

        // Which of v1 and v2 was read later is not known: neither is served, the next read loads the row.
        assertThat(cache.getIfPresent(1L)).isNull();
        assertThat(cache.getIfPresent(mate)).isEqualTo("a stripe-mate, loaded later");
    }

    @ParameterizedTest
    @EnumSource(StalenessCheck.class)
    void aPutKeepsItsTimeSoAnEarlierLoadNeitherReplacesNorRemovesIt(StalenessCheck check) {
        StalenessGuard guard = guard(check);
        confirmedWithHeartbeatAged(guard, 0);
        CaffeineInvalidatingCache<Long, String> cache = cache(guard, 0);
        LoadStamp<Long> sessionOpened = cache.beginLoad(1L); // e.g. a Hibernate session's caching timestamp
        clock.addAndGet(10);
        assertThat(cache.put(1L, "lock")).isTrue(); // e.g. a READ_WRITE soft lock before an update

        assertThat(cache.caffeine().asMap().get(1L)).isInstanceOf(CachedValue.class);
        assertThat(cache.putLoaded(sessionOpened, "row as read before the lock")).isFalse();
        assertThat(cache.getIfPresent(1L)).as("the lock stays").isEqualTo("lock");
    }

    private static long keyOfAnotherStripeThan(long key) {
        long other = key + 1;
        while (InvalidationGenerations.stripe(other) == InvalidationGenerations.stripe(key)) {
            other++;
        }
        return other;
    }

    private static long keyOfTheSameStripeAs(long key) {
        long mate = key + 1;
        while (InvalidationGenerations.stripe(mate) != InvalidationGenerations.stripe(key)) {
            mate++;
        }
        return mate;
    }

    @ParameterizedTest
    @EnumSource(StalenessCheck.class)
    void aCachedAbsenceAValueThatIsACachedValueAndRefreshAheadKeepTheirWrapper(StalenessCheck check) {
        StalenessGuard guard = guard(check);
        confirmedWithHeartbeatAged(guard, 0);
        CaffeineInvalidatingCache<Long, Object> cache = new CaffeineInvalidatingCache<>("test",
                Caffeine.newBuilder().maximumSize(1_000), guard, true, 0, Runnable::run,
                CaffeineInvalidatingCache.LoadListener.NONE);
        cache.startAccepting();
        CachedValue<String> itself = new CachedValue<>("inner", 1L);

        cache.get(1L, id -> null);
        cache.get(2L, id -> itself);

        assertThat(cache.getOrDefault(1L, "missing")).as("a cached absence").isNull();
        assertThat(cache.lookup(1L)).isNotNull().extracting(CachedValue::value).isNull();
        assertThat(cache.getIfPresent(2L)).as("not taken for a wrapper").isSameAs(itself);
        CaffeineInvalidatingCache<Long, String> refreshing = cache(guard, 60_000);
        refreshing.get(3L, id -> "three");
        assertThat(refreshing.caffeine().asMap().get(3L)).as("refresh-ahead needs the age")
                .isInstanceOf(CachedValue.class);
    }
}
