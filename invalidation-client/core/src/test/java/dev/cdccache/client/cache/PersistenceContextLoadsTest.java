package dev.cdccache.client.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.cache.CacheTransaction.Isolation;
import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Loads that return what an ORM's persistence context (JPA's first-level cache) read earlier instead of reading the
 * database: {@code EntityManager.find} of an entity already managed returns it without a query, and a query whose
 * rows are already managed returns the managed instances without refreshing them. A map stands for the database,
 * {@link Context} for a persistence context that tells {@link PersistenceContextReads} when it opens and closes, as
 * the starter's Hibernate session listener does; each interleaving is written out in order.
 */
class PersistenceContextLoadsTest {

    private final CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
    private final Map<Long, String> database = new ConcurrentHashMap<>();

    @AfterEach
    void cleanUp() {
        while (CacheTransaction.current() != null) {
            CacheTransaction.current().rollback();
        }
        assertThat(PersistenceContextReads.isOpen()).as("every context of the test was closed").isFalse();
    }

    /** An EntityManager: fills itself on the first read of an id, then returns what it holds. */
    private final class Context implements AutoCloseable {
        final Map<Long, String> managed = new HashMap<>();
        final PersistenceContextReads.Opening opening = PersistenceContextReads.opened();

        String find(long id) {
            return managed.computeIfAbsent(id, database::get);
        }

        Map<Long, String> findAll(Set<? extends Long> ids) {
            Map<Long, String> found = new HashMap<>();
            ids.forEach(id -> found.put(id, find(id)));
            return found;
        }

        @Override
        public void close() {
            opening.close();
        }
    }

    private void commitAndInvalidate(long id, String value) {
        database.put(id, value);
        cache.invalidate(id);
    }

