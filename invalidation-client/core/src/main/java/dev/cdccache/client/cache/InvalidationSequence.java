package dev.cdccache.client.cache;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A JVM-wide, strictly increasing sequence that orders database reads against applied invalidations, for
 * callers that must take their stamp before they know which keys they will read (an ORM session reads rows of
 * many keys after one stamp; see {@link dev.cdccache.client.InvalidatingCache#beginLoadAsOf}).
 *
 * <p>A caller draws {@link #next()} BEFORE it reads the database. Every invalidation records
 * {@link #current()} in its cache before it bumps the key's generation. So if the change behind an invalidation
 * was committed before the value was drawn, the read sees the change; if not, the invalidation recorded a value
 * at least as large as the one drawn, and the load is not cached.
 *
 * <p>Values are epoch milliseconds times {@value #PER_MILLISECOND} plus a counter (the scheme of Hibernate's
 * {@code SimpleTimestamper}), never ahead of the clock: {@link #epochMillis(long)} of a value is a time at or
 * before the moment it was drawn. Thread-safe and lock-free.
 */
public final class InvalidationSequence {

    /** How many values one millisecond holds. */
    public static final int PER_MILLISECOND = 1 << 12;

    private static final AtomicLong VALUE = new AtomicLong();

    private InvalidationSequence() {
    }

    /** A new value, larger than every value handed out or read through {@link #current()} before. */
    public static long next() {
        while (true) {
            long base = System.currentTimeMillis() * PER_MILLISECOND;
            long last = base + PER_MILLISECOND - 1;
            for (long current = VALUE.get(), update = Math.max(base, current + 1); update < last;
                    current = VALUE.get(), update = Math.max(base, current + 1)) {
                if (VALUE.compareAndSet(current, update)) {
                    return update;
                }
            }
            // This millisecond's values are used up: wait for the clock rather than run ahead of it.
            Thread.onSpinWait();
        }
    }

    /** The latest value handed out by {@link #next()} (0 before the first). */
    public static long current() {
        return VALUE.get();
    }

    /** The epoch milliseconds a value was drawn in (or earlier). */
    public static long epochMillis(long sequence) {
        return sequence / PER_MILLISECOND;
    }
}
