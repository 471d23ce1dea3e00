package dev.cdccache.client.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * No stale populate (docs/client.md, guarantee 3), each filling path with the interleaving forced by latches: the loader reads the old row,
 * the change is committed and its invalidation applied, then the loader returns. The old value must not stay
 * in the cache.
 */
class NoStalePopulateTest {

    private final Map<Long, String> database = new ConcurrentHashMap<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    /** The change pipeline: commit, then (later) the invalidation reaches the cache. */
    private void commitAndInvalidate(CaffeineInvalidatingCache<Long, String> cache, long id, String value) {
        database.put(id, value);
        cache.invalidate(id);
    }

    @Test
    void singleGetDoesNotCacheAValueReadBeforeAnAppliedInvalidation() throws Exception {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
        database.put(1L, "old");
        CountDownLatch read = new CountDownLatch(1);
        CountDownLatch invalidated = new CountDownLatch(1);

        CompletableFuture<String> load = CompletableFuture.supplyAsync(() -> cache.get(1L, id -> {
            String value = database.get(id);
            read.countDown();
            await(invalidated);
            return value;
        }), threads);
        await(read);
        commitAndInvalidate(cache, 1L, "new");
        invalidated.countDown();

        assertThat(load.get(5, TimeUnit.SECONDS)).isEqualTo("old"); // the caller gets what it read...
        assertThat(cache.getIfPresent(1L)).isNull();                // ...but it is not cached
        assertThat(cache.get(1L, database::get)).isEqualTo("new");
        assertThat(cache.getIfPresent(1L)).isEqualTo("new");
    }

    @Test
    void putAfterMissDoesNotCacheAValueReadBeforeAnAppliedInvalidation() {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
        database.put(1L, "old");

        assertThat(cache.lookup(1L)).isNull();
        LoadStamp<Long> stamp = cache.beginLoad(1L);
        String read = database.get(1L);
        commitAndInvalidate(cache, 1L, "new");
        assertThat(cache.putLoaded(stamp, read)).isFalse();

        assertThat(cache.getIfPresent(1L)).isNull();
        LoadStamp<Long> second = cache.beginLoad(1L);
        assertThat(cache.putLoaded(second, database.get(1L))).isTrue();
        assertThat(cache.getIfPresent(1L)).isEqualTo("new");
    }

    @Test
    void bulkLoadDoesNotCacheValuesReadBeforeAnAppliedInvalidationButCachesTheOthers() throws Exception {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
        for (long id = 1; id <= 4; id++) {
            database.put(id, "old" + id);
        }
        assertThat(cache.get(4L, database::get)).isEqualTo("old4"); // a hit in the bulk lookup
        CountDownLatch read = new CountDownLatch(1);
        CountDownLatch invalidated = new CountDownLatch(1);
        AtomicInteger loaderCalls = new AtomicInteger();

        CompletableFuture<Map<Long, String>> bulk = CompletableFuture.supplyAsync(() -> cache.getAll(
                List.of(3L, 1L, 4L, 2L), missing -> {
                    loaderCalls.incrementAndGet();
                    assertThat(new java.util.ArrayList<Long>(missing)).containsExactly(3L, 1L, 2L);
                    Map<Long, String> rows = new java.util.HashMap<>();
                    missing.forEach(id -> rows.put(id, database.get(id)));
                    read.countDown();
                    await(invalidated);
                    return rows;
                }), threads);
        await(read);
        commitAndInvalidate(cache, 2L, "new2");
        invalidated.countDown();

        Map<Long, String> result = bulk.get(5, TimeUnit.SECONDS);
        assertThat(result.keySet()).containsExactly(3L, 1L, 4L, 2L);
        assertThat(loaderCalls).hasValue(1);
        assertThat(cache.getIfPresent(2L)).isNull();
        assertThat(cache.getIfPresent(1L)).isEqualTo("old1");
        assertThat(cache.getIfPresent(3L)).isEqualTo("old3");
    }