    @Test
    void aContextDroppedWithoutBeingClosedNoLongerHoldsBackLoadsOnItsThreadOnceCollected() throws Exception {
        database.put(1L, "value");
        // e.g. a query created through Spring's shared EntityManager and never run: its EntityManager is never closed
        WeakReference<PersistenceContextReads.Opening> dropped = new WeakReference<>(PersistenceContextReads.opened());
        commitAndInvalidate(1L, "value");
        for (int i = 0; i < 500 && dropped.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertThat(dropped.get()).as("collected").isNull();

        assertThat(PersistenceContextReads.isOpen()).as("nothing can answer from the dropped context").isFalse();
        assertThat(cache.get(1L, database::get)).isEqualTo("value");
        assertThat(cache.getIfPresent(1L)).as("stamped now, not as of the dropped context's opening")
                .isEqualTo("value");
    }

    @Test
    void aReadCommittedLoadOfAnEntityManagedBeforeAnAppliedInvalidationIsNotCached() {
        database.put(1L, "old");
        try (CacheTransaction tx = CacheTransaction.begin().isolation(Isolation.READ_COMMITTED);
                Context em = new Context()) {       // opened by the transaction manager at the begin
            em.find(1L);                            // e.g. a listing query early in the transaction
            commitAndInvalidate(1L, "new");         // another writer; its invalidation is applied
            assertThat(cache.get(1L, em::find)).isEqualTo("old"); // a @Cacheable lookup: em.find, no query
            tx.commit();
        }

        assertThat(cache.getIfPresent(1L)).as("read before the invalidation, through the persistence context")
                .isNull();
    }

    @Test
    void aTransactionalLoadOfAnEntityManagedBeforeTheTransactionBeganIsNotCached() {
        database.put(1L, "old");
        try (Context em = new Context()) {             // open-in-view: opened when the web request starts
            em.find(1L);                               // the web request reads, outside any transaction
            commitAndInvalidate(1L, "new");
            try (CacheTransaction tx = CacheTransaction.begin()) { // then calls a @Transactional service
                assertThat(cache.get(1L, em::find)).isEqualTo("old");
                tx.commit();
            }
        }

        assertThat(cache.getIfPresent(1L)).isNull();
    }

    @Test
    void aLoadOfAnEntityManagedByARequestScopedEntityManagerBeforeAnAppliedInvalidationIsNotCached() {
        database.put(1L, "old");
        try (Context em = new Context()) {
            em.find(1L);
            commitAndInvalidate(1L, "new");

            assertThat(cache.get(1L, em::find)).isEqualTo("old");
        }
        assertThat(cache.getIfPresent(1L)).isNull();
    }

    @Test
    void aBulkLoadThroughAnOpenContextIsCachedOnlyForKeysNotInvalidatedSinceItOpened() {
        database.put(1L, "old");
        database.put(2L, "two");
        try (Context em = new Context()) {
            em.find(1L);
            commitAndInvalidate(1L, "new");

            assertThat(cache.getAll(List.of(1L, 2L), em::findAll)).containsEntry(1L, "old").containsEntry(2L, "two");
        }
        assertThat(cache.getIfPresent(1L)).isNull();
        assertThat(cache.getIfPresent(2L)).as("not invalidated since the context opened").isEqualTo("two");
    }

    @Test
    void aStampTakenThroughTheLoadApiStandsForTheContextsOpening() {
        database.put(1L, "old");
        try (Context em = new Context()) {
            em.find(1L);
            commitAndInvalidate(1L, "new");

            LoadStamp<Long> stamp = cache.beginLoad(1L);
            assertThat(cache.putLoaded(stamp, em.find(1L))).isFalse();
            assertThat(cache.put(1L, em.find(1L))).as("a put computed from the context's entities").isFalse();
        }
        assertThat(cache.getIfPresent(1L)).isNull();
    }

    @Test
    void loadsAfterTheContextClosedAreStampedAsUsual() {
        database.put(1L, "old");
        try (Context em = new Context()) {
            em.find(1L);
            commitAndInvalidate(1L, "new");
        }

        assertThat(cache.get(1L, database::get)).isEqualTo("new");
        assertThat(cache.getIfPresent(1L)).isEqualTo("new");
    }

    @Test
    void aContextClosedOnAnotherThreadNoLongerHoldsBackLoadsOnTheThreadThatOpenedIt() throws Exception {
        database.put(1L, "old");
        Context em = new Context();
        commitAndInvalidate(1L, "new");
        CompletableFuture.runAsync(em::close).get(10, TimeUnit.SECONDS); // an asynchronous request completing

        assertThat(PersistenceContextReads.isOpen()).isFalse();
        assertThat(cache.get(1L, database::get)).isEqualTo("new");
        assertThat(cache.getIfPresent(1L)).isEqualTo("new");
    }

    @Test
    void aMissInsideAContextDoesNotLeadALoadThatOtherThreadsWaitFor() throws Exception {
        database.put(1L, "old");
        CountDownLatch contextLoading = new CountDownLatch(1);
        CountDownLatch otherMissed = new CountDownLatch(1);
        String fromContext;
        try (Context em = new Context()) {
            em.find(1L);
            commitAndInvalidate(1L, "new");
            Function<Long, String> slowFind = id -> {
                contextLoading.countDown();
                await(otherMissed);
                return em.find(id);
            };
            CompletableFuture<String> other = CompletableFuture.supplyAsync(() -> {
                await(contextLoading);
                return cache.get(1L, id -> {
                    otherMissed.countDown();
                    return database.get(id);
                });
            });
            fromContext = cache.get(1L, slowFind);

            assertThat(other.get(10, TimeUnit.SECONDS)).as("another thread's miss reads the database itself")
                    .isEqualTo("new");
        }
        assertThat(fromContext).isEqualTo("old");
        assertThat(cache.getIfPresent(1L)).isEqualTo("new");
    }

    @Test
    void aRefreshRunOnTheCallersThreadInsideAContextIsStampedAsOfItsOpening() throws Exception {
        AtomicLong clock = new AtomicLong(1_000_000);
        CaffeineInvalidatingCache<Long, String> refreshing = TestCaches.ready(10, Runnable::run, clock);
        database.put(1L, "v1");
        try (Context em = new Context()) {
            em.find(1L);                                    // the context holds v1
            database.put(1L, "v2");
            refreshing.invalidate(1L);
            CompletableFuture.runAsync(() -> refreshing.get(1L, database::get)).get(10, TimeUnit.SECONDS);
            clock.addAndGet(50);                            // v2 is now old enough to be refreshed when hit

            assertThat(refreshing.get(1L, em::find)).isEqualTo("v2"); // the hit's refresh runs here, through em.find
        }
        assertThat(refreshing.getIfPresent(1L)).as("the refresh read v1 from the context").isEqualTo("v2");
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
