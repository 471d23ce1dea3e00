package dev.cdccache.client.spring.benchmark;

import dev.cdccache.client.CacheDefinition;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.InvalidationClientConfig;
import dev.cdccache.client.StalenessCheck;
import dev.cdccache.client.StalenessPolicy;
import dev.cdccache.client.consuming.ChangeConsumer;
import dev.cdccache.client.position.CommitPosition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

/** A ready client over an in-memory Kafka (no broker), so benchmarks measure the cache path only. */
final class BenchmarkClients {

    static final String SPEC = "maximumSize=100000";

    private BenchmarkClients() {
    }

    /** The value cached for a key (a fresh object per load, as a loader returns). */
    static String valueOf(Long key) {
        return "value-" + key;
    }

    /** A ready client with the default settings (policy {@code bypass-cache}, the default staleness check). */
    static InvalidationClient readyClient() {
        return readyClient(StalenessPolicy.BYPASS_CACHE, null);
    }

    /**
     * A ready client that stays fresh ({@code check} {@code null} for the default check): without required
     * heartbeats every completed position check (every 200 ms against the in-memory log) advances the watermark,
     * as heartbeats do for a healthy client. With
     * required heartbeats and none arriving, entries would stop being served max-staleness after the set-up
     * and a benchmark would measure misses.
     */
    static InvalidationClient readyClient(StalenessPolicy policy, StalenessCheck check) {
        return readyClient(policy, check, 0);
    }

    /** {@link #readyClient(StalenessPolicy, StalenessCheck)} with consistency sampling of one hit in {@code oneIn}. */
    static InvalidationClient readyClient(StalenessPolicy policy, StalenessCheck check, int samplingOneIn) {
        return readyClient(policy, check, samplingOneIn, null);
    }

    /**
     * A ready client with the default settings whose consumer has applied one change committed at {@code gtid}
     * (a row no benchmark reads), so that a read floor at or below that position is proven applied.
     */
    static InvalidationClient readyClientThatApplied(String gtid) {
        InvalidationClient client = readyClient(StalenessPolicy.BYPASS_CACHE, null, 0, gtid);
        CommitPosition position = CommitPosition.parse(gtid).orElseThrow();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!client.readYourWrites().isApplied("items", position)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the change at " + gtid + " was not applied: " + client.status());
            }
            Thread.onSpinWait();
        }
        return client;
    }

    private static InvalidationClient readyClient(StalenessPolicy policy, StalenessCheck check, int samplingOneIn,
            String appliedGtid) {
        InvalidationClientConfig.Builder builder = InvalidationClientConfig.builder().bootstrapServers("in-memory:0")
                .stalenessPolicy(policy)
                .heartbeatRequired(false)
                .samplingOneIn(samplingOneIn)
                .cache(CacheDefinition.builder("items").table("shop.item").keyColumns("id").spec(SPEC).build());
        if (check != null) {
            builder.stalenessCheck(check);
        }
        InvalidationClientConfig config = builder.build();
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("none") {
            @Override
            public synchronized ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
                ConsumerRecords<byte[], byte[]> records = super.poll(timeout);
                try {
                    wait(timeout.toMillis()); // idle like a real consumer, do not steal a core
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return records;
            }
        };
        for (String topic : List.of("cdc.shop.item", config.heartbeatTopic())) {
            consumer.updatePartitions(topic, List.of(new PartitionInfo(topic, 0, null, null, null)));
            consumer.updateBeginningOffsets(Map.of(new TopicPartition(topic, 0), 0L));
            consumer.updateEndOffsets(Map.of(new TopicPartition(topic, 0), 0L));
        }
        InvalidationClient client = new InvalidationClient(config, props -> consumer);
        client.start();
        if (!client.awaitReady(Duration.ofSeconds(10))) {
            throw new IllegalStateException("client not ready");
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!client.status().fresh()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("client not fresh: " + client.status());
            }
            Thread.onSpinWait();
        }
        if (appliedGtid != null) {
            byte[] value = ("{\"op\":\"u\",\"before\":{\"id\":-1},\"after\":{\"id\":-1},\"source\":{\"gtid\":\""
                    + appliedGtid + "\"}}").getBytes(StandardCharsets.UTF_8);
            RecordHeaders headers = new RecordHeaders();
            headers.add(ChangeConsumer.CONNECTOR_HEADER, "benchmark".getBytes(StandardCharsets.UTF_8));
            consumer.addRecord(new ConsumerRecord<>("cdc.shop.item", 0, 0, ConsumerRecord.NO_TIMESTAMP,
                    TimestampType.NO_TIMESTAMP_TYPE, -1, value.length, null, value, headers, Optional.empty()));
            consumer.updateEndOffsets(Map.of(new TopicPartition("cdc.shop.item", 0), 1L));
        }
        return client;
    }
}
