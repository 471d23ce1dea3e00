package dev.cdccache.client.spring;

import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/** An in-memory Kafka (MockConsumer) with empty topics, so a client becomes ready without a broker. */
final class MockKafka {

    private MockKafka() {
    }

    static InvalidationClient readyClient(InvalidationClientConfig config) {
        return readyClient(config, java.util.Set.of());
    }

    /** A client over topics that exist, except {@code missingTopics}. */
    static InvalidationClient readyClient(InvalidationClientConfig config, java.util.Set<String> missingTopics) {
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("none") {
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
        };
        InvalidationClient client = new InvalidationClient(config, props -> consumer);
        List<String> topics = new java.util.ArrayList<>();
        topics.add(config.heartbeatTopic());
        config.caches().forEach(c -> c.sources().forEach(s -> topics.add(s.topic(config.topicPrefix()))));
        topics.removeAll(missingTopics);
        for (String topic : topics) {
            consumer.updatePartitions(topic, List.of(new PartitionInfo(topic, 0, null, null, null)));
            consumer.updateBeginningOffsets(Map.of(new TopicPartition(topic, 0), 0L));
            consumer.updateEndOffsets(Map.of(new TopicPartition(topic, 0), 0L));
        }
        return client;
    }
}
