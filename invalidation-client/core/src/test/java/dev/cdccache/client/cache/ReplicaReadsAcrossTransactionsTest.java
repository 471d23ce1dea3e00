package dev.cdccache.client.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.cache.CacheTransaction.Isolation;
import dev.cdccache.client.position.AppliedPositions;
import dev.cdccache.client.position.ReplicaFence;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Replica reads whose fence ran at a different moment than the load's stamp: at a transaction's connection
 * checkout (before the loads of the transaction are stamped), or on a connection held across several loads. A map
 * stands for the primary, another for the replica, and a fake connection answers {@code MASTER_GTID_WAIT} with
 * whether the replica has applied the position asked for. Each interleaving is written out in order.
 */
class ReplicaReadsAcrossTransactionsTest {

    private final CaffeineInvalidatingCache<Long, String> cache = TestCaches.ready();
    private final AppliedPositions positions = new AppliedPositions();
    private final ReplicaFence fence = new ReplicaFence(positions, Duration.ofMillis(1));
    private final Map<Long, String> replica = new ConcurrentHashMap<>();
    /** The sequence number of the last GTID of domain 0 the replica has applied. */
    private long replicaApplied;
    private final Connection replicaConnection = fakeReplicaConnection();

    @AfterEach
    void cleanUp() {
        while (CacheTransaction.current() != null) {
            CacheTransaction.current().rollback();
        }
    }

    /** A writer commits {@code gtid} on the primary, and the client applies its invalidation; the replica lags. */
    private void changeAppliedByTheClientOnly(long id, long sequence) {
        positions.advance("0-1-" + sequence);
        cache.invalidate(id);
    }

    @Test
    void aRepeatableReadTransactionWhoseReplicaCheckoutWasBehindCachesNothingItRead() {
        replica.put(1L, "old");
        changeAppliedByTheClientOnly(1L, 2); // the replica has not applied 0-1-2

        try (CacheTransaction tx = CacheTransaction.begin().isolation(Isolation.REPEATABLE_READ)) {
            assertThat(fence.await(replicaConnection)).as("checkout: the replica is behind").isFalse();
            assertThat(cache.get(1L, replica::get)).isEqualTo("old");
            tx.commit();
        }

        assertThat(cache.getIfPresent(1L)).as("a read from a replica known to be behind is not cached").isNull();
    }

    @Test
    void aReadCommittedTransactionWhoseReplicaCheckoutWasBehindCachesNothingItRead() {
        replica.put(1L, "old");
        changeAppliedByTheClientOnly(1L, 2);

        try (CacheTransaction tx = CacheTransaction.begin().isolation(Isolation.READ_COMMITTED)) {
            assertThat(fence.await(replicaConnection)).isFalse();
            assertThat(cache.get(1L, replica::get)).isEqualTo("old");
            tx.commit();
        }

        assertThat(cache.getIfPresent(1L)).isNull();
    }

    @Test
    void aPutInsideATransactionWhoseReplicaCheckoutWasBehindIsNotCached() {
        replica.put(1L, "old");
        changeAppliedByTheClientOnly(1L, 2);

        try (CacheTransaction tx = CacheTransaction.begin()) {
            assertThat(fence.await(replicaConnection)).isFalse();
            LoadStamp<Long> stamp = cache.beginLoad(1L);
            cache.putLoaded(stamp, replica.get(1L));
            cache.put(2L, "put after the same read");
            tx.commit();
        }

        assertThat(cache.getIfPresent(1L)).isNull();
        assertThat(cache.getIfPresent(2L)).isNull();
    }

    @Test
    void aSessionStampDrawnBeforeABehindReplicaReadIsNotCached() {
        // An ORM session draws its sequence value when it begins, reads (its connection checkout is fenced and found
        // behind), and stamps only when it puts what it read (Hibernate's putFromLoad): after the fence.
        replica.put(1L, "old");
        changeAppliedByTheClientOnly(1L, 2);

        long drawn = InvalidationSequence.next();
        assertThat(fence.await(replicaConnection)).isFalse();
        String read = replica.get(1L);
        LoadStamp<Long> stamp = cache.beginLoadAsOf(1L, drawn);

        assertThat(cache.putLoaded(stamp, read)).isFalse();
        assertThat(cache.getIfPresent(1L)).isNull();
    }

    @Test
    void aBehindReplicaReadBeforeTheTransactionBeganDoesNotConcernIt() {
        replica.put(1L, "old");
        changeAppliedByTheClientOnly(1L, 2);
        assertThat(fence.await(replicaConnection)).isFalse(); // an earlier request on this pooled thread

        replicaApplied = 2;
        replica.put(1L, "new");
        try (CacheTransaction tx = CacheTransaction.begin()) {
            assertThat(fence.await(replicaConnection)).isTrue();
            cache.get(1L, replica::get);
            tx.commit();
        }

        assertThat(cache.getIfPresent(1L)).isEqualTo("new");
    }

