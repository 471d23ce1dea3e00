package io.debezium.pipeline.meters;

import io.debezium.data.Envelope;
import io.debezium.pipeline.metrics.traits.CommonEventMetricsMXBean;
import io.debezium.pipeline.source.spi.EventMetadataProvider;
import io.debezium.pipeline.spi.OffsetContext;
import io.debezium.spi.schema.DataCollectionId;
import io.debezium.util.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.connect.data.Struct;

/**
 * The event counters behind Debezium's snapshot and streaming JMX metrics ({@code TotalNumberOfEventsSeen},
 * {@code LastEvent}, ...), written by this project. It stands in for Debezium 3.5's
 * {@code io.debezium.pipeline.meters.CommonEventMeter}: the application's own classes come before its libraries on
 * the class path (in the executable jar as in tests), so Debezium's metrics classes, which create and call it, get
 * this one. Only the class name and the members Debezium's code calls are Debezium's; {@code
 * CommonEventMeterShadowTest} checks that every such member exists here with the descriptor Debezium's bytecode
 * links against.
 *
 * <p>Why it exists: Debezium 3.5 renders the {@code LastEvent} text of every event on the binlog thread as it
 * happens, and that rendering builds a new Jackson {@code ObjectMapper} each time: about half of the binlog
 * thread's time and most of the connector's allocation in a bulk write (docs/benchmarks.md). Here an event only
 * remembers what its text needs, its source position (copied at once, because the offset context moves on) and
 * its key (immutable), and the text is rendered by Debezium's own {@link EventMetadataProvider#toSummaryString}
 * when JMX reads {@link #getLastEvent()}, i.e. rarely.
 *
 * <p>Thread-safety: the {@code on...} methods may be called from several threads, the getters from any thread.
 */
public class CommonEventMeter implements CommonEventMetricsMXBean {

    private static final long NO_EVENT = -1;

    private final Clock clock;
    private final EventMetadataProvider metadataProvider;

    private final LongAdder events = new LongAdder();
    private final LongAdder creates = new LongAdder();
    private final LongAdder updates = new LongAdder();
    private final LongAdder deletes = new LongAdder();
    private final LongAdder filtered = new LongAdder();
    private final LongAdder erroneous = new LongAdder();
    private volatile long lastEventMillis = NO_EVENT;
    private volatile SeenEvent lastEvent;

    /**
     * @param clock the time source of {@link #getMilliSecondsSinceLastEvent()}
     * @param metadataProvider the connector's view of an event's source position and summary
     */
    public CommonEventMeter(Clock clock, EventMetadataProvider metadataProvider) {
        this.clock = clock;
        this.metadataProvider = metadataProvider;
    }

    /** Counts an event that was emitted, and remembers it as the last event. */
    public void onEvent(DataCollectionId source, OffsetContext offset, Object key, Struct value, Envelope.Operation operation) {
        count(operation);
        lastEvent = new SeenEvent(source, metadataProvider.getEventSourcePosition(source, offset, key, value), key);
    }

    /** Counts an event that a filter dropped. */
    public void onFilteredEvent() {
        onFilteredEvent(null);
    }

    /** Counts an event of the given operation that a filter dropped. */
    public void onFilteredEvent(Envelope.Operation operation) {
        filtered.increment();
        count(operation);
    }

    /** Counts an event that could not be processed. */
    public void onErroneousEvent() {
        onErroneousEvent(null);
    }

    /** Counts an event of the given operation that could not be processed. */
    public void onErroneousEvent(Envelope.Operation operation) {
        erroneous.increment();
        count(operation);
    }

    /** Back to the state of a new meter (Debezium resets its metrics when a task restarts). */
    public void reset() {
        for (LongAdder counter : new LongAdder[] {events, creates, updates, deletes, filtered, erroneous}) {
            counter.reset();
        }
        lastEventMillis = NO_EVENT;
        lastEvent = null;
    }

    @Override
    public String getLastEvent() {
        SeenEvent event = lastEvent;
        return event == null ? null : event.summary();
    }

    @Override
    public long getMilliSecondsSinceLastEvent() {
        long last = lastEventMillis;
        return last == NO_EVENT ? NO_EVENT : clock.currentTimeInMillis() - last;
    }

    @Override
    public long getTotalNumberOfEventsSeen() {
        return events.sum();
    }

    @Override
    public long getTotalNumberOfCreateEventsSeen() {
        return creates.sum();
    }

    @Override
    public long getTotalNumberOfUpdateEventsSeen() {
        return updates.sum();
    }

    @Override
    public long getTotalNumberOfDeleteEventsSeen() {
        return deletes.sum();
    }

    @Override
    public long getNumberOfEventsFiltered() {
        return filtered.sum();
    }

    @Override
    public long getNumberOfErroneousEvents() {
        return erroneous.sum();
    }

    /** Every kind of event counts as seen; creates, updates and deletes also count on their own. */
    private void count(Envelope.Operation operation) {
        events.increment();
        lastEventMillis = clock.currentTimeInMillis();
        if (operation == Envelope.Operation.CREATE) {
            creates.increment();
        } else if (operation == Envelope.Operation.UPDATE) {
            updates.increment();
        } else if (operation == Envelope.Operation.DELETE) {
            deletes.increment();
        }
    }

    /** What the {@code LastEvent} text of one event needs, kept until somebody reads it. */
    private record SeenEvent(DataCollectionId source, Map<String, String> position, Object key) {

        String summary() {
            return new AtPosition(position).toSummaryString(source, null, key, null);
        }
    }

    /** Debezium's summary rendering, fed with the position remembered when the event was seen. */
    private record AtPosition(Map<String, String> position) implements EventMetadataProvider {

        @Override
        public Map<String, String> getEventSourcePosition(DataCollectionId source, OffsetContext offset, Object key, Struct value) {
            return position;
        }

        @Override
        public Instant getEventTimestamp(DataCollectionId source, OffsetContext offset, Object key, Struct value) {
            return null; // not part of the summary
        }

        @Override
        public String getTransactionId(DataCollectionId source, OffsetContext offset, Object key, Struct value) {
            return null; // not part of the summary
        }
    }
}
