package dev.cdccache.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Sampling is off unless asked for, and when on every cache has its consistency meters. */
class ConsistencySamplingConfigTest {

    private static InvalidationClientConfig.Builder config() {
        return InvalidationClientConfig.builder().bootstrapServers("mock:9092")
                .cache(CacheDefinition.builder("coupons").table("coupon_db.coupon").keyColumns("id").build());
    }

    private static InvalidationClient client(InvalidationClientConfig config) {
        MockConsumer<byte[], byte[]> kafka = new MockConsumer<>("none");
        for (String topic : List.of("cdc.coupon_db.coupon", config.heartbeatTopic())) {
            kafka.updatePartitions(topic, List.of(new PartitionInfo(topic, 0, null, null, null)));
            kafka.updateBeginningOffsets(Map.of(new TopicPartition(topic, 0), 0L));
            kafka.updateEndOffsets(Map.of(new TopicPartition(topic, 0), 0L));
        }
        return new InvalidationClient(config, props -> kafka);
    }

    @Test
    void samplingIsOffByDefaultAndRegistersNoConsistencyMeters() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (InvalidationClient client = client(config().meterRegistry(registry).build())) {
            assertThat(client.config().samplingOneIn()).isZero();
            assertThat(client.consistencySampler()).isEmpty();
            assertThat(client.staleSamplesInWindow()).isEmpty();
            assertThat(registry.find("cdc.client.consistency.samples").meters()).isEmpty();
        }
    }

    @Test
    void samplingOnRegistersEachOutcomeAndTheNinesPerCache() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (InvalidationClient client = client(config().meterRegistry(registry).samplingOneIn(1000).build())) {
            assertThat(client.consistencySampler()).isPresent();
            assertThat(registry.find("cdc.client.consistency.samples").tag("cache", "coupons").meters())
                    .extracting(meter -> meter.getId().getTag("outcome"))
                    .containsExactlyInAnyOrder("consistent", "stale", "inconclusive");
            assertThat(registry.find("cdc.client.consistency.nines").tag("cache", "coupons").gauge()).isNotNull();
        }
    }

    @Test
    void invalidSamplingSettingsFailWithTheSettingToFix() {
        assertThatThrownBy(() -> config().samplingOneIn(-1).build()).hasMessageContaining("sampling.one-in");
        assertThatThrownBy(() -> config().samplingOneIn(100).samplingMaxPerSecond(0).build())
                .hasMessageContaining("sampling.max-per-second");
        assertThatThrownBy(() -> config().samplingWindow(Duration.ofSeconds(1)).build())
                .hasMessageContaining("sampling.window");
    }
}
