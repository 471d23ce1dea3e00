package dev.cdccache.client.cache;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The {@link InvalidationSequence} value current at the latest invalidation of each stripe of keys (the stripes
 * of {@link InvalidationGenerations}) and of the whole cache. Lets a stamp taken now stand for one taken at an
 * earlier sequence value: it does if nothing of its stripe was invalidated since.
 */
final class InvalidationSequenceMarks {

    private final AtomicLongArray stripes = new AtomicLongArray(InvalidationGenerations.STRIPES);
    private final AtomicLong all = new AtomicLong();
    private final AtomicLong latest = new AtomicLong();

    /** Called by an invalidation of a key of {@code stripe}, before its generation moves. */
    void markKey(int stripe) {
        long now = InvalidationSequence.current();
        stripes.accumulateAndGet(stripe, now, Math::max);
        latest.accumulateAndGet(now, Math::max);
    }

    /** Called by an invalidation of every entry (and when the cache starts accepting), before the generation moves. */
    void markAll() {
        long now = InvalidationSequence.current();
        all.accumulateAndGet(now, Math::max);
        latest.accumulateAndGet(now, Math::max);
    }

    /**
     * Whether no invalidation of {@code stripe} or of the cache recorded a value at or after {@code sequence}, i.e.
     * none started after that value was drawn.
     */
    boolean unchangedSince(int stripe, long sequence) {
        return all.get() < sequence && stripes.get(stripe) < sequence;
    }

    /** The largest value recorded by any invalidation of this cache, 0 if none. */
    long latest() {
        return latest.get();
    }
}
