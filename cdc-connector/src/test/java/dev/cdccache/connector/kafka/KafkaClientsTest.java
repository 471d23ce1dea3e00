package dev.cdccache.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.connector.config.ConnectorProperties;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

/** The change producer's settings: guarantees fixed, batching defaults overridable. */
class KafkaClientsTest {

    private static ConnectorProperties.Kafka kafka(Map<String, String> properties) {
        ConnectorProperties.Kafka kafka = new ConnectorProperties.Kafka();
        kafka.setBootstrapServers("127.0.0.1:9092");
        kafka.getProperties().putAll(properties);
        return kafka;
    }

    @Test
    void lingersBrieflyByDefaultBecauseEveryBatchEndsWithAFlush() {
        Map<String, Object> config = KafkaClients.producerConfig(kafka(Map.of()), "p");

        assertThat(config).containsEntry(ProducerConfig.LINGER_MS_CONFIG, 5)
                .containsEntry(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    }

    @Test
    void batchingIsTheUsersToChangeButTheGuaranteesAreNot() {
        Map<String, Object> config = KafkaClients.producerConfig(kafka(Map.of(
                ProducerConfig.LINGER_MS_CONFIG, "0", ProducerConfig.ACKS_CONFIG, "1",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false")), "p");

        assertThat(config).containsEntry(ProducerConfig.LINGER_MS_CONFIG, "0")
                .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
                .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    }
}
