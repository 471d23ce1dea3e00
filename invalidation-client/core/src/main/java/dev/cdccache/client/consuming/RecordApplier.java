package dev.cdccache.client.consuming;

import dev.cdccache.client.InvalidationListener;
import dev.cdccache.client.eviction.EvictionRouter;
import dev.cdccache.client.metrics.BadInputLog;
import dev.cdccache.client.metrics.ClientMetrics;
import dev.cdccache.client.metrics.ErrorReason;
import dev.cdccache.client.metrics.LogThrottle;
import dev.cdccache.client.parsing.ChangeEvent;
import dev.cdccache.client.parsing.EnvelopeParser;
import dev.cdccache.client.parsing.MalformedEventException;
import dev.cdccache.client.parsing.RowColumns;
import dev.cdccache.client.position.ProvenPositions;
import dev.cdccache.client.staleness.HeartbeatCoverage;
import dev.cdccache.client.staleness.StalenessGuard;
import dev.cdccache.contract.HeartbeatTable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies what a poll returned, record by record: change events to the caches (then to the listeners),
 * heartbeats to the coverage and the guard; bad input is counted, logged (rate-limited) with
 * topic/partition/offset and made safe by evicting the caches of its table. Changes when the handling of one
 * record changes. Consumer thread only.
 */
