package dev.cdccache.client;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

/**
 * Kafka's MockConsumer with topics of one partition each and a producer-like {@link #produce}: records land at
 * the end offset, are delivered once the partition is assigned, and the end offsets move with them. Polls that
 * return nothing pause briefly so the client's loop does not spin a core.
 */
class MockKafkaTopics extends MockConsumer<byte[], byte[]> {

    private final Map<TopicPartition, Long> ends = new HashMap<>();

    MockKafkaTopics() {
        super("none");
    }

    @Override
    public synchronized ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
        ConsumerRecords<byte[], byte[]> records = super.poll(timeout);
        if (records.isEmpty()) {
            try {
                wait(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return records;
    }

    synchronized void createTopic(String topic) {
        updatePartitions(topic, List.of(new PartitionInfo(topic, 0, null, null, null)));
        TopicPartition tp = new TopicPartition(topic, 0);
        ends.put(tp, 0L);
        updateBeginningOffsets(Map.of(tp, 0L));
        updateEndOffsets(Map.of(tp, 0L));
    }

    synchronized void produce(String topic, String value) {
        produce(topic, value, Map.of());
    }

    /** Produces one record with the given headers (UTF-8 values). */
    synchronized void produce(String topic, String value, Map<String, String> headers) {
        produce(topic, value == null ? null : value.getBytes(StandardCharsets.UTF_8), headers);
    }

    /** Produces one record of raw bytes (e.g. not UTF-8, not JSON). */
    synchronized void produce(String topic, byte[] value) {
        produce(topic, value, Map.of());
    }

    private void produce(String topic, byte[] bytes, Map<String, String> headers) {
        TopicPartition tp = new TopicPartition(topic, 0);
        long offset = ends.get(tp);
        if (assignment().contains(tp)) {
            RecordHeaders recordHeaders = new RecordHeaders();
            headers.forEach((k, v) -> recordHeaders.add(k, v.getBytes(StandardCharsets.UTF_8)));
            addRecord(new ConsumerRecord<>(topic, 0, offset, ConsumerRecord.NO_TIMESTAMP, TimestampType.NO_TIMESTAMP_TYPE,
                    -1, bytes == null ? -1 : bytes.length, null, bytes, recordHeaders, java.util.Optional.empty()));
        }
        ends.put(tp, offset + 1);
        updateEndOffsets(Map.of(tp, offset + 1));
    }

    /** Produces every record while holding the consumer's lock, so that one poll returns them all. */
    synchronized void produceBatch(Map<String, String> headers, List<Map.Entry<String, String>> records) {
        for (Map.Entry<String, String> record : records) {
            produce(record.getKey(), record.getValue(), headers);
        }
    }
}
