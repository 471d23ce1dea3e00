package dev.cdccache.client.metrics;

import dev.cdccache.client.Internal;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs bad input with its topic/partition/offset, once per reason and topic per minute, with the number of
 * occurrences suppressed in between, so a flood of poison messages does not flood the log.
 */
@Internal
public final class BadInputLog {

    private static final Logger LOG = LoggerFactory.getLogger(BadInputLog.class);

    private final LogThrottle throttle;

    public BadInputLog(LongSupplier clock) {
        this.throttle = new LogThrottle(clock, 60_000);
    }

    public void log(ErrorReason reason, String topic, int partition, long offset, String detail) {
        long suppressed = throttle.admit(reason.tag() + '|' + topic);
        if (suppressed != LogThrottle.HELD_BACK) {
            LOG.warn("Bad change event ({}) at {}-{}@{}: {}{}; made safe and skipped", reason.tag(), topic, partition,
                    offset, detail, suppressed > 0 ? " (" + suppressed + " more like it since the last report)" : "");
        }
    }
}
