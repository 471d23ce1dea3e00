package dev.cdccache.client.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.cache.CacheTransaction.Isolation;
import dev.cdccache.client.staleness.StalenessGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a cache stores for loads inside a {@link CacheTransaction}: a map stands for the database, and a snapshot
 * of it for what a REPEATABLE READ transaction reads. The database behaviour itself is covered against a real
 * MariaDB by {@code TransactionalLoadsIT}.
 */
class CacheTransactionTest {

    private final Map<Long, String> database = new ConcurrentHashMap<>();
    private final List<String> dropped = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final CaffeineInvalidatingCache<Long, String> cache = cache();

    @AfterEach
    void cleanUp() {
        threads.shutdownNow();
        while (CacheTransaction.current() != null) {
            CacheTransaction.current().rollback();
        }
    }

    private CaffeineInvalidatingCache<Long, String> cache() {
        StalenessGuard guard = new StalenessGuard(System::currentTimeMillis, Duration.ofSeconds(5),
                StalenessPolicy.SERVE_STALE, true);
        CaffeineInvalidatingCache<Long, String> c = new CaffeineInvalidatingCache<>("test",
                Caffeine.newBuilder().maximumSize(100_000), guard, true, 0, ForkJoinPool.commonPool(),
                new CaffeineInvalidatingCache.LoadListener() {
                    @Override
                    public void discarded(String name) {
                    }

                    @Override
                    public void dropped(String name, CaffeineInvalidatingCache.DropReason reason) {
                        dropped.add(reason.tag());
                    }
                });
        c.startAccepting();
        return c;
    }

    /** Another writer commits, and the client applies its invalidation. */
    private void commitAndInvalidate(long id, String value) {
        database.put(id, value);
        cache.invalidate(id);
    }

    @Test
    void aValueLoadedInsideATransactionIsStoredWhenItCommitsAndNotBefore() {
        database.put(1L, "one");
        CacheTransaction tx = CacheTransaction.begin();

        assertThat(cache.get(1L, database::get)).isEqualTo("one");
        assertThat(cache.getIfPresent(1L)).as("not visible before the commit").isNull();

        tx.commit();
        assertThat(cache.getIfPresent(1L)).isEqualTo("one");
        assertThat(CacheTransaction.current()).isNull();
    }

    @Test
    void aRepeatableReadSnapshotOlderThanAnAppliedInvalidationIsNotCached() {
        database.put(1L, "old");
        CacheTransaction tx = CacheTransaction.begin().isolation(Isolation.REPEATABLE_READ);
        Map<Long, String> snapshot = Map.copyOf(database); // the transaction's first read fixes its snapshot
        commitAndInvalidate(1L, "new");

        // The load stamps after the invalidation was applied, but reads the snapshot from before it.
        assertThat(cache.get(1L, snapshot::get)).isEqualTo("old");
        tx.commit();

        assertThat(cache.getIfPresent(1L)).isNull();
        assertThat(cache.get(1L, database::get)).isEqualTo("new");
    }

    @Test
    void anUnknownIsolationIsTreatedAsRepeatableRead() {
        database.put(1L, "old");
        CacheTransaction tx = CacheTransaction.begin();
        Map<Long, String> snapshot = Map.copyOf(database);
        commitAndInvalidate(1L, "new");

        cache.get(1L, snapshot::get);
        tx.commit();

        assertThat(cache.getIfPresent(1L)).isNull();
    }

    @Test
    void atReadCommittedALoadStampedAfterAnInvalidationIsCachedBecauseItsStatementSeesTheChange() {
        database.put(1L, "old");
        CacheTransaction tx = CacheTransaction.begin().isolation(Isolation.READ_COMMITTED);
        commitAndInvalidate(1L, "new");

        assertThat(cache.get(1L, database::get)).isEqualTo("new");
        tx.commit();

        assertThat(cache.getIfPresent(1L)).isEqualTo("new");
    }

    @Test
    void atReadCommittedAnInvalidationDuringTheLoadStillKeepsItsValueOut() {
        database.put(1L, "old");
        CacheTransaction tx = CacheTransaction.begin().isolation(Isolation.READ_COMMITTED);

        cache.get(1L, id -> {
            String read = database.get(id);
            commitAndInvalidate(1L, "new");
            return read;
        });
        tx.commit();

        assertThat(cache.getIfPresent(1L)).isNull();
    }

