package dev.cdccache.client.cache;

/**
 * The invalidation generation of one key (and of its whole cache) taken before a database read. A value
 * read after the stamp is cached only if neither generation moved, i.e. no invalidation that could concern
 * the value was applied while it was being read.
 *
 * @param <K> key type
 */
public final class LoadStamp<K> {

    /** Marks a stamp taken while the client was not ready: such loads are never cached. */
    static final long NOT_CACHEABLE = -1;

    private final K key;
    private final int stripe;
    private final long keyGeneration;
    private final long cacheGeneration;
    private final long startedAtMillis;
    /** {@link ReplicaReads#mark()} of the stamping thread when the stamp was taken. */
    private final long replicaMark;

    LoadStamp(K key, int stripe, long keyGeneration, long cacheGeneration, long startedAtMillis, long replicaMark) {
        this.key = key;
        this.stripe = stripe;
        this.keyGeneration = keyGeneration;
        this.cacheGeneration = cacheGeneration;
        this.startedAtMillis = startedAtMillis;
        this.replicaMark = replicaMark;
    }

    public K key() {
        return key;
    }

    /** Epoch milliseconds at which the stamp was taken (the load's start). */
    public long startedAtMillis() {
        return startedAtMillis;
    }

    /** This stamp, made one whose load is never cached. */
    LoadStamp<K> notCacheable() {
        return new LoadStamp<>(key, stripe, keyGeneration, NOT_CACHEABLE, startedAtMillis, replicaMark);
    }

    int stripe() {
        return stripe;
    }

    long keyGeneration() {
        return keyGeneration;
    }

    long cacheGeneration() {
        return cacheGeneration;
    }

    long replicaMark() {
        return replicaMark;
    }
}
