package dev.cdccache.connector.kafka;

import dev.cdccache.connector.config.ConnectorProperties;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The connector's own Kafka clients, created on first use (so that exporting the configuration
 * or a failed start-up check never opens connections) and closed with the application.
 */
public final class KafkaClients implements AutoCloseable {

    private final ConnectorProperties.Kafka kafka;
    private final String clientIdPrefix;
    private Admin admin;
    private Producer<byte[], byte[]> producer;

    public KafkaClients(ConnectorProperties.Kafka kafka, String clientIdPrefix) {
        this.kafka = kafka;
        this.clientIdPrefix = clientIdPrefix;
    }

    /**
     * Producer settings: idempotent, {@code acks=all}, user's client properties on top of the defaults.
     *
     * <p>{@code linger.ms} 5: the publisher ends every batch with {@code flush()}, which sends what is
     * buffered at once, so lingering holds nothing back at the end of a batch; it only stops the sender
     * thread from shipping each record of a large batch in a request of its own while the batch is still
     * being serialised. In the connector benchmark (docs/benchmarks.md) it raised the bulk rate and halved
     * the broker's CPU, with latency no worse. Longer lingers (50, 100 ms) showed up as the single-row p99,
     * so the linger is kept short.
     */
    public static Map<String, Object> producerConfig(ConnectorProperties.Kafka kafka, String clientId) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.getBootstrapServers());
        config.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        config.putAll(kafka.clientProperties());
        // Guarantees, not tuning: the user's properties must not weaken them.
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        config.putIfAbsent(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        return config;
    }

    /** The producer's {@code max.request.size}: the user's setting, else Kafka's default (1 MiB). */
    public static int maxRequestSize(ConnectorProperties.Kafka kafka) {
        Object configured = producerConfig(kafka, "size").get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
        return configured == null ? 1024 * 1024 : Integer.parseInt(configured.toString().trim());
    }

    /** The shared admin client. */
    public synchronized Admin admin() {
        if (admin == null) {
            Map<String, Object> config = new HashMap<>();
            config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.getBootstrapServers());
            config.put(AdminClientConfig.CLIENT_ID_CONFIG, clientIdPrefix + "-admin");
            config.putAll(kafka.clientProperties());
            config.putIfAbsent(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
            config.putIfAbsent(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
            admin = Admin.create(config);
        }
        return admin;
    }

    /** The shared producer of change events. */
    public synchronized Producer<byte[], byte[]> producer() {
        if (producer == null) {
            producer = new KafkaProducer<>(producerConfig(kafka, clientIdPrefix + "-producer"));
        }
        return producer;
    }

    @Override
    public synchronized void close() {
        if (producer != null) {
            producer.close(Duration.ofSeconds(10));
            producer = null;
        }
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
            admin = null;
        }
    }
}
