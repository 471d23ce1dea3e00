package dev.cdccache.client.cache;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A database transaction as the caches see it: while one is open on a thread, what that thread loads into a
 * cache is stored only if that cannot keep a stale or a never-committed value.
 *
 * <p><b>Why.</b> Under REPEATABLE READ (the MariaDB and MySQL default) a transaction reads the snapshot taken at
 * its first read. A load inside it that takes its stamp after another writer's change was committed and its
 * invalidation applied still reads the old row, and the stamp alone would let it be cached for good. And a
 * transaction sees its own uncommitted writes: a value it read after writing and then rolled back was never in
 * the database.
 *
 * <p><b>What changes while a transaction is open on the calling thread</b> (every cache of every client):
 * <ul>
 *   <li>Loaded and put values are kept aside and stored when the transaction commits ({@link #commit()}), each only
 *       if no invalidation of its key (or of its cache) was applied since its stamp. {@link #rollback()} stores
 *       nothing. Until then other threads do not see them; the loading thread gets its value returned as usual.</li>
 *   <li>Stamps stand for the transaction's begin, not for the moment of the load: a value is cached only if no
 *       invalidation of its key was applied since {@link #begin()} was called, which must happen before the
 *       transaction's first read. With {@link Isolation#READ_COMMITTED} every statement reads what is committed
 *       when it runs, so a load's own stamp is enough and loads late in a long transaction stay cacheable (unless
 *       a replica connection was fenced inside the transaction: its reads are proven only as of that fence, so
 *       loads then stand for the first one, see {@link ReplicaReads#fencing()}); with
 *       {@link Isolation#READ_UNCOMMITTED} nothing read is cached. Puts without a preceding load (no stamp)
 *       always stand for the begin, whatever the isolation.</li>
 *   <li>A miss inside a transaction never leads a single-flight load that other threads wait for (they must not
 *       receive a value from this transaction's snapshot or its uncommitted writes); it may join one already
 *       running outside a transaction.</li>
 * </ul>
 * Hits are unchanged: a cached value is a committed one, possibly newer than the transaction's snapshot, and not
 * the transaction's own uncommitted writes.
 *
 * <pre>{@code
 * try (CacheTransaction tx = CacheTransaction.begin().isolation(Isolation.REPEATABLE_READ)) {
 *     connection.setAutoCommit(false);
 *     Coupon c = coupons.get(42L, id -> load(connection, id));
 *     connection.commit();
 *     tx.commit();   // after the database commit succeeded; close() without it rolls back
 * }
 * }</pre>
 *
 * <p>The Spring Boot starter does this for every Spring-managed transaction. Transactions are bound to the thread
 * that began them and nest: {@link #begin()} inside an open transaction starts an independent one (a suspended
 * outer transaction, as with {@code REQUIRES_NEW}); {@link #beginSavepoint()} starts a part of the current one
 * whose values join it on {@link #commit()} and are dropped on {@link #rollback()}. Completing a transaction also
 * completes (as rolled back) any transaction begun inside it that was left open. Not thread-safe: use it on the
 * thread that began it.
 */
public final class CacheTransaction implements AutoCloseable {

    /** The isolation level of the database transaction, which decides how far back a stamp must reach. */
    public enum Isolation {
        /** Reads other transactions' uncommitted writes: nothing read is cached. */
        READ_UNCOMMITTED,
        /** Every statement reads what is committed when it runs: a load's own stamp is enough. */
        READ_COMMITTED,
        /** Reads the snapshot of the transaction's first read: stamps stand for the begin. */
        REPEATABLE_READ,
        /** As {@link #REPEATABLE_READ}. */
        SERIALIZABLE,
        /** Not known (the server's default): treated as {@link #REPEATABLE_READ}. */
        UNKNOWN
    }

    /** At most this many values are kept aside per transaction; later loads are returned but not cached. */
    public static final int MAX_DEFERRED = 10_000;

    private static final ThreadLocal<CacheTransaction> CURRENT = new ThreadLocal<>();

    /** No replica connection was fenced inside the transaction. */
    private static final long NO_FENCE = Long.MIN_VALUE;

    private enum State { OPEN, COMMITTED, ROLLED_BACK }

    private final CacheTransaction enclosing;
    private final Thread thread;
    private final long sequence;
    private final boolean savepoint;
    private Isolation isolation;
    private Map<Deferred.Id, Deferred<?, ?>> deferred;
    private State state = State.OPEN;
    /** The sequence value of the first replica fence inside this transaction (savepoints record it here too). */
    private long firstFence = NO_FENCE;

    private CacheTransaction(CacheTransaction enclosing, long sequence, boolean savepoint, Isolation isolation) {
        this.enclosing = enclosing;
        this.thread = Thread.currentThread();
        this.sequence = sequence;
        this.savepoint = savepoint;
        this.isolation = isolation;
    }

    /**
     * Begins a transaction on this thread, isolation {@link Isolation#UNKNOWN} until {@link #isolation(Isolation)}
     * says otherwise. Call it BEFORE the database transaction's first read.
     */
    public static CacheTransaction begin() {
        CacheTransaction tx = new CacheTransaction(CURRENT.get(), InvalidationSequence.next(), false,
                Isolation.UNKNOWN);
        CURRENT.set(tx);
        return tx;
    }

    /**
     * Begins a savepoint inside the current transaction: it reads the same snapshot, its values join the enclosing
     * transaction on {@link #commit()} and are dropped on {@link #rollback()} (a rollback to the savepoint).
     *
     * @throws IllegalStateException if no transaction is open on this thread
     */
    public static CacheTransaction beginSavepoint() {
        CacheTransaction current = CURRENT.get();
        if (current == null) {
            throw new IllegalStateException("no transaction is open on this thread");
        }
        CacheTransaction tx = new CacheTransaction(current, current.sequence, true, current.isolation);
        CURRENT.set(tx);
        return tx;
    }

    /** The innermost transaction open on this thread, or {@code null}. */
    public static CacheTransaction current() {
        return CURRENT.get();
    }

    /** Sets the isolation level; loads stamped after this use it. Returns this transaction. */
    public CacheTransaction isolation(Isolation isolation) {
        checkThread();
        this.isolation = Objects.requireNonNull(isolation, "isolation");
        return this;
    }

    /** The isolation level loads of this transaction are stamped for. */
    public Isolation isolation() {
        return isolation;
    }

    /** The {@link InvalidationSequence} value drawn when the transaction began. */
    public long beganAt() {
        return sequence;
    }

    /** Whether neither {@link #commit()} nor {@link #rollback()} was called yet. */
    public boolean isOpen() {
        return state == State.OPEN;
    }

    /**
     * The database transaction committed: stores the values kept aside (each only if no invalidation of it was
     * applied since its stamp), or hands them to the enclosing transaction if this is a savepoint.
     *
     * @throws IllegalStateException if called on another thread or after completion
     */
    public void commit() {
        List<Deferred<?, ?>> toStore = complete(State.COMMITTED);
        if (savepoint) {
            if (enclosing.state == State.OPEN) {
                toStore.forEach(enclosing::keep);
            }
            return;
        }
        for (Deferred<?, ?> value : toStore) {
            value.store();
        }
    }

    /** The database transaction rolled back: nothing it loaded is cached. */
    public void rollback() {
        for (Deferred<?, ?> value : complete(State.ROLLED_BACK)) {
            value.dropped(CaffeineInvalidatingCache.DropReason.ROLLED_BACK);
        }
    }

    /** Rolls back unless committed or rolled back already. */
    @Override
    public void close() {
        if (state == State.OPEN) {
            rollback();
        }
    }

    private List<Deferred<?, ?>> complete(State outcome) {
        checkThread();
        if (state != State.OPEN) {
            throw new IllegalStateException("transaction already " + state.name().toLowerCase());
        }
        // Transactions begun inside this one and left open (a completion that was never signalled) end with it, as
        // rolled back: their values are not known to be committed.
        for (CacheTransaction inner = CURRENT.get(); inner != null && inner != this; inner = inner.enclosing) {
            if (inner.state == State.OPEN) {
                inner.rollback();
            }
        }
        state = outcome;
        if (enclosing == null) {
            CURRENT.remove(); // no ThreadLocal entry left behind on pooled threads
        } else {
            CURRENT.set(enclosing);
        }
        List<Deferred<?, ?>> values = deferred == null ? List.of() : new ArrayList<>(deferred.values());
        deferred = null;
        return values;
    }

    private void checkThread() {
        if (Thread.currentThread() != thread) {
            throw new IllegalStateException("a cache transaction is used by the thread that began it, "
                    + thread.getName() + ", not " + Thread.currentThread().getName());
        }
    }

    /** A replica connection is being fenced on this thread, as of {@code fenceSequence}; see ReplicaReads#fencing. */
    static void fenced(long fenceSequence) {
        CacheTransaction root = root(CURRENT.get());
        if (root != null && root.firstFence == NO_FENCE) {
            root.firstFence = fenceSequence;
        }
    }

    /** The transaction a savepoint is part of (itself if it is none). */
    private static CacheTransaction root(CacheTransaction tx) {
        while (tx != null && tx.savepoint) {
            tx = tx.enclosing;
        }
        return tx;
    }

    /**
     * The sequence value a READ COMMITTED load of this transaction stands for: none (the load's own moment) unless
     * a replica connection was fenced inside the transaction, whose reads are proven only as of its first fence.
     */
    long readCommittedAsOf() {
        return root(this).firstFence;
    }

    /** Whether {@link #readCommittedAsOf()} names a fence. */
    static boolean isFence(long asOf) {
        return asOf != NO_FENCE;
    }

    /** The stamp a load of {@code key} takes inside this transaction. */
    <K> LoadStamp<K> stamp(CaffeineInvalidatingCache<K, ?> cache, K key) {
        return switch (isolation) {
            // A replica connection found behind at its checkout (before this load) is the one this load reads.
            case READ_COMMITTED -> ReplicaReads.behindSince(sequence) ? cache.stampNow(key).notCacheable()
                    : isFence(readCommittedAsOf()) ? cache.stampAsOf(key, readCommittedAsOf())
                    : cache.stampNow(key);
            case READ_UNCOMMITTED -> cache.stampNow(key).notCacheable();
            default -> cache.stampAsOf(key, sequence);
        };
    }

    /** The stamp of a put without a preceding load: it can only stand for the begin. */
    <K> LoadStamp<K> stampForPut(CaffeineInvalidatingCache<K, ?> cache, K key) {
        return isolation == Isolation.READ_UNCOMMITTED ? cache.stampNow(key).notCacheable()
                : cache.stampAsOf(key, sequence);
    }

    /** Keeps a loaded value aside until commit; the latest value of a key replaces an earlier one. */
    <K, V> void keep(CaffeineInvalidatingCache<K, V> cache, LoadStamp<K> stamp, V value) {
        keep(new Deferred<>(cache, stamp, value));
    }

    private void keep(Deferred<?, ?> value) {
        if (deferred == null) {
            deferred = new LinkedHashMap<>();
        }
        if (deferred.size() >= MAX_DEFERRED && !deferred.containsKey(value.id())) {
            value.dropped(CaffeineInvalidatingCache.DropReason.OVERFLOW);
            return;
        }
        deferred.put(value.id(), value);
    }

    @Override
    public String toString() {
        return "CacheTransaction[" + (savepoint ? "savepoint, " : "") + isolation + ", " + state.name().toLowerCase()
                + (deferred == null ? "" : ", " + deferred.size() + " values kept") + "]";
    }

    /** A value kept aside for one key of one cache. */
    private record Deferred<K, V>(CaffeineInvalidatingCache<K, V> cache, LoadStamp<K> stamp, V value) {

        record Id(CaffeineInvalidatingCache<?, ?> cache, Object key) {

            @Override
            public boolean equals(Object other) {
                return other instanceof Id id && id.cache == cache && id.key.equals(key);
            }

            @Override
            public int hashCode() {
                return System.identityHashCode(cache) * 31 + key.hashCode();
            }
        }

        Id id() {
            return new Id(cache, stamp.key());
        }

        void store() {
            cache.storeCommitted(stamp, value);
        }

        void dropped(CaffeineInvalidatingCache.DropReason reason) {
            cache.deferredDropped(reason);
        }
    }
}
