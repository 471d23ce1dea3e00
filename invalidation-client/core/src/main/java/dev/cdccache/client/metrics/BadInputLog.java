package dev.cdccache.client.metrics;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs bad input with its topic/partition/offset, once per reason and topic per minute, with the number of
 * occurrences suppressed in between, so a flood of poison messages does not flood the log.
 */
public final class BadInputLog {

    private static final Logger LOG = LoggerFactory.getLogger(BadInputLog.class);
    private static final long INTERVAL_MILLIS = 60_000;

    private final LongSupplier clock;
    private final Map<String, long[]> state = new ConcurrentHashMap<>();

    public BadInputLog(LongSupplier clock) {
        this.clock = clock;
    }

    public void log(ErrorReason reason, String topic, int partition, long offset, String detail) {
        String key = reason.tag() + '|' + topic;
        long now = clock.getAsLong();
        long[] s = state.computeIfAbsent(key, k -> new long[] {Long.MIN_VALUE, 0});
        synchronized (s) {
            if (s[0] != Long.MIN_VALUE && now - s[0] < INTERVAL_MILLIS) {
                s[1]++;
                return;
            }
            long suppressed = s[1];
            s[0] = now;
            s[1] = 0;
            LOG.warn("Bad change event ({}) at {}-{}@{}: {}{}; made safe and skipped", reason.tag(), topic, partition,
                    offset, detail, suppressed > 0 ? " (" + suppressed + " more like it since the last report)" : "");
        }
    }
}
