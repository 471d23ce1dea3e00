package dev.cdccache.client.hibernate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdccache.client.InvalidConfigurationException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code cdc.invalidation.kafka.security.*} read from Hibernate's configuration values. */
class HibernateKafkaSecuritySettingsTest {

    private static final Path JDK_TRUSTSTORE = Path.of(System.getProperty("java.home"), "lib", "security", "cacerts");

    @Test
    void scramOverTlsReachesTheClientConfiguration() {
        HibernateCacheSettings settings = new HibernateCacheSettings(Map.of(
                "cdc.invalidation.bootstrap-servers", "kafka:9093",
                "cdc.invalidation.kafka.security.protocol", "sasl_ssl",
                "cdc.invalidation.kafka.security.sasl.mechanism", "SCRAM-SHA-256",
                "cdc.invalidation.kafka.security.sasl.username", "orders",
                "cdc.invalidation.kafka.security.sasl.password", "pw-9f3",
                "cdc.invalidation.kafka.security.ssl.truststore-location", JDK_TRUSTSTORE.toString(),
                "cdc.invalidation.kafka.security.ssl.truststore-password", "changeit"));
        assertThat(settings.clientConfig().build().kafkaSecurity().clientProperties())
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-256")
                .containsEntry("ssl.truststore.password", "changeit")
                .hasEntrySatisfying("sasl.jaas.config", jaas -> assertThat(jaas).contains("username=\"orders\""));
        assertThat(settings.client.kafkaSecurity().toString()).doesNotContain("pw-9f3");
    }

    @Test
    void aTypoOrAMissingPasswordFailsNamingTheSetting() {
        assertThatThrownBy(() -> new HibernateCacheSettings(Map.of("cdc.invalidation.bootstrap-servers", "k:1",
                "cdc.invalidation.kafka.security.sasl.passwd", "x")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageStartingWith("cdc.invalidation.kafka.security.sasl.passwd: is not a setting")
                .hasMessageContaining("did you mean cdc.invalidation.kafka.security.sasl.password?");
        assertThatThrownBy(() -> new HibernateCacheSettings(Map.of("cdc.invalidation.bootstrap-servers", "k:1",
                "cdc.invalidation.kafka.security.protocol", "SASL_SSL",
                "cdc.invalidation.kafka.security.sasl.username", "orders")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageStartingWith("cdc.invalidation.kafka.security.sasl.password: is required");
    }
}
