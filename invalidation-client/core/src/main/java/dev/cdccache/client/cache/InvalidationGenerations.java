package dev.cdccache.client.cache;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counters that move on every invalidation: one per stripe of keys (by hash) and one for the whole cache.
 * A load compares them before and after; keys sharing a stripe only cause an occasional value to be
 * returned without being cached, never a stale value to be cached.
 */
final class InvalidationGenerations {

    static final int STRIPES = 4096;

    private final AtomicLongArray keyGenerations = new AtomicLongArray(STRIPES);
    private final AtomicLong cacheGeneration = new AtomicLong();
    private volatile boolean accepting;

    static int stripe(Object key) {
        int h = key.hashCode();
        h ^= (h >>> 16);
        h *= 0x45d9f3b;
        h ^= (h >>> 16);
        return h & (STRIPES - 1);
    }

    <K> LoadStamp<K> stamp(K key, long nowMillis) {
        int stripe = stripe(key);
        // Order matters: cache generation first, so an evict-all racing with this stamp is seen at put time.
        long cache = accepting ? cacheGeneration.get() : LoadStamp.NOT_CACHEABLE;
        return new LoadStamp<>(key, stripe, keyGenerations.get(stripe), cache, nowMillis, ReplicaReads.mark());
    }

    /** Cache generation for a stamp taken without an object (single-flight path). */
    long cacheGenerationForStamp() {
        return accepting ? cacheGeneration.get() : LoadStamp.NOT_CACHEABLE;
    }

    long keyGeneration(int stripe) {
        return keyGenerations.get(stripe);
    }

    /** Whether nothing that could concern a value read after the given generations were taken has been applied. */
    boolean unchanged(int stripe, long keyGeneration, long cacheGeneration) {
        return cacheGeneration != LoadStamp.NOT_CACHEABLE && cacheGeneration == this.cacheGeneration.get()
                && keyGeneration == keyGenerations.get(stripe);
    }

    /** Whether the whole cache was invalidated since {@code cacheGeneration} was taken (or it was not cacheable). */
    boolean cacheInvalidatedSince(long cacheGeneration) {
        return cacheGeneration == LoadStamp.NOT_CACHEABLE || cacheGeneration != this.cacheGeneration.get();
    }

    void invalidateKey(Object key) {
        keyGenerations.incrementAndGet(stripe(key));
    }

    void invalidateAll() {
        cacheGeneration.incrementAndGet();
    }

    /** Starts accepting loads; loads stamped before are never cached. */
    void startAccepting() {
        accepting = true;
        cacheGeneration.incrementAndGet();
    }

    boolean accepting() {
        return accepting;
    }
}
