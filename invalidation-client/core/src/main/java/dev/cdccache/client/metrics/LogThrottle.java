package dev.cdccache.client.metrics;

import dev.cdccache.client.Internal;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Lets one report per key through per interval and counts the ones it holds back, so that a repeated failure
 * (poison messages, a listener that always throws) is logged, not flooded.
 */
@Internal
public final class LogThrottle {

    /** {@link #admit} for an occurrence that is held back. */
    public static final long HELD_BACK = -1;

    private final LongSupplier clock;
    private final long intervalMillis;
    private final Map<String, long[]> state = new ConcurrentHashMap<>();

    public LogThrottle(LongSupplier clock, long intervalMillis) {
        this.clock = clock;
        this.intervalMillis = intervalMillis;
    }

    /**
     * Whether to report this occurrence of {@code key}: {@link #HELD_BACK} if one was reported less than an interval
     * ago, else the number of occurrences held back since the last report (0 for the first).
     */
    public long admit(String key) {
        long now = clock.getAsLong();
        long[] s = state.computeIfAbsent(key, k -> new long[] {Long.MIN_VALUE, 0});
        synchronized (s) {
            if (s[0] != Long.MIN_VALUE && now - s[0] < intervalMillis) {
                s[1]++;
                return HELD_BACK;
            }
            long heldBack = s[1];
            s[0] = now;
            s[1] = 0;
            return heldBack;
        }
    }
}
