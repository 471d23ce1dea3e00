package dev.cdccache.client.staleness;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * How far each connector's database clock is measurably ahead of this host's. A heartbeat cannot be received
 * before it was written, so {@code ts - receivedAt} is a lower bound of the database clock's lead at that moment
 * (the lead minus the pipeline latency of that heartbeat). The measured skew is the largest such bound over the
 * heartbeats received in the last {@link #WINDOW_MILLIS}, so that a lagging heartbeat (whose latency hides part
 * of the lead) does not lower it, while a clock that was corrected stops counting after the window. A clock that
 * is behind cannot be measured this way (it looks like latency) and needs no correction: it makes heartbeats look
 * older, never newer. Not thread-safe: used by the consumer thread only.
 */
final class ClockSkew {

    /** How long a measured lead counts. */
    static final long WINDOW_MILLIS = 60_000;

    private record Sample(long receivedAt, long leadMillis) {
    }

    private final Map<String, Deque<Sample>> samples = new HashMap<>();

    /**
     * Records one heartbeat of {@code connector} dated {@code tsMillis} and received at {@code receivedAt}.
     *
     * @return the connector's measured skew, including this heartbeat (0 if its clock is not measurably ahead)
     */
    long record(String connector, long tsMillis, long receivedAt) {
        Deque<Sample> own = samples.computeIfAbsent(connector, c -> new ArrayDeque<>());
        own.addLast(new Sample(receivedAt, tsMillis - receivedAt));
        return of(connector, receivedAt);
    }

    /** The measured skew of {@code connector} at {@code now}: 0 if not measurably ahead. */
    long of(String connector, long now) {
        Deque<Sample> own = samples.get(connector);
        if (own == null) {
            return 0;
        }
        while (!own.isEmpty() && now - own.peekFirst().receivedAt() > WINDOW_MILLIS) {
            own.removeFirst();
        }
        long max = 0;
        for (Sample sample : own) {
            max = Math.max(max, sample.leadMillis());
        }
        return max;
    }

    /** Every connector whose clock is measurably ahead at {@code now}, with its skew, by name. */
    Map<String, Long> ahead(long now) {
        Map<String, Long> ahead = new TreeMap<>();
        for (String connector : samples.keySet()) {
            long skew = of(connector, now);
            if (skew > 0) {
                ahead.put(connector, skew);
            }
        }
        return ahead;
    }

    /** Forgets a connector (its identity was replaced). */
    void forget(String connector) {
        samples.remove(connector);
    }
}