    @Test
    void anInvalidationAppliedAfterTheLoadButBeforeTheCommitKeepsTheValueOut() {
        database.put(1L, "old");
        CacheTransaction tx = CacheTransaction.begin().isolation(Isolation.READ_COMMITTED);
        cache.get(1L, database::get);
        commitAndInvalidate(1L, "new");
        tx.commit();

        assertThat(cache.getIfPresent(1L)).isNull();
    }

    @Test
    void aRolledBackTransactionCachesNothingItReadEvenItsOwnUncommittedWrites() {
        database.put(1L, "committed");
        try (CacheTransaction tx = CacheTransaction.begin().isolation(Isolation.READ_COMMITTED)) {
            Map<Long, String> ownView = new ConcurrentHashMap<>(database);
            ownView.put(1L, "uncommitted"); // this transaction's own write, visible to itself only
            assertThat(cache.get(1L, ownView::get)).isEqualTo("uncommitted");
            tx.rollback();
        }

        assertThat(cache.getIfPresent(1L)).isNull();
        assertThat(dropped).containsExactly("rolled_back");
    }

    @Test
    void closingATransactionThatWasNeitherCommittedNorRolledBackRollsItBack() {
        database.put(1L, "one");
        try (CacheTransaction tx = CacheTransaction.begin()) {
            cache.get(1L, database::get);
        }

        assertThat(cache.getIfPresent(1L)).isNull();
        assertThat(CacheTransaction.current()).isNull();
        assertThat(dropped).containsExactly("rolled_back");
    }

    @Test
    void bulkLoadsAreKeptAsideAndCheckedKeyByKey() {
        database.put(1L, "old-1");
        database.put(2L, "old-2");
        CacheTransaction tx = CacheTransaction.begin().isolation(Isolation.REPEATABLE_READ);
        Map<Long, String> snapshot = Map.copyOf(database);
        commitAndInvalidate(1L, "new-1");

        Map<Long, String> values = cache.getAll(List.of(1L, 2L), keys -> {
            Map<Long, String> found = new java.util.HashMap<>();
            keys.forEach(k -> found.put(k, snapshot.get(k)));
            return found;
        });
        assertThat(values).containsEntry(1L, "old-1").containsEntry(2L, "old-2");
        assertThat(cache.getIfPresent(2L)).isNull();
        tx.commit();

        assertThat(cache.getIfPresent(1L)).as("invalidated since the begin").isNull();
        assertThat(cache.getIfPresent(2L)).isEqualTo("old-2");
    }

    @Test
    void aPutWithoutALoadStandsForTheBeginWhateverTheIsolation() {
        database.put(1L, "old");
        CacheTransaction tx = CacheTransaction.begin().isolation(Isolation.READ_COMMITTED);
        String readEarly = database.get(1L);
        commitAndInvalidate(1L, "new");

        assertThat(cache.put(1L, readEarly)).isFalse();
        tx.commit();

        assertThat(cache.getIfPresent(1L)).isNull();
    }

    @Test
    void aPutWithoutALoadIsStoredAfterTheCommitWhenNothingInvalidatedItSinceTheBegin() {
        CacheTransaction tx = CacheTransaction.begin();
        database.put(1L, "written by this transaction");
        cache.put(1L, "written by this transaction");
        assertThat(cache.getIfPresent(1L)).isNull();
        tx.commit();

        assertThat(cache.getIfPresent(1L)).isEqualTo("written by this transaction");
    }

    @Test
    void putLoadedWithAStampTakenInsideTheTransactionIsKeptAsideUntilTheCommit() {
        database.put(1L, "old");
        CacheTransaction tx = CacheTransaction.begin();
        Map<Long, String> snapshot = Map.copyOf(database);
        commitAndInvalidate(1L, "new");
        LoadStamp<Long> stamp = cache.beginLoad(1L);

        assertThat(cache.putLoaded(stamp, snapshot.get(1L))).isFalse();
        tx.commit();

        assertThat(cache.getIfPresent(1L)).isNull();
    }

