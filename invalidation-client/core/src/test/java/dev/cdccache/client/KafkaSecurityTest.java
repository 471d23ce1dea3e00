package dev.cdccache.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class KafkaSecurityTest {

    @Test
    void plaintextAddsNothing() {
        assertThat(KafkaSecurity.plaintext().clientProperties()).isEmpty();
    }

    @Test
    void scramBuildsTheJaasConfigurationAndEscapesQuotes() {
        KafkaSecurity security = KafkaSecurity.builder().protocol(KafkaSecurity.Protocol.SASL_PLAINTEXT)
                .sasl(KafkaSecurity.Mechanism.SCRAM_SHA_512, "svc", "p\"w\\d").build();
        assertThat(security.clientProperties())
                .containsEntry("security.protocol", "SASL_PLAINTEXT")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsEntry("sasl.jaas.config",
                        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"svc\" password=\"p\\\"w\\\\d\";");
        assertThat(security.toString()).contains("svc").doesNotContain("p\"w");
    }

    @Test
    void saslWithoutPasswordNamesTheSetting() {
        assertThatThrownBy(() -> KafkaSecurity.builder().protocol(KafkaSecurity.Protocol.SASL_SSL)
                .sasl(KafkaSecurity.Mechanism.SCRAM_SHA_256, "svc", null).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .extracting(e -> ((InvalidConfigurationException) e).setting()).isEqualTo("kafka.security.sasl.password");
    }

    @Test
    void plainWithoutTlsIsRejected() {
        assertThatThrownBy(() -> KafkaSecurity.builder().protocol(KafkaSecurity.Protocol.SASL_PLAINTEXT)
                .sasl(KafkaSecurity.Mechanism.PLAIN, "svc", "pw").build())
                .hasMessageContaining("PLAIN sends the password in clear");
    }

    @Test
    void storesWithoutTlsProtocolOrMissingFilesAreRejected() {
        Path missing = Path.of("/nonexistent/truststore.p12");
        assertThatThrownBy(() -> KafkaSecurity.builder().truststore(missing, "x", "PKCS12").build())
                .hasMessageContaining("does not use TLS");
        assertThatThrownBy(() -> KafkaSecurity.builder().protocol(KafkaSecurity.Protocol.SSL)
                .truststore(missing, "x", "PKCS12").build())
                .hasMessageContaining("kafka.security.ssl.truststore-location");
    }

    @Test
    void aSecurityPropertyRepeatedAsRawPropertyIsRejected() {
        assertThatThrownBy(() -> InvalidationClientConfig.builder().bootstrapServers("k:9092")
                .kafkaSecurity(KafkaSecurity.builder().protocol(KafkaSecurity.Protocol.SASL_PLAINTEXT)
                        .sasl(KafkaSecurity.Mechanism.SCRAM_SHA_512, "svc", "pw").build())
                .kafkaProperty("sasl.mechanism", "PLAIN").build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("kafka.properties.sasl.mechanism");
    }
}
