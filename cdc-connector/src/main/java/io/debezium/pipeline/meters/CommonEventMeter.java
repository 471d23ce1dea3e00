/*
 * Replaces Debezium 3.5's io.debezium.pipeline.meters.CommonEventMeter (Apache License 2.0) on this
 * application's class path: the application's own classes come before its libraries, in the
 * executable jar as in tests. Same fields, constructor and methods; only the JMX LastEvent summary
 * is rendered when it is read instead of for every event.
 */
package io.debezium.pipeline.meters;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.connect.data.Struct;

import io.debezium.data.Envelope;
import io.debezium.pipeline.metrics.traits.CommonEventMetricsMXBean;
import io.debezium.pipeline.source.spi.EventMetadataProvider;
import io.debezium.pipeline.spi.OffsetContext;
import io.debezium.spi.schema.DataCollectionId;
import io.debezium.util.Clock;

/**
 * Debezium's per-event counters and the {@code LastEvent} summary, with the summary rendered lazily.
 *
 * <p>Debezium 3.5 renders the summary on the binlog thread for every event, and the rendering builds a
 * new Jackson {@code ObjectMapper} each time (SchemaUtil's record writer). On this project's bulk-update
 * benchmark that was 41-46% of the binlog thread and 57% of its allocation (docs/benchmarks.md). Here
 * the event keeps only what the summary needs - the source position, copied at once because the offset
 * context moves on, and the key, which is immutable - and the same text is produced by Debezium's own
 * {@link EventMetadataProvider#toSummaryString} when JMX reads the attribute.
 *
 * <p>Debezium fixed the cost upstream (debezium/debezium#7886, merged after 3.6.1). Remove this class
 * when the project moves to a Debezium release that has it; {@code CommonEventMeterShadowTest} fails
 * if this class and Debezium's stop having the same members.
 */
public class CommonEventMeter implements CommonEventMetricsMXBean {

    protected final AtomicLong totalNumberOfEventsSeen = new AtomicLong();
    protected final AtomicLong totalNumberOfCreateEventsSeen = new AtomicLong();
    protected final AtomicLong totalNumberOfUpdateEventsSeen = new AtomicLong();
    protected final AtomicLong totalNumberOfDeleteEventsSeen = new AtomicLong();
    private final AtomicLong numberOfEventsFiltered = new AtomicLong();
    protected final AtomicLong numberOfErroneousEvents = new AtomicLong();
    protected final AtomicLong lastEventTimestamp = new AtomicLong(-1);
    private volatile LastEvent lastEvent;

    private final Clock clock;
    private final EventMetadataProvider metadataProvider;

    public CommonEventMeter(Clock clock, EventMetadataProvider metadataProvider) {
        this.clock = clock;
        this.metadataProvider = metadataProvider;
    }

    public void onEvent(DataCollectionId source, OffsetContext offset, Object key, Struct value, Envelope.Operation operation) {
        updateCommonEventMetrics(operation);
        lastEvent = new LastEvent(source, metadataProvider.getEventSourcePosition(source, offset, key, value), key, value);
    }

    private void updateCommonEventMetrics() {
        updateCommonEventMetrics(null);
    }

    private void updateCommonEventMetrics(Envelope.Operation operation) {
        totalNumberOfEventsSeen.incrementAndGet();
        lastEventTimestamp.set(clock.currentTimeInMillis());
        if (operation != null) {
            switch (operation) {
                case CREATE -> totalNumberOfCreateEventsSeen.incrementAndGet();
                case UPDATE -> totalNumberOfUpdateEventsSeen.incrementAndGet();
                case DELETE -> totalNumberOfDeleteEventsSeen.incrementAndGet();
                default -> {
                }
            }
        }
    }

    public void onFilteredEvent() {
        numberOfEventsFiltered.incrementAndGet();
        updateCommonEventMetrics();
    }

    public void onFilteredEvent(Envelope.Operation operation) {
        numberOfEventsFiltered.incrementAndGet();
        updateCommonEventMetrics(operation);
    }

    public void onErroneousEvent() {
        numberOfErroneousEvents.incrementAndGet();
        updateCommonEventMetrics();
    }

    public void onErroneousEvent(Envelope.Operation operation) {
        numberOfErroneousEvents.incrementAndGet();
        updateCommonEventMetrics(operation);
    }

    @Override
    public String getLastEvent() {
        LastEvent event = lastEvent;
        return event == null ? null : event.render();
    }

    @Override
    public long getMilliSecondsSinceLastEvent() {
        return lastEventTimestamp.get() == -1 ? -1 : clock.currentTimeInMillis() - lastEventTimestamp.get();
    }

    @Override
    public long getTotalNumberOfEventsSeen() {
        return totalNumberOfEventsSeen.get();
    }

    @Override
    public long getTotalNumberOfCreateEventsSeen() {
        return totalNumberOfCreateEventsSeen.get();
    }

    @Override
    public long getTotalNumberOfUpdateEventsSeen() {
        return totalNumberOfUpdateEventsSeen.get();
    }

    @Override
    public long getTotalNumberOfDeleteEventsSeen() {
        return totalNumberOfDeleteEventsSeen.get();
    }

    @Override
    public long getNumberOfEventsFiltered() {
        return numberOfEventsFiltered.get();
    }

    @Override
    public long getNumberOfErroneousEvents() {
        return numberOfErroneousEvents.get();
    }

    public void reset() {
        totalNumberOfEventsSeen.set(0);
        totalNumberOfCreateEventsSeen.set(0);
        totalNumberOfUpdateEventsSeen.set(0);
        totalNumberOfDeleteEventsSeen.set(0);
        lastEventTimestamp.set(-1);
        numberOfEventsFiltered.set(0);
        numberOfErroneousEvents.set(0);
        lastEvent = null;
    }

    /** What the summary of one event needs, rendered by Debezium's own formatter on read. */
    private record LastEvent(DataCollectionId source, Map<String, String> position, Object key, Struct value) {

        String render() {
            // The provider's default summary, with the position as it was when the event was seen.
            EventMetadataProvider asSeen = new EventMetadataProvider() {
                @Override
                public java.time.Instant getEventTimestamp(DataCollectionId s, OffsetContext o, Object k, Struct v) {
                    return null;
                }

                @Override
                public Map<String, String> getEventSourcePosition(DataCollectionId s, OffsetContext o, Object k, Struct v) {
                    return position;
                }

                @Override
                public String getTransactionId(DataCollectionId s, OffsetContext o, Object k, Struct v) {
                    return null;
                }
            };
            return asSeen.toSummaryString(source, null, key, value);
        }
    }
}