    @Test
    void evictAllDuringALoadKeepsTheLoadedValueOut() throws Exception {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
        database.put(1L, "old");
        CountDownLatch read = new CountDownLatch(1);
        CountDownLatch invalidated = new CountDownLatch(1);
        CompletableFuture<String> load = CompletableFuture.supplyAsync(() -> cache.get(1L, id -> {
            String value = database.get(id);
            read.countDown();
            await(invalidated);
            return value;
        }), threads);
        await(read);
        database.clear(); // TRUNCATE
        cache.invalidateAll();
        invalidated.countDown();

        assertThat(load.get(5, TimeUnit.SECONDS)).isEqualTo("old");
        assertThat(cache.lookup(1L)).isNull();
    }

    /**
     * Caffeine's clear() skips a bin whose compute of an absent key is in progress, so an evict-all
     * (TRUNCATE, evict: all caches, lost events) applied while a loaded value is being stored used to leave that
     * old value in the cache; the store now re-checks the generation after its compute.
     */
    @Test
    void evictAllWhileALoadedValueIsBeingStoredDoesNotLetTheOldValueSurvive() throws Exception {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
        database.put(1L, "old");
        CountDownLatch storing = new CountDownLatch(1);
        CountDownLatch evicted = new CountDownLatch(1);
        AtomicInteger stores = new AtomicInteger();
        cache.onStoreInProgress(() -> {
            if (stores.incrementAndGet() == 1) {
                storing.countDown();
                await(evicted);
            }
        });
        CompletableFuture<String> load = CompletableFuture.supplyAsync(() -> cache.get(1L, database::get), threads);
        await(storing); // the load passed its generation check and is inside the compute that stores "old"
        database.clear(); // TRUNCATE...
        CompletableFuture<Void> evictAll = CompletableFuture.runAsync(cache::invalidateAll, threads);
        evictAll.get(5, TimeUnit.SECONDS); // ...applied: clear() does not wait for the compute in progress
        evicted.countDown();

        assertThat(load.get(5, TimeUnit.SECONDS)).isEqualTo("old");
        assertThat(cache.lookup(1L)).as("the value read before the evict-all").isNull();
        assertThat(cache.get(1L, id -> database.getOrDefault(id, "absent"))).isEqualTo("absent");
    }

    @Test
    void refreshAheadDoesNotCacheAValueReadBeforeAnAppliedInvalidation() throws Exception {
        AtomicLong clock = new AtomicLong(1_000_000);
        ExecutorService refresher = Executors.newSingleThreadExecutor();
        try {
            CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready(700, refresher, clock);
            database.put(1L, "v1");
            assertThat(cache.get(1L, database::get)).isEqualTo("v1");
            clock.addAndGet(800); // past the refresh point
            CountDownLatch read = new CountDownLatch(1);
            CountDownLatch invalidated = new CountDownLatch(1);
            database.put(1L, "v2");

            // The hit serves the cached value and starts one refresh, which reads v2...
            assertThat(cache.get(1L, id -> {
                String value = database.get(id);
                read.countDown();
                await(invalidated);
                return value;
            })).isEqualTo("v1");
            await(read);
            // ...then v3 is committed and its invalidation applied before the refresh stores v2.
            commitAndInvalidate(cache, 1L, "v3");
            invalidated.countDown();
            refresher.submit(() -> { }).get(5, TimeUnit.SECONDS); // the refresh has finished

            assertThat(cache.getIfPresent(1L)).isNull();
            assertThat(cache.get(1L, database::get)).isEqualTo("v3");
        } finally {
            refresher.shutdownNow();
        }
    }

