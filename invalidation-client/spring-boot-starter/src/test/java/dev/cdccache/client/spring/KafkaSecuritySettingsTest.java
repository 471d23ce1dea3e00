package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cdccache.client.InvalidConfigurationException;
import dev.cdccache.client.InvalidationClient;
import dev.cdccache.client.spring.actuate.SecretsSanitizingAutoConfiguration;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.context.properties.ConfigurationPropertiesReportEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.env.EnvironmentEndpointAutoConfiguration;
import org.springframework.boot.actuate.context.properties.ConfigurationPropertiesReportEndpoint;
import org.springframework.boot.actuate.env.EnvironmentEndpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import tools.jackson.databind.json.JsonMapper;

/** {@code cdc.invalidation.kafka.security.*}: typed, validated, reaching the consumer, masked in Actuator. */
class KafkaSecuritySettingsTest {

    /** The JDK's own trust store: a real PKCS12/JKS file the Kafka consumer can load. */
    private static final Path JDK_TRUSTSTORE = Path.of(System.getProperty("java.home"), "lib", "security", "cacerts");
    private static final String SASL_PASSWORD = "sasl-pw-4b1d9c";
    private static final String TRUSTSTORE_PASSWORD = "changeit";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CdcInvalidationAutoConfiguration.class,
                    SecretsSanitizingAutoConfiguration.class))
            .withPropertyValues(
                    "cdc.invalidation.bootstrap-servers=127.0.0.1:1",
                    "cdc.invalidation.await-ready=0s",
                    "cdc.invalidation.caches.coupons.table=coupon_db.coupon",
                    "cdc.invalidation.caches.coupons.key-columns=id");

    private ApplicationContextRunner secured() {
        return runner.withPropertyValues(
                "cdc.invalidation.kafka.security.protocol=SASL_SSL",
                "cdc.invalidation.kafka.security.sasl.mechanism=SCRAM_SHA_256",
                "cdc.invalidation.kafka.security.sasl.username=coupon-service",
                "cdc.invalidation.kafka.security.sasl.password=" + SASL_PASSWORD,
                "cdc.invalidation.kafka.security.ssl.truststore-location=" + JDK_TRUSTSTORE,
                "cdc.invalidation.kafka.security.ssl.truststore-password=" + TRUSTSTORE_PASSWORD,
                "cdc.invalidation.kafka.security.ssl.endpoint-identification-algorithm=");
    }

    @Test
    void typedSecuritySettingsReachTheConsumer() {
        assertThat(Files.isReadable(JDK_TRUSTSTORE)).as(JDK_TRUSTSTORE.toString()).isTrue();
        secured().run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(InvalidationClient.class).config().kafkaSecurity().clientProperties())
                    .containsEntry("security.protocol", "SASL_SSL")
                    .containsEntry("sasl.mechanism", "SCRAM-SHA-256")
                    .containsEntry("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required"
                            + " username=\"coupon-service\" password=\"" + SASL_PASSWORD + "\";")
                    .containsEntry("ssl.truststore.location", JDK_TRUSTSTORE.toAbsolutePath().toString())
                    .containsEntry("ssl.truststore.password", TRUSTSTORE_PASSWORD)
                    .containsEntry("ssl.endpoint.identification.algorithm", "");
            assertThat(context.getBean(InvalidationClient.class).config().kafkaSecurity().toString())
                    .contains("coupon-service").doesNotContain(SASL_PASSWORD);
        });
    }

    @Test
    void saslWithoutPasswordFailsStartUpNamingTheSetting() {
        runner.withPropertyValues("cdc.invalidation.kafka.security.protocol=SASL_SSL",
                "cdc.invalidation.kafka.security.sasl.username=coupon-service").run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(CdcInvalidationAutoConfigurationTest.findCause(context.getStartupFailure(),
                            InvalidConfigurationException.class).setting()).isEqualTo("kafka.security.sasl.password");
                    assertThat(new InvalidConfigurationFailureAnalyzer().analyze(context.getStartupFailure())
                            .getDescription()).contains("cdc.invalidation.kafka.security.sasl.password");
                });
    }

    @Test
    void credentialsWithoutASaslProtocolFailInsteadOfBeingIgnored() {
        runner.withPropertyValues("cdc.invalidation.kafka.security.sasl.username=coupon-service",
                "cdc.invalidation.kafka.security.sasl.password=x").run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(CdcInvalidationAutoConfigurationTest.findCause(context.getStartupFailure(),
                            InvalidConfigurationException.class).problem()).contains("set kafka.security.protocol");
                });
    }

    @Test
    void aSecuritySettingRepeatedAsRawPropertyIsRejected() {
        secured().withPropertyValues("cdc.invalidation.kafka.properties.security.protocol=PLAINTEXT").run(context -> {
            assertThat(context).hasFailed();
            assertThat(CdcInvalidationAutoConfigurationTest.findCause(context.getStartupFailure(),
                    InvalidConfigurationException.class).setting()).isEqualTo("kafka.properties.security.protocol");
        });
    }

    @Test
    void actuatorMasksTheSecretsEvenWithShowValuesAlways() {
        secured().withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class,
                        EnvironmentEndpointAutoConfiguration.class,
                        ConfigurationPropertiesReportEndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=env,configprops",
                        "management.endpoints.jmx.exposure.include=env,configprops",
                        "management.endpoint.env.show-values=always",
                        "management.endpoint.configprops.show-values=always",
                        "cdc.invalidation.kafka.properties.client.rack=rack-a",
                        "CDC_INVALIDATION_KAFKA_SECURITY_SSL_KEY_PASSWORD=key-pw-77e1")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    JsonMapper json = JsonMapper.builder().build();
                    String env = json.writeValueAsString(context.getBean(EnvironmentEndpoint.class).environment(null));
                    String configprops = json.writeValueAsString(
                            context.getBean(ConfigurationPropertiesReportEndpoint.class).configurationProperties());
                    for (String body : new String[] {env, configprops}) {
                        assertThat(body).as("values are shown").contains("coupon-service");
                        assertThat(body).contains("******").doesNotContain(SASL_PASSWORD)
                                .doesNotContain(TRUSTSTORE_PASSWORD);
                    }
                    assertThat(env).doesNotContain("key-pw-77e1").contains("rack-a");
                });
    }
}
