package dev.cdccache.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.contract.KafkaSecurity.Mechanism;
import dev.cdccache.contract.KafkaSecurity.Protocol;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaSecurityTest {

    private static final String PREFIX = "cdc.connector.kafka.security.";

    @Test
    void plaintextAddsNothingAndHasNoProblems() {
        assertThat(KafkaSecurity.plaintext().clientProperties()).isEmpty();
        assertThat(KafkaSecurity.plaintext().problems(PREFIX)).isEmpty();
    }

    @Test
    void componentsLeftOutTakeKafkasDefaults() {
        // What constructor binding produces when no setting is given.
        KafkaSecurity security = new KafkaSecurity(null, null, null);
        assertThat(security.protocol()).isEqualTo(Protocol.PLAINTEXT);
        assertThat(security.sasl().mechanism()).isEqualTo(Mechanism.SCRAM_SHA_512);
        assertThat(new KafkaSecurity(Protocol.SASL_SSL, new KafkaSecurity.Sasl(null, "svc", "pw"), null)
                .clientProperties()).containsEntry("sasl.mechanism", "SCRAM-SHA-512");
    }

    @Test
    void scramBuildsTheJaasConfigurationAndEscapesQuotes() {
        KafkaSecurity security = KafkaSecurity.builder().protocol(Protocol.SASL_PLAINTEXT)
                .sasl(Mechanism.SCRAM_SHA_512, "svc", "p\"w\\d").build();
        assertThat(security.problems(PREFIX)).isEmpty();
        assertThat(security.clientProperties())
                .containsEntry("security.protocol", "SASL_PLAINTEXT")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsEntry("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required"
                        + " username=\"svc\" password=\"p\\\"w\\\\d\";");
    }

    @Test
    void tlsSettingsBecomeSslPropertiesAndAnEmptyAlgorithmSwitchesTheHostNameCheckOff(@TempDir Path dir)
            throws IOException {
        Path truststore = Files.createFile(dir.resolve("truststore.p12"));
        KafkaSecurity security = KafkaSecurity.builder().protocol(Protocol.SSL).truststore(truststore, "tpw", "PKCS12")
                .endpointIdentificationAlgorithm("").build();
        assertThat(security.problems(PREFIX)).isEmpty();
        assertThat(security.clientProperties()).containsEntry("security.protocol", "SSL")
                .containsEntry("ssl.truststore.location", truststore.toAbsolutePath().toString())
                .containsEntry("ssl.truststore.password", "tpw").containsEntry("ssl.truststore.type", "PKCS12")
                .containsEntry("ssl.endpoint.identification.algorithm", "").doesNotContainKey("sasl.jaas.config");
    }

    @Test
    void aSaslProtocolWithoutCredentialsNamesBothSettingsUnderTheCallersPrefix() {
        assertThat(KafkaSecurity.builder().protocol(Protocol.SASL_SSL).build().problems(PREFIX))
                .extracting(SettingProblem::setting)
                .containsExactly(PREFIX + "sasl.username", PREFIX + "sasl.password");
        assertThat(KafkaSecurity.builder().protocol(Protocol.SASL_SSL).username("svc").build().problems("kafka.security."))
                .singleElement().extracting(SettingProblem::setting).isEqualTo("kafka.security.sasl.password");
    }

    @Test
    void credentialsWithoutASaslProtocolAreAForgottenProtocolNotSomethingToIgnore() {
        assertThat(KafkaSecurity.builder().username("svc").password("pw").build().problems(PREFIX))
                .singleElement().satisfies(problem -> {
                    assertThat(problem.setting()).isEqualTo(PREFIX + "sasl.username");
                    assertThat(problem.problem()).contains("set " + PREFIX + "protocol");
                });
    }

    @Test
    void plainIsRejectedOverAClearTextConnection() {
        assertThat(KafkaSecurity.builder().protocol(Protocol.SASL_PLAINTEXT).sasl(Mechanism.PLAIN, "svc", "pw").build()
                .problems(PREFIX)).singleElement().extracting(SettingProblem::problem).asString()
                .contains("PLAIN sends the password in clear");
        assertThat(KafkaSecurity.builder().protocol(Protocol.SASL_SSL).sasl(Mechanism.PLAIN, "svc", "pw").build()
                .problems(PREFIX)).isEmpty();
    }

    @Test
    void storesWithoutATlsProtocolOrMissingStoreFilesAreRejected() {
        Path missing = Path.of("/nonexistent/truststore.p12");
        assertThat(KafkaSecurity.builder().truststore(missing, "x", "PKCS12").build().problems(PREFIX))
                .extracting(SettingProblem::toString)
                .anySatisfy(problem -> assertThat(problem).startsWith(PREFIX + "ssl.truststore-location: ")
                        .contains("does not use TLS"));
        assertThat(KafkaSecurity.builder().protocol(Protocol.SSL).keystore(missing, "x", "y", "PKCS12").build()
                .problems(PREFIX)).singleElement().extracting(SettingProblem::toString).asString()
                .startsWith(PREFIX + "ssl.keystore-location: names a file that does not exist or is not readable");
    }

    @Test
    void toStringNeverShowsASecret() {
        KafkaSecurity security = KafkaSecurity.builder().protocol(Protocol.SASL_SSL)
                .sasl(Mechanism.SCRAM_SHA_256, "svc", "sasl-pw-1").truststore(Path.of("t.p12"), "trust-pw-2", "PKCS12")
                .keystore(Path.of("k.p12"), "store-pw-3", "key-pw-4", "PKCS12").build();
        assertThat(security.toString()).contains("svc", "t.p12", "k.p12", "******")
                .doesNotContain("sasl-pw-1", "trust-pw-2", "store-pw-3", "key-pw-4");
        assertThat(security.clientProperties().values()).contains("trust-pw-2", "store-pw-3", "key-pw-4");
    }
}