final class RecordApplier {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeConsumer.class);
    /** Longest {@code cdc-connector} header value taken (the connector's name is at most 190 characters). */
    private static final int MAX_HEADER_BYTES = 190 * 4;

    private final Consumer<byte[], byte[]> consumer;
    private final EvictionRouter router;
    private final String heartbeatTopic;
    private final HeartbeatCoverage coverage;
    private final StalenessGuard guard;
    private final ClientMetrics metrics;
    private final BadInputLog badInput;
    private final List<InvalidationListener> listeners;
    private final LongSupplier clock;
    private final int maxMessageBytes;
    private final boolean heartbeatRequired;
    private final long maxClockSkewMillis;
    private final ProvenPositions proven;
    /** Bound topics whose records without a {@code cdc-connector} header were reported (once each). */
    private final Set<String> unattributedReported = new HashSet<>();
    private final EnvelopeParser parser = new EnvelopeParser();
    /** Per bound topic and the heartbeat topic: the row columns an event of it is parsed with. */
    private final Map<String, RowColumns> columnsByTopic;
    /** One report a minute per listener class. */
    private final LogThrottle listenerFailureLog;

    RecordApplier(Consumer<byte[], byte[]> consumer, EvictionRouter router, String heartbeatTopic,
            HeartbeatCoverage coverage, StalenessGuard guard, ClientMetrics metrics, BadInputLog badInput,
            List<InvalidationListener> listeners, LongSupplier clock, int maxMessageBytes, boolean heartbeatRequired,
            long maxClockSkewMillis, ProvenPositions proven) {
        this.consumer = consumer;
        this.router = router;
        this.heartbeatTopic = heartbeatTopic;
        this.coverage = coverage;
        this.guard = guard;
        this.metrics = metrics;
        this.badInput = badInput;
        this.listeners = List.copyOf(listeners);
        this.clock = clock;
        this.maxMessageBytes = maxMessageBytes;
        this.heartbeatRequired = heartbeatRequired;
        this.maxClockSkewMillis = maxClockSkewMillis;
        this.proven = proven;
        this.listenerFailureLog = new LogThrottle(clock, 60_000);
        this.columnsByTopic = columnsByTopic(router, heartbeatTopic, !this.listeners.isEmpty());
    }

    /**
     * The columns parsed per topic: the key columns of the caches bound to it, the heartbeat row's columns on the
     * heartbeat topic; every column as soon as a listener is registered, since listeners see whole rows. The
     * columns of the other topics are skipped undecoded: most of a wide row, and most of the parsing cost.
     */
    private static Map<String, RowColumns> columnsByTopic(EvictionRouter router, String heartbeatTopic,
            boolean listeners) {
        Map<String, RowColumns> columns = new HashMap<>();
        if (listeners) {
            return columns; // every topic falls back to all columns
        }
        for (String topic : router.topics()) {
            columns.put(topic, RowColumns.only(router.keyColumnsOf(topic)));
        }
        if (!router.isBound(heartbeatTopic)) {
            columns.put(heartbeatTopic, RowColumns.only(Set.copyOf(HeartbeatTable.COLUMNS)));
        }
        return Map.copyOf(columns);
    }

    /**
     * Applies a poll batch record by record. {@code poll} has already moved the positions past the whole batch,
     * so a record that throws must not take the records after it along: each failure is caught, counted, logged
     * and made safe on its own. An {@link Error} other than a stack overflow (out of memory...) is not something
     * to continue through: the positions are moved back to the first record not handled, and it is rethrown for
     * the loop to back off and restart.
     */
    void applyAll(ConsumerRecords<byte[], byte[]> records) {
        List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>(records.count());
        records.forEach(batch::add);
        for (int i = 0; i < batch.size(); i++) {
            ConsumerRecord<byte[], byte[]> record = batch.get(i);
            try {
                apply(record);
            } catch (RuntimeException | StackOverflowError e) {
                recordFailed(record, e);
            } catch (Error e) {
                recordFailed(record, e);
                rewindTo(batch, i + 1);
                throw e;
            }
        }
    }

    private void recordFailed(ConsumerRecord<byte[], byte[]> record, Throwable failure) {
        String topic = record.topic();
        metrics.error(ErrorReason.RECORD_FAILURE);
        boolean data = !topic.equals(heartbeatTopic);
        badInput.log(ErrorReason.RECORD_FAILURE, topic, record.partition(), record.offset(), failure.toString()
                + (data ? "; evicted the caches of this table" : "; heartbeat ignored"));
        if (data) {
            router.evictAllOf(topic);
        }
    }

    /** The row columns events of {@code topic} are parsed with. */
    RowColumns columnsOf(String topic) {
        return columnsByTopic.getOrDefault(topic, RowColumns.all());
    }

    /** Positions every partition of the batch at its first record from {@code from} on, so none is skipped. */
    private void rewindTo(List<ConsumerRecord<byte[], byte[]>> batch, int from) {
        Map<TopicPartition, Long> firstUnhandled = new HashMap<>();
        for (int i = from; i < batch.size(); i++) {
            ConsumerRecord<byte[], byte[]> r = batch.get(i);
            firstUnhandled.putIfAbsent(new TopicPartition(r.topic(), r.partition()), r.offset());
        }
        firstUnhandled.forEach(consumer::seek);
    }

    /** Applies one record; anything it throws is the caller's to make safe. */
    void apply(ConsumerRecord<byte[], byte[]> record) {
        String topic = record.topic();
        metrics.eventConsumed(topic);
        byte[] value = record.value();
        if (value == null) {
            return; // tombstone: the delete event before it already evicted
        }
        if (value.length > maxMessageBytes) {
            metrics.error(ErrorReason.OVERSIZED);
            badInput.log(ErrorReason.OVERSIZED, topic, record.partition(), record.offset(),
                    value.length + " bytes > max-message-size " + maxMessageBytes + "; evicted the caches of this table");
            router.evictAllOf(topic);
            return;
        }
        ChangeEvent event;
        try {
            event = parser.parse(topic, record.partition(), record.offset(), value, columnsOf(topic));
        } catch (MalformedEventException e) {
            ErrorReason reason = switch (e.reason()) {
                case MALFORMED_JSON -> ErrorReason.MALFORMED_JSON;
                case NOT_AN_ENVELOPE -> ErrorReason.NOT_AN_ENVELOPE;
                case UNEXPECTED_OPERATION -> ErrorReason.UNEXPECTED_OPERATION;
            };
            metrics.error(reason);
            badInput.log(reason, topic, record.partition(), record.offset(), e.getMessage()
                    + (topic.equals(heartbeatTopic) ? "" : "; evicted the caches of this table"));
            router.evictAllOf(topic);
            return;
        }
        if (topic.equals(heartbeatTopic) && !router.isBound(topic)) {
            applyHeartbeat(record, event);
            return;
        }
        if (heartbeatRequired && router.isBound(topic)) {
            noteConnector(record);
        }
        router.apply(event);
        // After the evictions: what a read floor waits for (ProvenPositions).
        proven.eventApplied(topic, record.partition(), event.gtid());
        String table = router.tableOf(topic); // configured, bounded: never a tag taken from the payload
        if (event.sourceTimestampMillis() > 0 && table != null) {
            metrics.invalidationLag(table, clock.getAsLong() - event.sourceTimestampMillis());
        }
        for (InvalidationListener listener : listeners) {
            try {
                listener.onApplied(event);
            } catch (RuntimeException e) {
                listenerFailed(listener, record, e);
            }
            // A listener that leaves the thread interrupted (e.g. restoring the flag after a blocking call it made)
            // would make every later Kafka call throw: cleared here, where the listener can be named.
            if (Thread.interrupted()) {
                listenerFailed(listener, record, new IllegalStateException("the listener left the consumer thread "
                        + "interrupted; the interrupt was cleared (listeners must not block or interrupt)"));
            }
        }
    }

    /**
     * The topic is fed by the connector named in the record's header: its proof waits for that connector's
     * heartbeats too. A connector first seen feeding it after the client was ready evicts its caches (their
     * entries were proven without that connector). A record without the header cannot be attributed: the topic
     * rests on the connectors whose heartbeats list its tables, as with a single connector.
     */
    private void noteConnector(ConsumerRecord<byte[], byte[]> record) {
        String connector = connectorHeader(record);
        if (connector == null) {
            if (unattributedReported.add(record.topic())) {
                LOG.info("Records of {} carry no {} header (a legacy connector, or Kafka Connect without the header "
                        + "transform): if several connectors publish into it, the client cannot wait for each of them",
                        record.topic(), ChangeConsumer.CONNECTOR_HEADER);
            }
            return;
        }
        if (coverage.fedBy(record.topic(), connector)) {
            Set<String> evicted = router.evictAllOf(record.topic());
            metrics.unprovenEvicted(HeartbeatCoverage.ResetReason.NEW_COVERAGE.tag(), evicted.size());
        }
    }

    /** Counted every time; logged with its stack trace at most once a minute per listener class, not per event. */
    private void listenerFailed(InvalidationListener listener, ConsumerRecord<byte[], byte[]> record, RuntimeException e) {
        metrics.error(ErrorReason.LISTENER_FAILURE);
        long suppressed = listenerFailureLog.admit(listener.getClass().getName());
        if (suppressed != LogThrottle.HELD_BACK) {
            LOG.warn("Invalidation listener {} failed on {}-{}@{}{}; the event was applied to the caches",
                    listener.getClass().getName(), record.topic(), record.partition(), record.offset(),
                    suppressed > 0 ? " (" + suppressed + " more failures since the last report)" : "", e);
        }
    }

    private void applyHeartbeat(ConsumerRecord<byte[], byte[]> record, ChangeEvent event) {
        HeartbeatCoverage.Heartbeat heartbeat = event.after() == null ? null : HeartbeatReader.read(event.after());
        if (heartbeat == null) {
            metrics.error(ErrorReason.BAD_HEARTBEAT);
            badInput.log(ErrorReason.BAD_HEARTBEAT, event.topic(), event.partition(), event.offset(),
                    "heartbeat without a usable 'id' or 'ts' column");
            return;
        }
        long now = clock.getAsLong();
        HeartbeatCoverage.Outcome outcome = coverage.accept(connectorHeader(record), heartbeat, now);
        if (outcome.status() == HeartbeatCoverage.Status.REJECTED) {
            metrics.error(ErrorReason.REJECTED_HEARTBEAT);
            return;
        }
        if (outcome.aheadMillis() > maxClockSkewMillis) {
            metrics.error(ErrorReason.FUTURE_HEARTBEAT);
            badInput.log(ErrorReason.FUTURE_HEARTBEAT, event.topic(), event.partition(), event.offset(),
                    "heartbeat of '" + outcome.connector() + "' dated " + outcome.aheadMillis() + " ms ahead of this "
                            + "host's clock (database clock ahead, or the row was updated by hand); it proves only up"
                            + " to now minus the measured skew of " + outcome.skewMillis() + " ms");
        }
        metrics.clockSkew(coverage.clockSkews(now).values().stream().mapToLong(Long::longValue).max().orElse(0));
        if (!outcome.resetTables().isEmpty()) {
            Set<String> evicted = router.evictAllOfTables(outcome.resetTables());
            metrics.unprovenEvicted(outcome.resetReason().tag(), evicted.size());
        }
        guard.heartbeatApplied(outcome.tsMillis());
        proven.heartbeatApplied(outcome.connector(), event.gtid());
        metrics.heartbeatLag(now - outcome.tsMillis());
    }

    /** The {@code cdc-connector} header (UTF-8), or {@code null} if absent. */
    static String connectorHeader(ConsumerRecord<byte[], byte[]> record) {
        Header header = record.headers().lastHeader(ChangeConsumer.CONNECTOR_HEADER);
        if (header == null || header.value() == null || header.value().length > MAX_HEADER_BYTES) {
            return null;
        }
        return new String(header.value(), StandardCharsets.UTF_8);
    }
}