    /**
     * An executor may accept a refresh and never run it (a discarding policy, a shutdown). That refresh
     * used to stay registered as the key's in-flight load, so every later miss of the key waited for it forever.
     */
    @Test
    void aRefreshTheExecutorDropsDoesNotBlockLaterMissesNorLaterRefreshesOfThatKey() throws Exception {
        AtomicLong clock = new AtomicLong(1_000_000);
        AtomicInteger submitted = new AtomicInteger();
        // Drops the first task it is given, runs the others on the calling thread.
        java.util.concurrent.Executor dropsFirst = task -> {
            if (submitted.incrementAndGet() > 1) {
                task.run();
            }
        };
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready(700, dropsFirst, clock);
        database.put(1L, "v1");
        assertThat(cache.get(1L, database::get)).isEqualTo("v1");
        clock.addAndGet(800); // past the refresh point
        database.put(1L, "v2");
        assertThat(cache.get(1L, database::get)).isEqualTo("v1"); // a hit, whose refresh is dropped
        assertThat(submitted).hasValue(1);

        // The entry leaves without an invalidation (size eviction, expiry): the next call is a miss.
        cache.caffeine().invalidate(1L);
        CompletableFuture<String> miss = CompletableFuture.supplyAsync(() -> cache.get(1L, database::get), threads);
        assertThat(miss.get(5, TimeUnit.SECONDS)).isEqualTo("v2");

        clock.addAndGet(1_500); // past the refresh point again, and past the dropped refresh's lifetime
        database.put(1L, "v3");
        assertThat(cache.get(1L, database::get)).isEqualTo("v2"); // a hit; its refresh runs
        assertThat(submitted).hasValue(2);
        assertThat(cache.getIfPresent(1L)).isEqualTo("v3");
    }

    @Test
    void refreshAheadReplacesTheValueWhenNoInvalidationRaced() throws Exception {
        AtomicLong clock = new AtomicLong(1_000_000);
        ExecutorService refresher = Executors.newSingleThreadExecutor();
        try {
            CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready(700, refresher, clock);
            AtomicInteger loads = new AtomicInteger();
            database.put(1L, "v1");
            cache.get(1L, id -> {
                loads.incrementAndGet();
                return database.get(id);
            });
            clock.addAndGet(800);
            database.put(1L, "v1b"); // e.g. a value derived from the row changed without an event (TTL case)
            assertThat(cache.get(1L, id -> {
                loads.incrementAndGet();
                return database.get(id);
            })).isEqualTo("v1");
            refresher.submit(() -> { }).get(5, TimeUnit.SECONDS);
            assertThat(loads).hasValue(2);
            assertThat(cache.getIfPresent(1L)).isEqualTo("v1b");
        } finally {
            refresher.shutdownNow();
        }
    }

    @Test
    void concurrentMissesOfOneKeyRunOneLoad() throws Exception {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
        database.put(1L, "v");
        AtomicInteger loads = new AtomicInteger();
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<String> leader = CompletableFuture.supplyAsync(() -> cache.get(1L, id -> {
            loads.incrementAndGet();
            loading.countDown();
            await(release);
            return database.get(id);
        }), threads);
        await(loading);
        List<Caller> followers = new java.util.ArrayList<>();
        for (int i = 0; i < 16; i++) {
            followers.add(Caller.start("follower-" + i, () -> cache.get(1L, id -> {
                loads.incrementAndGet();
                return database.get(id);
            })));
        }
        // Every follower has arrived while the leader's load is held, and is parked, not loading.
        for (Caller follower : followers) {
            follower.awaitParked();
        }
        assertThat(loads).as("loads while the followers wait").hasValue(1);

        release.countDown();
        assertThat(leader.get(5, TimeUnit.SECONDS)).isEqualTo("v");
        for (Caller follower : followers) {
            assertThat(follower.result()).isEqualTo("v");
        }
        assertThat(loads).hasValue(1);
    }

