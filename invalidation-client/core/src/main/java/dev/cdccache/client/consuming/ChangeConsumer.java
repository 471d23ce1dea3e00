package dev.cdccache.client.consuming;

import dev.cdccache.client.InvalidationListener;
import dev.cdccache.client.eviction.EvictionRouter;
import dev.cdccache.client.metrics.BadInputLog;
import dev.cdccache.client.metrics.ClientMetrics;
import dev.cdccache.client.metrics.ErrorReason;
import dev.cdccache.client.parsing.ChangeEvent;
import dev.cdccache.client.parsing.EnvelopeParser;
import dev.cdccache.client.parsing.MalformedEventException;
import dev.cdccache.client.staleness.StalenessGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer loop, run on one dedicated thread: reads every partition of the subscribed topics (assigned,
 * no consumer group: every instance gets every change), applies each event to the caches, and regularly
 * proves how far it has read.
 *
 * <p><b>Start.</b> Partitions existing at the first successful metadata lookup are positioned at their end
 * (the caches are empty, the past does not matter). Partitions that appear later (a topic the connector
 * creates on the first change of its table, or added partitions) are read from their beginning, since
 * everything in them was written after this client started.
 *
 * <p><b>Position checks</b> (every {@code position-check-interval}): note the time t and the latest heartbeat
 * applied, look for new topics/partitions, fetch the end offsets; once the positions reach those offsets,
 * every event produced before t has been applied, which advances the {@link StalenessGuard}'s watermark.
 * The first completed check makes the client ready.
 *
 * <p><b>Failures.</b> Kafka being unreachable only makes checks fail (the watermark stops, the guard takes
 * over); the loop retries. A position outside the log (retention or a broker that lost data) means events
 * were lost: the partition is moved to its end and then every cache bound to its topic is evicted.
 * Bad records are counted, logged (rate-limited) with topic/partition/offset and made safe.
 */