    @Test
    void beginLoadAsOfInsideATransactionReachesBackToTheEarlierOfTheTwoSequences() {
        database.put(1L, "old");
        CacheTransaction tx = CacheTransaction.begin();
        Map<Long, String> snapshot = Map.copyOf(database);
        long drawnLater = InvalidationSequence.next(); // e.g. an ORM session opened inside the transaction
        commitAndInvalidate(1L, "new");
        long drawnAfterTheInvalidation = InvalidationSequence.next();

        LoadStamp<Long> stamp = cache.beginLoadAsOf(1L, drawnAfterTheInvalidation);
        cache.putLoaded(stamp, snapshot.get(1L));
        tx.commit();

        assertThat(drawnLater).isGreaterThan(tx.beganAt());
        assertThat(cache.getIfPresent(1L)).isNull();
    }

    @Test
    void readUncommittedCachesNothing() {
        database.put(1L, "one");
        CacheTransaction tx = CacheTransaction.begin().isolation(Isolation.READ_UNCOMMITTED);
        cache.get(1L, database::get);
        cache.put(2L, "two");
        LoadStamp<Long> stamp = cache.beginLoadAsOf(3L, InvalidationSequence.next());
        cache.putLoaded(stamp, "three");
        tx.commit();

        assertThat(cache.estimatedSize()).isZero();
    }

    @Test
    void aSavepointRolledBackDropsItsValuesAndTheEnclosingTransactionKeepsItsOwn() {
        database.put(1L, "one");
        database.put(2L, "two");
        CacheTransaction tx = CacheTransaction.begin();
        cache.get(1L, database::get);
        CacheTransaction savepoint = CacheTransaction.beginSavepoint();
        cache.get(2L, id -> "written after the savepoint");
        savepoint.rollback();
        assertThat(CacheTransaction.current()).isSameAs(tx);
        tx.commit();

        assertThat(cache.getIfPresent(1L)).isEqualTo("one");
        assertThat(cache.getIfPresent(2L)).isNull();
    }

    @Test
    void aSavepointReleasedHandsItsValuesToTheEnclosingTransactionWhichStoresThemOnItsCommit() {
        database.put(2L, "two");
        CacheTransaction tx = CacheTransaction.begin();
        CacheTransaction savepoint = CacheTransaction.beginSavepoint();
        cache.get(2L, database::get);
        savepoint.commit();
        assertThat(cache.getIfPresent(2L)).as("still inside the enclosing transaction").isNull();

        tx.commit();
        assertThat(cache.getIfPresent(2L)).isEqualTo("two");
    }

    @Test
    void aSavepointSharesTheSnapshotOfItsTransaction() {
        database.put(1L, "old");
        CacheTransaction tx = CacheTransaction.begin().isolation(Isolation.REPEATABLE_READ);
        Map<Long, String> snapshot = Map.copyOf(database);
        commitAndInvalidate(1L, "new");
        CacheTransaction savepoint = CacheTransaction.beginSavepoint();
        cache.get(1L, snapshot::get);
        savepoint.commit();
        tx.commit();

        assertThat(cache.getIfPresent(1L)).isNull();
    }

    @Test
    void anIndependentInnerTransactionStoresOnItsOwnCommitWhileTheOuterOneWaits() {
        database.put(1L, "one");
        database.put(2L, "two");
        CacheTransaction outer = CacheTransaction.begin();
        cache.get(1L, database::get);
        CacheTransaction inner = CacheTransaction.begin(); // REQUIRES_NEW: the outer one is suspended
        cache.get(2L, database::get);
        inner.commit();
        assertThat(cache.getIfPresent(2L)).isEqualTo("two");
        assertThat(cache.getIfPresent(1L)).isNull();
        assertThat(CacheTransaction.current()).isSameAs(outer);

        outer.commit();
        assertThat(cache.getIfPresent(1L)).isEqualTo("one");
    }

    @Test
    void completingATransactionRollsBackWhatWasBegunInsideItAndLeftOpen() {
        database.put(1L, "one");
        CacheTransaction outer = CacheTransaction.begin();
        CacheTransaction.begin(); // its completion is never signalled
        cache.get(1L, database::get);
        outer.commit();

        assertThat(cache.getIfPresent(1L)).isNull();
        assertThat(CacheTransaction.current()).isNull();
        assertThat(dropped).containsExactly("rolled_back");
    }

