package dev.cdccache.connector.testing;

import org.awaitility.Awaitility;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads change topics from the beginning of every partition (assign + seekToBeginning, no consumer
 * group) on a background thread and keeps every record, for assertions.
 */
public final class ChangeTopicRecorder implements AutoCloseable {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /**
     * One consumed change record; {@code value} is null for a tombstone. {@code timestamp} is the record's Kafka
     * timestamp: the broker's append time on a topic with {@code message.timestamp.type=LogAppendTime}.
     */
    public record Change(String topic, int partition, long offset, String key, JsonNode keyJson, JsonNode value,
            long receivedNanos, Map<String, String> headers, long timestamp) {
        public boolean isTombstone() {
            return value == null;
        }

        public String op() {
            return value == null ? null : value.path("op").asString();
        }
    }

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final List<Change> changes = new CopyOnWriteArrayList<>();
    private final List<TopicPartition> partitions = new ArrayList<>();
    private final Thread poller;
    private volatile boolean running = true;
    private volatile Map<TopicPartition, Long> positions = Map.of();
    private final Object lock = new Object();

    public ChangeTopicRecorder(String bootstrapServers, Collection<String> topics) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "20");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        for (String topic : topics) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(10));
            if (infos == null || infos.isEmpty()) {
                throw new IllegalStateException("topic " + topic + " does not exist");
            }
            infos.forEach(i -> partitions.add(new TopicPartition(i.topic(), i.partition())));
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        poller = new Thread(this::poll, "change-topic-recorder");
        poller.setDaemon(true);
        poller.start();
    }

    private void poll() {
        while (running) {
            synchronized (lock) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(20))) {
                    long now = System.nanoTime();
                    String key = r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
                    changes.add(new Change(r.topic(), r.partition(), r.offset(), key,
                            key == null ? null : JSON.readTree(key),
                            r.value() == null ? null : JSON.readTree(r.value()), now, headers(r), r.timestamp()));
                }
                Map<TopicPartition, Long> p = new java.util.HashMap<>();
                partitions.forEach(tp -> p.put(tp, consumer.position(tp)));
                positions = p;
            }
        }
    }

    private static Map<String, String> headers(ConsumerRecord<byte[], byte[]> record) {
        Map<String, String> headers = new java.util.LinkedHashMap<>();
        record.headers().forEach(h -> headers.put(h.key(), h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8)));
        return headers;
    }

    /** Everything consumed so far, in arrival order. */
    public List<Change> changes() {
        return List.copyOf(changes);
    }

    /** Changes of one topic. */
    public List<Change> changes(String topic) {
        return changes.stream().filter(c -> c.topic().equals(topic)).toList();
    }

    /** Waits until at least {@code count} changes match. */
    public List<Change> await(String topic, Predicate<Change> match, int count, Duration timeout) {
        Awaitility.await().atMost(timeout).pollInterval(Duration.ofMillis(10))
                .until(() -> changes(topic).stream().filter(match).count() >= count);
        return changes(topic).stream().filter(match).toList();
    }

    /** Waits until everything that is in Kafka now (the end offset of every partition) has been consumed. */
    public void awaitCaughtUp(Duration timeout) {
        Map<TopicPartition, Long> ends;
        synchronized (lock) {
            ends = consumer.endOffsets(partitions);
        }
        Awaitility.await().atMost(timeout).pollInterval(Duration.ofMillis(10)).until(() ->
                ends.entrySet().stream().allMatch(e -> positions.getOrDefault(e.getKey(), 0L) >= e.getValue()));
    }

    @Override
    public void close() {
        running = false;
        try {
            poller.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        consumer.close(Duration.ofSeconds(2));
    }
}
