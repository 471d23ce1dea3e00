package dev.cdccache.connector.health;

import dev.cdccache.connector.kafka.KafkaClients;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/** UP when the Kafka cluster describes itself within 3 s. */
public final class KafkaHealthIndicator implements HealthIndicator {

    private final KafkaClients clients;
    private final String bootstrapServers;

    public KafkaHealthIndicator(KafkaClients clients, String bootstrapServers) {
        this.clients = clients;
        this.bootstrapServers = bootstrapServers;
    }

    @Override
    public Health health() {
        try {
            int brokers = clients.admin().describeCluster().nodes().get(3, TimeUnit.SECONDS).size();
            return Health.up().withDetail("bootstrapServers", bootstrapServers).withDetail("brokers", brokers).build();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Health.down().withDetail("bootstrapServers", bootstrapServers).build();
        } catch (Exception e) {
            return Health.down().withDetail("bootstrapServers", bootstrapServers).withDetail("error", e.toString()).build();
        }
    }
}
