package dev.cdccache.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cdccache.contract.KafkaSecurity;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The client's use of {@link KafkaSecurity}: checked when the configuration is built, errors named as settings. */
class KafkaSecurityTest {

    private static InvalidationClientConfig.Builder config(KafkaSecurity security) {
        return InvalidationClientConfig.builder().bootstrapServers("k:9092").kafkaSecurity(security);
    }

    @Test
    void plaintextIsTheDefaultAndAddsNothing() {
        InvalidationClientConfig config = InvalidationClientConfig.builder().bootstrapServers("k:9092").build();
        assertThat(config.kafkaSecurity()).isEqualTo(KafkaSecurity.plaintext());
        assertThat(config.kafkaSecurity().clientProperties()).isEmpty();
    }

    @Test
    void saslWithoutPasswordFailsNamingTheSetting() {
        assertThatThrownBy(() -> config(KafkaSecurity.builder().protocol(KafkaSecurity.Protocol.SASL_SSL)
                .sasl(KafkaSecurity.Mechanism.SCRAM_SHA_256, "svc", null).build()).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .extracting(e -> ((InvalidConfigurationException) e).setting()).isEqualTo("kafka.security.sasl.password");
    }

    @Test
    void plainWithoutTlsIsRejected() {
        assertThatThrownBy(() -> config(KafkaSecurity.builder().protocol(KafkaSecurity.Protocol.SASL_PLAINTEXT)
                .sasl(KafkaSecurity.Mechanism.PLAIN, "svc", "pw").build()).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("PLAIN sends the password in clear");
    }

    @Test
    void storesWithoutTlsProtocolOrMissingFilesAreRejected() {
        Path missing = Path.of("/nonexistent/truststore.p12");
        assertThatThrownBy(() -> config(KafkaSecurity.builder().truststore(missing, "x", "PKCS12").build()).build())
                .hasMessageContaining("does not use TLS");
        assertThatThrownBy(() -> config(KafkaSecurity.builder().protocol(KafkaSecurity.Protocol.SSL)
                .truststore(missing, "x", "PKCS12").build()).build())
                .hasMessageContaining("kafka.security.ssl.truststore-location");
    }

    @Test
    void aSecurityPropertyRepeatedAsRawPropertyIsRejected() {
        assertThatThrownBy(() -> config(KafkaSecurity.builder().protocol(KafkaSecurity.Protocol.SASL_PLAINTEXT)
                        .sasl(KafkaSecurity.Mechanism.SCRAM_SHA_512, "svc", "pw").build())
                .kafkaProperty("sasl.mechanism", "PLAIN").build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("kafka.properties.sasl.mechanism");
    }
}