public final class ChangeConsumer implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeConsumer.class);

    private final Consumer<byte[], byte[]> consumer;
    private final EvictionRouter router;
    private final String heartbeatTopic;
    private final Set<String> subscribed;
    private final StalenessGuard guard;
    private final ClientMetrics metrics;
    private final BadInputLog badInput;
    private final EnvelopeParser parser = new EnvelopeParser();
    private final List<InvalidationListener> listeners;
    private final Runnable onReady;
    private final LongSupplier clock;
    private final Duration pollTimeout;
    private final long checkIntervalMillis;
    private final Duration requestTimeout;
    private final int maxMessageBytes;
    private final boolean requireTopics;

    private final Set<TopicPartition> assigned = new LinkedHashSet<>();
    private boolean initialListingDone;
    private boolean ready;
    private Map<TopicPartition, Long> targetEnds;
    private long checkStartedAt;
    private long heartbeatAtCheckStart;
    private Set<String> missingAtCheck = Set.of();
    private long nextCheckAt;
    private long lastFailureLog = Long.MIN_VALUE;
    private volatile boolean running = true;

    public ChangeConsumer(Consumer<byte[], byte[]> consumer, EvictionRouter router, String heartbeatTopic,
            StalenessGuard guard, ClientMetrics metrics, BadInputLog badInput, List<InvalidationListener> listeners,
            Runnable onReady, LongSupplier clock, Duration pollTimeout, Duration checkInterval, int maxMessageBytes,
            boolean requireTopics) {
        this.consumer = consumer;
        this.router = router;
        this.heartbeatTopic = heartbeatTopic;
        Set<String> topics = new TreeSet<>(router.topics());
        topics.add(heartbeatTopic);
        this.subscribed = Set.copyOf(topics);
        this.guard = guard;
        this.metrics = metrics;
        this.badInput = badInput;
        this.listeners = List.copyOf(listeners);
        this.onReady = onReady;
        this.clock = clock;
        this.pollTimeout = pollTimeout;
        this.checkIntervalMillis = checkInterval.toMillis();
        this.requestTimeout = Duration.ofMillis(Math.max(500, Math.min(5000, guard.maxStalenessMillis() / 2)));
        this.maxMessageBytes = maxMessageBytes;
        this.requireTopics = requireTopics;
    }

    /** The topics read: every bound table's topic and the heartbeat topic. */
    public Set<String> subscribedTopics() {
        return subscribed;
    }

    @Override
    public void run() {
        try {
            while (running) {
                step();
            }
        } finally {
            try {
                consumer.close(Duration.ofSeconds(2));
            } catch (RuntimeException e) {
                LOG.debug("Closing the Kafka consumer failed", e);
            }
        }
    }

    /** One iteration of the loop; package-visible for tests driving a mock consumer. */
    void step() {
        try {
            if (targetEnds == null && clock.getAsLong() >= nextCheckAt) {
                startCheck();
            }
            if (assigned.isEmpty()) {
                Thread.sleep(pollTimeout.toMillis());
            } else {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(pollTimeout);
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    handle(record);
                }
            }
            if (targetEnds != null) {
                tryCompleteCheck();
            }
        } catch (OffsetOutOfRangeException e) {
            recoverLostEvents(e.partitions());
        } catch (WakeupException | InterruptException e) {
            if (running) {
                LOG.debug("Consumer woken up while running", e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    /** Stops the loop; the thread running it closes the consumer. */
    public void stop() {
        running = false;
        consumer.wakeup();
    }

    private void startCheck() {
        long startedAt = clock.getAsLong();
        long heartbeat = guard.lastHeartbeat();
        Map<String, List<PartitionInfo>> topics = consumer.listTopics(requestTimeout);
        Set<String> missing = new TreeSet<>();
        List<TopicPartition> discovered = new ArrayList<>();
        for (String topic : subscribed) {
            List<PartitionInfo> partitions = topics.get(topic);
            if (partitions == null || partitions.isEmpty()) {
                missing.add(topic);
                continue;
            }
            for (PartitionInfo info : partitions) {
                TopicPartition tp = new TopicPartition(info.topic(), info.partition());
                if (!assigned.contains(tp)) {
                    discovered.add(tp);
                }
            }
        }
        if (!discovered.isEmpty()) {
            assigned.addAll(discovered);
            consumer.assign(assigned);
            if (initialListingDone) {
                consumer.seekToBeginning(discovered);
                LOG.info("Reading new partitions from their beginning: {}", discovered);
            } else {
                consumer.seekToEnd(discovered);
            }
            // Resolve the positions now: what was produced before this point is not needed (see class comment).
            for (TopicPartition tp : discovered) {
                consumer.position(tp, requestTimeout);
            }
        }
        if (!initialListingDone) {
            initialListingDone = true;
            if (!missing.isEmpty()) {
                LOG.info("Topics that do not exist yet (read from their beginning once they appear): {}", missing);
            }
        }
        Map<TopicPartition, Long> ends = assigned.isEmpty() ? Map.of() : consumer.endOffsets(assigned, requestTimeout);
        long lag = 0;
        for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            lag += Math.max(0, end.getValue() - consumer.position(end.getKey(), requestTimeout));
        }
        metrics.consumerLag(lag);
        targetEnds = new HashMap<>(ends);
        checkStartedAt = startedAt;
        heartbeatAtCheckStart = heartbeat;
        missingAtCheck = missing;
    }

    private void tryCompleteCheck() {
        for (Map.Entry<TopicPartition, Long> end : targetEnds.entrySet()) {
            if (consumer.position(end.getKey(), requestTimeout) < end.getValue()) {
                return;
            }
        }
        targetEnds = null;
        nextCheckAt = checkStartedAt + checkIntervalMillis;
        if (requireTopics && !missingAtCheck.isEmpty()) {
            guard.positionUnconfirmed("topics do not exist: " + missingAtCheck);
        } else {
            guard.positionsConfirmed(checkStartedAt, heartbeatAtCheckStart);
        }
        if (!ready) {
            ready = true;
            onReady.run();
            LOG.info("Positioned at the end of {} partitions of {}; caches are now filled on load", assigned.size(),
                    subscribed);
        }
    }

    private void handle(ConsumerRecord<byte[], byte[]> record) {
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
            event = parser.parse(topic, record.partition(), record.offset(), value);
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
            applyHeartbeat(event);
            return;
        }
        router.apply(event);
        if (event.sourceTimestampMillis() > 0) {
            String table = event.database() != null && event.table() != null
                    ? event.database() + "." + event.table() : topic;
            metrics.invalidationLag(table, clock.getAsLong() - event.sourceTimestampMillis());
        }
        for (InvalidationListener listener : listeners) {
            try {
                listener.onApplied(event);
            } catch (RuntimeException e) {
                LOG.warn("Invalidation listener failed on {}-{}@{}", topic, record.partition(), record.offset(), e);
            }
        }
    }

    private void applyHeartbeat(ChangeEvent event) {
        long commitMillis = HeartbeatReader.commitMillis(event.after());
        if (commitMillis < 0) {
            metrics.error(ErrorReason.BAD_HEARTBEAT);
            badInput.log(ErrorReason.BAD_HEARTBEAT, event.topic(), event.partition(), event.offset(),
                    "heartbeat without a usable 'ts' column");
            return;
        }
        guard.heartbeatApplied(commitMillis);
        metrics.heartbeatLag(clock.getAsLong() - commitMillis);
    }

    private void recoverLostEvents(Set<TopicPartition> partitions) {
        metrics.error(ErrorReason.OFFSET_OUT_OF_RANGE);
        LOG.warn("Positions outside the log for {} (events were lost): moving to the end and evicting every cache "
                + "bound to these topics", partitions);
        consumer.seekToEnd(partitions);
        Set<String> topics = new HashSet<>();
        for (TopicPartition tp : partitions) {
            consumer.position(tp, requestTimeout); // fix the new position before evicting (see class comment)
            topics.add(tp.topic());
        }
        topics.forEach(router::evictAllOf);
        targetEnds = null;
    }

    private void failed(RuntimeException e) {
        metrics.error(ErrorReason.CONSUMER_FAILURE);
        guard.positionUnconfirmed(e.getClass().getSimpleName() + ": " + e.getMessage());
        targetEnds = null;
        long now = clock.getAsLong();
        if (lastFailureLog == Long.MIN_VALUE || now - lastFailureLog > 30_000) {
            lastFailureLog = now;
            LOG.warn("Kafka consumer failed ({}); retrying. Caches fall back to max-staleness meanwhile",
                    e.toString());
        } else {
            LOG.debug("Kafka consumer failed again", e);
        }
        try {
            Thread.sleep(pollTimeout.toMillis());
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }
}