    @Test
    void aLoaderFailureReachesEveryWaitingCallerAndCachesNothing() throws Exception {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
        IllegalStateException failure = new IllegalStateException("database down");
        AtomicInteger followerLoads = new AtomicInteger();
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<String> leader = CompletableFuture.supplyAsync(() -> cache.get(1L, id -> {
            loading.countDown();
            await(release);
            throw failure;
        }), threads);
        await(loading);
        List<Caller> followers = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) {
            followers.add(Caller.start("follower-" + i, () -> cache.get(1L, id -> {
                followerLoads.incrementAndGet();
                return "loaded by a follower";
            })));
        }
        for (Caller follower : followers) {
            follower.awaitParked(); // waiting on the leader's load, which has not failed yet
        }

        release.countDown();
        assertThat(leader).failsWithin(5, TimeUnit.SECONDS).withThrowableThat().havingRootCause().isSameAs(failure);
        for (Caller follower : followers) {
            assertThat(follower.failure()).as("what the waiting caller got").isSameAs(failure);
        }
        assertThat(followerLoads).as("no waiting caller loaded on its own").hasValue(0);
        assertThat(cache.lookup(1L)).isNull();
        // The failure is not remembered: the next miss loads.
        assertThat(cache.get(1L, id -> "after the failure")).isEqualTo("after the failure");
    }

    @Test
    void anInvalidationDoesNotWaitForASlowLoaderOfTheSameKey() throws Exception {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<String> load = CompletableFuture.supplyAsync(() -> cache.get(1L, id -> {
            loading.countDown();
            await(release);
            return "slow";
        }), threads);
        await(loading);
        CompletableFuture<Void> invalidation = CompletableFuture.runAsync(() -> {
            cache.invalidate(1L);
            cache.invalidateAll();
        }, threads);
        assertThat(invalidation).succeedsWithin(1, TimeUnit.SECONDS);
        assertThat(load).isNotDone();
        release.countDown();
        assertThat(load.get(5, TimeUnit.SECONDS)).isEqualTo("slow");
        assertThat(cache.lookup(1L)).isNull();
    }

    @Test
    void aCallerArrivingAfterAnInvalidationDoesNotJoinTheOlderLoad() throws Exception {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
        database.put(1L, "old");
        CountDownLatch read = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> cache.get(1L, id -> {
            String value = database.get(id);
            read.countDown();
            await(release);
            return value;
        }), threads);
        await(read);
        commitAndInvalidate(cache, 1L, "new");
        // Started after the invalidation was applied: must see the committed change.
        assertThat(cache.get(1L, database::get)).isEqualTo("new");
        release.countDown();
        assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo("old");
        assertThat(cache.getIfPresent(1L)).isEqualTo("new");
    }

    @Test
    void nullResultsAreCachedAsAbsenceAndAnInsertEvictsThem() {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
        AtomicInteger loads = new AtomicInteger();
        assertThat(cache.get(7L, id -> {
            loads.incrementAndGet();
            return database.get(id);
        })).isNull();
        assertThat(cache.lookup(7L)).isNotNull().extracting(CachedValue::value).isNull();
        assertThat(cache.get(7L, id -> {
            loads.incrementAndGet();
            return database.get(id);
        })).isNull();
        assertThat(loads).hasValue(1);
        commitAndInvalidate(cache, 7L, "inserted"); // op c: the after-image key is evicted
        assertThat(cache.get(7L, database::get)).isEqualTo("inserted");
    }

    @Test
    void nothingIsCachedBeforeTheClientIsReadyNorFromLoadsStampedBefore() {
        StalenessGuardHolder holder = new StalenessGuardHolder();
        CaffeineInvalidatingCache<Long, String> cache = holder.notReadyCache();
        assertThat(cache.get(1L, id -> "v")).isEqualTo("v");
        assertThat(cache.lookup(1L)).isNull();
        LoadStamp<Long> before = cache.beginLoad(2L);
        cache.startAccepting();
        assertThat(cache.putLoaded(before, "v")).isFalse();
        assertThat(cache.get(1L, id -> "v")).isEqualTo("v");
        assertThat(cache.lookup(1L)).isNotNull();
    }

    @Test
    void bulkLookupReturnsHitsWithoutCallingTheLoaderAndOmitsAbsentKeys() {
        CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
        database.put(1L, "a");
        database.put(2L, "b");
        AtomicInteger calls = new AtomicInteger();
        java.util.function.Function<Set<? extends Long>, Map<Long, String>> loader = missing -> {
            calls.incrementAndGet();
            Map<Long, String> rows = new java.util.HashMap<>();
            missing.forEach(id -> {
                if (database.containsKey(id)) {
                    rows.put(id, database.get(id));
                }
            });
            return rows;
        };
        assertThat(cache.getAll(List.of(2L, 9L, 1L), loader)).containsExactly(Map.entry(2L, "b"), Map.entry(1L, "a"));
        assertThat(calls).hasValue(1);
        assertThat(cache.getAll(List.of(1L, 2L, 9L), loader)).containsExactly(Map.entry(1L, "a"), Map.entry(2L, "b"));
        assertThat(calls).hasValue(1); // all hits (9 cached as absent): no loader call
    }

    /**
     * A caller on a thread of its own, so that the test can see it parked: a caller that joined a load in flight
     * waits on that load's future ({@link Thread.State#WAITING}), one that loads itself never parks here.
     */
    private static final class Caller {
        private final Thread thread;
        private final AtomicReference<Object> outcome = new AtomicReference<>();

        private Caller(String name, java.util.function.Supplier<String> call) {
            thread = new Thread(() -> {
                try {
                    outcome.set(call.get());
                } catch (Throwable t) {
                    outcome.set(t);
                }
            }, name);
            thread.setDaemon(true);
        }

        static Caller start(String name, java.util.function.Supplier<String> call) {
            Caller caller = new Caller(name, call);
            caller.thread.start();
            return caller;
        }

        /** Waits until the caller is parked; fails if it finished instead (it did not wait for the load). */
        void awaitParked() throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            // Parked with a blocker (LockSupport.park, as a future's waiter does), not in Object.wait or a lock.
            while (thread.getState() != Thread.State.WAITING || LockSupport.getBlocker(thread) == null) {
                if (thread.getState() == Thread.State.TERMINATED) {
                    throw new AssertionError(thread.getName() + " did not wait for the load in flight: " + outcome.get());
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(thread.getName() + " did not park within 10 s: " + thread.getState());
                }
                Thread.sleep(1);
            }
        }

        private Object finish() throws InterruptedException {
            thread.join(TimeUnit.SECONDS.toMillis(5));
            assertThat(thread.isAlive()).as(thread.getName() + " finished").isFalse();
            return outcome.get();
        }

        String result() throws InterruptedException {
            Object value = finish();
            if (value instanceof Throwable t) {
                throw new AssertionError(thread.getName() + " failed", t);
            }
            return (String) value;
        }

        Throwable failure() throws InterruptedException {
            Object value = finish();
            assertThat(value).as(thread.getName() + "'s outcome").isInstanceOf(Throwable.class);
            return (Throwable) value;
        }
    }

    static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("latch not released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** A cache whose client is not ready yet. */
    private static final class StalenessGuardHolder {
        CaffeineInvalidatingCache<Long, String> notReadyCache() {
            dev.cdccache.client.staleness.StalenessGuard guard = new dev.cdccache.client.staleness.StalenessGuard(
                    System::currentTimeMillis, java.time.Duration.ofSeconds(5),
                    dev.cdccache.client.StalenessPolicy.SERVE_STALE, true);
            return new CaffeineInvalidatingCache<>("test", com.github.benmanes.caffeine.cache.Caffeine.newBuilder(),
                    guard, true, 0, Runnable::run, CaffeineInvalidatingCache.LoadListener.NONE);
        }
    }
}
