package dev.cdccache.client.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * Randomized check of no stale populate (docs/client.md, guarantee 3): writers commit new versions to an in-memory "database" and hand the
 * invalidation to a single consumer thread (as the CDC pipeline does, later and in order); readers fill the
 * cache through every path (single-flight get, bulk getAll, put after miss, refresh-ahead) with loaders that
 * pause between reading and returning. Once every invalidation has been applied, every cached value must
 * equal the database's current value.
 */
class NoStalePopulateStressTest {

    private static final int KEYS = 64;
    private static final long RUN_MILLIS = 3_000;

    private final AtomicLongArray database = new AtomicLongArray(KEYS);
    /** Per key, the newest committed version whose invalidation the consumer has applied. */
    private final AtomicLongArray applied = new AtomicLongArray(KEYS);

    private Long read(long id) {
        long value = database.get((int) id);
        pause();
        return value;
    }

    private static void pause() {
        int r = ThreadLocalRandom.current().nextInt(100);
        if (r < 30) {
            Thread.yield();
        } else if (r < 35) {
            try {
                Thread.sleep(0, 200_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Test
    void everyCachedValueMatchesTheDatabaseOnceAllInvalidationsAreApplied() throws Exception {
        AtomicLong clock = new AtomicLong(System.currentTimeMillis());
        ExecutorService refresher = Executors.newFixedThreadPool(2);
        CaffeineInvalidatingCache<Long, Long> cache = readyLongCache(clock, refresher);
        LinkedBlockingQueue<long[]> pipeline = new LinkedBlockingQueue<>();
        List<String> violations = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicLong checks = new AtomicLong();
        AtomicBoolean running = new AtomicBoolean(true);
        // The consumer stops only once no writer can commit any more: a writer still in its loop body when running
        // turns false commits one more version, whose invalidation must still be applied.
        AtomicBoolean writersDone = new AtomicBoolean(false);
        ExecutorService threads = Executors.newFixedThreadPool(9);
        List<Future<?>> tasks = new ArrayList<>();
        AtomicLong operations = new AtomicLong();

        // Consumer thread: applies invalidations in commit order, like the Kafka consumer.
        Future<?> consumer = threads.submit(() -> {
            while (!writersDone.get() || !pipeline.isEmpty()) {
                long[] change = pipeline.poll(1, TimeUnit.MILLISECONDS);
                if (change == null) {
                    continue;
                }
                if (change[0] < 0) {
                    cache.invalidateAll();
                } else {
                    int id = (int) change[0];
                    cache.invalidate((long) id);
                    applied.accumulateAndGet(id, change[1], Math::max);
                }
            }
            return null;
        });
        for (int w = 0; w < 2; w++) {
            tasks.add(threads.submit(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (running.get()) {
                    int id = random.nextInt(KEYS);
                    long version = database.incrementAndGet(id); // commit
                    pipeline.add(new long[] {id, version});
                    if (random.nextInt(500) == 0) {
                        pipeline.add(new long[] {-1, 0}); // a truncate-like evict-all
                    }
                    clock.addAndGet(1);           // time moves: refresh-ahead triggers
                    pause();
                }
                return null;
            }));
        }
        for (int r = 0; r < 5; r++) {
            tasks.add(threads.submit(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (running.get()) {
                    long id = random.nextInt(KEYS);
                    switch (random.nextInt(4)) {
                        case 0 -> cache.get(id, this::read);
                        case 1 -> {
                            List<Long> ids = new ArrayList<>();
                            for (int i = 0; i < 8; i++) {
                                ids.add((long) random.nextInt(KEYS));
                            }
                            cache.getAll(ids, missing -> {
                                Map<Long, Long> rows = new HashMap<>();
                                for (Long m : missing) {
                                    rows.put(m, database.get(m.intValue()));
                                }
                                pause();
                                return rows;
                            });
                        }
                        case 2 -> {
                            if (cache.lookup(id) == null) {
                                LoadStamp<Long> stamp = cache.beginLoad(id);
                                cache.putLoaded(stamp, read(id));
                            }
                        }
                        // Plain hits. (No blind put(): it takes its stamp after the caller read the value, so by
                        // contract it is only for values known to be current, which a reader here cannot know.)
                        default -> cache.getIfPresent(id);
                    }
                    operations.incrementAndGet();
                }
                return null;
            }));
        }
        // Continuous invariant: once the invalidation for version v of a key is applied, the cache never
        // holds an older version of that key again.
        tasks.add(threads.submit(() -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (running.get()) {
                int id = random.nextInt(KEYS);
                long appliedVersion = applied.get(id);
                Object entry = cache.caffeine().getIfPresent((long) id);
                Long cached = entry == null ? null : CachedValue.valueOf(entry);
                if (cached != null && cached < appliedVersion) {
                    violations.add(id + ": cached version " + cached + " after the invalidation of version "
                            + appliedVersion + " was applied");
                }
                checks.incrementAndGet();
            }
            return null;
        }));

        Thread.sleep(RUN_MILLIS);
        running.set(false);
        for (Future<?> task : tasks) {
            task.get(10, TimeUnit.SECONDS);
        }
        writersDone.set(true);
        consumer.get(10, TimeUnit.SECONDS);
        refresher.shutdown();
        assertThat(refresher.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        threads.shutdown();

        List<String> stale = new ArrayList<>();
        cache.caffeine().asMap().forEach((id, entry) -> {
            Long cached = CachedValue.valueOf(entry);
            if (cached != database.get(id.intValue())) {
                stale.add(id + ": cached " + cached + ", database " + database.get(id.intValue()));
            }
        });
        assertThat(operations.get()).isGreaterThan(10_000);
        assertThat(cache.estimatedSize()).isPositive();
        assertThat(checks.get()).isGreaterThan(10_000);
        assertThat(violations).as("stale populates seen during the run").isEmpty();
        assertThat(stale).as("stale entries after %d operations", operations.get()).isEmpty();
    }

    private static CaffeineInvalidatingCache<Long, Long> readyLongCache(AtomicLong clock, ExecutorService refresher) {
        dev.cdccache.client.staleness.StalenessGuard guard = new dev.cdccache.client.staleness.StalenessGuard(
                clock::get, java.time.Duration.ofSeconds(5), dev.cdccache.client.StalenessPolicy.SERVE_STALE, true);
        CaffeineInvalidatingCache<Long, Long> cache = new CaffeineInvalidatingCache<>("stress",
                com.github.benmanes.caffeine.cache.Caffeine.newBuilder(), guard, true, 50, refresher,
                CaffeineInvalidatingCache.LoadListener.NONE);
        cache.startAccepting();
        return cache;
    }
}
