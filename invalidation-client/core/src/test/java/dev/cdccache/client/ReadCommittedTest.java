package dev.cdccache.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdccache.client.consuming.TopicPolicies;
import dev.cdccache.client.settings.ClientSettings;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;

/**
 * The client reads committed records only: a transactional connector (Kafka Connect with exactly-once source support)
 * commits a heartbeat together with the changes before it, and a heartbeat read before its transaction committed
 * would prove changes the client has not received yet.
 */
class ReadCommittedTest {

    @Test
    void theConsumerReadsCommittedRecordsByDefault() {
        assertThat(consumerProperties(InvalidationClientConfig.builder().bootstrapServers("mock:9092")))
                .containsEntry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    }

    @Test
    void readCommittedMayBeSpelledOutInTheKafkaProperties() {
        assertThat(consumerProperties(InvalidationClientConfig.builder().bootstrapServers("mock:9092")
                .kafkaProperty("isolation.level", "READ_COMMITTED")))
                .containsEntry(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    }

    @Test
    void readUncommittedIsRefusedAtStartUpNamingTheSetting() {
        assertThatThrownBy(() -> InvalidationClientConfig.builder().bootstrapServers("mock:9092")
                .kafkaProperty("isolation.level", "read_uncommitted").build())
                .isInstanceOfSatisfying(InvalidConfigurationException.class, e -> {
                    assertThat(e.setting()).isEqualTo("kafka.properties.isolation.level");
                    assertThat(e.problem()).contains("must be read_committed", "was 'read_uncommitted'");
                });
    }

    @Test
    void readUncommittedIsRefusedThroughTheSettingsReaderOfEveryFrontEnd() {
        assertThatThrownBy(() -> ClientSettings.read(Map.of(
                        ClientSettings.PREFIX + "bootstrap-servers", "mock:9092",
                        ClientSettings.PREFIX + "kafka.properties.isolation.level", "read_uncommitted")).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("kafka.properties.isolation.level")
                .hasMessageContaining("read_committed");
    }

    /** The properties the client hands its consumer factory when it starts. */
    private static Map<String, Object> consumerProperties(InvalidationClientConfig.Builder config) {
        AtomicReference<Map<String, Object>> seen = new AtomicReference<>();
        try (InvalidationClient client = new InvalidationClient(config.awaitReady(Duration.ZERO).build(), props -> {
            seen.set(Map.copyOf(props));
            return new MockKafkaTopics();
        }, props -> new NoTopicPolicies())) {
            client.start();
        }
        return seen.get();
    }

    private static final class NoTopicPolicies implements TopicPolicies {
        @Override
        public CompletableFuture<Map<String, String>> cleanupPolicies(Set<String> topics) {
            return CompletableFuture.completedFuture(Map.of());
        }

        @Override
        public void close() {
        }
    }
}