    @Test
    void aReadCommittedLoadAfterAnInvalidationAppliedSinceTheCheckoutFenceIsNotCached() {
        positions.advance("0-1-1");
        replicaApplied = 1;
        replica.put(1L, "old");

        try (CacheTransaction tx = CacheTransaction.begin().isolation(Isolation.READ_COMMITTED)) {
            assertThat(fence.await(replicaConnection)).as("checkout: caught up").isTrue();
            changeAppliedByTheClientOnly(1L, 2); // committed on the primary, invalidated, not yet on the replica
            assertThat(cache.get(1L, replica::get)).isEqualTo("old"); // the miss stamps now: after the invalidation
            tx.commit();
        }

        assertThat(cache.getIfPresent(1L)).as("the replica had not applied 0-1-2 when it was read").isNull();
    }

    @Test
    void aReadCommittedTransactionOnAFencedReplicaStillCachesWhatWasNotInvalidatedSinceTheFence() {
        positions.advance("0-1-1");
        replicaApplied = 1;
        replica.put(1L, "one");
        replica.put(2L, "two");

        try (CacheTransaction tx = CacheTransaction.begin().isolation(Isolation.READ_COMMITTED)) {
            assertThat(fence.await(replicaConnection)).isTrue();
            changeAppliedByTheClientOnly(1L, 2);
            cache.get(2L, replica::get);
            tx.commit();
        }

        assertThat(cache.getIfPresent(2L)).isEqualTo("two");
    }

    @Test
    void aFenceInsideASavepointConcernsTheLoadsOfItsTransactionAfterIt() {
        positions.advance("0-1-1");
        replicaApplied = 1;
        replica.put(1L, "old");

        try (CacheTransaction tx = CacheTransaction.begin().isolation(Isolation.READ_COMMITTED)) {
            CacheTransaction savepoint = CacheTransaction.beginSavepoint();
            assertThat(fence.await(replicaConnection)).isTrue();
            savepoint.commit();
            changeAppliedByTheClientOnly(1L, 2);
            cache.get(1L, replica::get);
            tx.commit();
        }

        assertThat(cache.getIfPresent(1L)).isNull();
    }

    @Test
    void aLoadOnAReplicaConnectionCheckedOutBeforeAnAppliedInvalidationIsNotCached() throws Exception {
        positions.advance("0-1-1");
        replicaApplied = 1;
        replica.put(1L, "old");

        try (Connection held = fence.awaitHeld(replicaConnection)) { // checkout at the request's first statement
            changeAppliedByTheClientOnly(1L, 2);
            assertThat(cache.get(1L, replica::get)).isEqualTo("old"); // same connection, no new checkout
        }

        assertThat(cache.getIfPresent(1L)).isNull();
    }

    @Test
    void onceTheHeldConnectionIsClosedLoadsOnANewCheckoutAreCachedAgain() throws Exception {
        positions.advance("0-1-1");
        replicaApplied = 1;
        replica.put(1L, "old");
        try (Connection held = fence.awaitHeld(replicaConnection)) {
            changeAppliedByTheClientOnly(1L, 2);
        }
        replicaApplied = 2;
        replica.put(1L, "new");

        try (Connection next = fence.awaitHeld(replicaConnection)) {
            assertThat(cache.get(1L, replica::get)).isEqualTo("new");
        }

        assertThat(cache.getIfPresent(1L)).isEqualTo("new");
    }

    @Test
    void whileAConnectionFoundBehindIsHeldNothingLoadedOnItsThreadIsCached() throws Exception {
        positions.advance("0-1-2");
        replicaApplied = 1;
        replica.put(1L, "old");

        try (Connection held = fence.awaitHeld(replicaConnection)) {
            assertThat(cache.get(1L, replica::get)).isEqualTo("old");
            assertThat(cache.get(2L, id -> "unrelated")).isEqualTo("unrelated");
        }

        assertThat(cache.getIfPresent(1L)).isNull();
        assertThat(cache.getIfPresent(2L)).as("stamped after the behind fence, but read while it was held").isNull();
    }

    /** A connection whose only statement is the GTID wait: 0 if the replica applied the position, -1 if not. */
    private Connection fakeReplicaConnection() {
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "prepareStatement" -> fakeWait();
                    case "isClosed" -> false;
                    case "close" -> null;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private PreparedStatement fakeWait() {
        String[] position = new String[1];
        return (PreparedStatement) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {PreparedStatement.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "setString" -> {
                        position[0] = (String) args[1];
                        yield null;
                    }
                    case "setDouble", "close" -> null;
                    case "executeQuery" -> fakeResult(applied(position[0]) ? 0L : -1L);
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private boolean applied(String position) {
        long wanted = Long.parseLong(position.substring(position.lastIndexOf('-') + 1));
        return replicaApplied >= wanted;
    }

    private ResultSet fakeResult(long value) {
        boolean[] consumed = new boolean[1];
        return (ResultSet) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ResultSet.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "next" -> {
                        boolean first = !consumed[0];
                        consumed[0] = true;
                        yield first;
                    }
                    case "getObject", "getLong" -> value;
                    case "close" -> null;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