    @Test
    void aTransactionMissNeverLeadsALoadThatOtherThreadsWaitFor() throws Exception {
        database.put(1L, "committed");
        CountDownLatch transactionReading = new CountDownLatch(1);
        CountDownLatch releaseTransaction = new CountDownLatch(1);
        AtomicInteger loads = new AtomicInteger();
        CompletableFuture<String> inTransaction = CompletableFuture.supplyAsync(() -> {
            try (CacheTransaction tx = CacheTransaction.begin()) {
                String value = cache.get(1L, id -> {
                    loads.incrementAndGet();
                    transactionReading.countDown();
                    await(releaseTransaction);
                    return "uncommitted";
                });
                tx.rollback();
                return value;
            }
        }, threads);
        await(transactionReading);

        // While the transaction's load is in progress, a caller outside it loads on its own and gets the committed
        // row: had it joined the transaction's load it would have been handed the uncommitted value.
        String outside = CompletableFuture.supplyAsync(() -> cache.get(1L, id -> {
            loads.incrementAndGet();
            return database.get(id);
        }), threads).get(5, TimeUnit.SECONDS);
        releaseTransaction.countDown();

        assertThat(outside).isEqualTo("committed");
        assertThat(inTransaction.get(5, TimeUnit.SECONDS)).isEqualTo("uncommitted");
        assertThat(loads).hasValue(2);
        assertThat(cache.getIfPresent(1L)).isEqualTo("committed");
    }

    @Test
    void aTransactionMissJoinsALoadAlreadyRunningOutsideAnyTransaction() throws Exception {
        database.put(1L, "committed");
        CountDownLatch leaderReading = new CountDownLatch(1);
        CountDownLatch releaseLeader = new CountDownLatch(1);
        AtomicInteger loads = new AtomicInteger();
        CompletableFuture<String> leader = CompletableFuture.supplyAsync(() -> cache.get(1L, id -> {
            loads.incrementAndGet();
            leaderReading.countDown();
            await(releaseLeader);
            return database.get(id);
        }), threads);
        await(leaderReading);

        CountDownLatch joining = new CountDownLatch(1);
        CompletableFuture<String> inTransaction = CompletableFuture.supplyAsync(() -> {
            try (CacheTransaction tx = CacheTransaction.begin()) {
                joining.countDown();
                String value = cache.get(1L, id -> {
                    loads.incrementAndGet();
                    return "from the transaction";
                });
                tx.commit();
                return value;
            }
        }, threads);
        await(joining);
        releaseLeader.countDown();

        assertThat(leader.get(5, TimeUnit.SECONDS)).isEqualTo("committed");
        assertThat(inTransaction.get(5, TimeUnit.SECONDS)).isEqualTo("committed");
        assertThat(loads).hasValue(1);
    }

    @Test
    void moreValuesThanATransactionKeepsAsideAreReturnedButNotCached() {
        CacheTransaction tx = CacheTransaction.begin();
        for (long id = 0; id < CacheTransaction.MAX_DEFERRED + 5; id++) {
            cache.get(id, k -> "v" + k);
        }
        tx.commit();

        assertThat(cache.estimatedSize()).isEqualTo(CacheTransaction.MAX_DEFERRED);
        assertThat(dropped).hasSize(5).containsOnly("overflow");
    }

    @Test
    void aTransactionBelongsToTheThreadThatBeganIt() throws Exception {
        CacheTransaction tx = CacheTransaction.begin();
        CompletableFuture<Throwable> other = CompletableFuture.supplyAsync(() -> {
            try {
                tx.commit();
                return null;
            } catch (IllegalStateException e) {
                return e;
            }
        }, threads);

        assertThat(other.get(5, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("thread that began it");
        assertThat(CompletableFuture.supplyAsync(CacheTransaction::current, threads).get(5, TimeUnit.SECONDS))
                .isNull();
        tx.commit();
        assertThatThrownBy(tx::commit).isInstanceOf(IllegalStateException.class).hasMessageContaining("committed");
    }

    @Test
    void aSavepointNeedsAnOpenTransaction() {
        assertThatThrownBy(CacheTransaction::beginSavepoint).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no transaction");
    }

    @Test
    void hitsInsideATransactionServeTheCachedCommittedValue() {
        cache.get(1L, id -> "cached");
        Set<Long> loaded = ConcurrentHashMap.newKeySet();
        try (CacheTransaction tx = CacheTransaction.begin()) {
            assertThat(cache.get(1L, id -> {
                loaded.add(id);
                return "reloaded";
            })).isEqualTo("cached");
            tx.commit();
        }
        assertThat(loaded).isEmpty();
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(5, TimeUnit.SECONDS)) {
                throw new IllegalStateException("timed out");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
