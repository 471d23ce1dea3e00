package dev.cdccache.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * The starter's quieter Kafka log levels reach Spring Boot's logging system through {@code spring.factories}, and
 * the application's own {@code logging.level.*} wins. (That the Kafka clients then stay quiet while Kafka is down
 * is ComposeStackIT's {@code withKafkaStoppedTheLogsStayQuietWhileHealthAndMetricsShowIt}.)
 */
class KafkaLoggingDefaultsTest {

    private static final String NETWORK_CLIENT = "org.apache.kafka.clients.NetworkClient";
    private static final String CONFIG_DUMPS = "org.apache.kafka.common.config.AbstractConfig";

    @Configuration(proxyBeanMethods = false)
    static class Empty {
    }

    @Test
    void anApplicationWithTheStarterGetsTheQuietLevels() {
        try (ConfigurableApplicationContext context = run()) {
            assertThat(level(context, NETWORK_CLIENT)).isEqualTo(LogLevel.ERROR);
            assertThat(level(context, CONFIG_DUMPS)).isEqualTo(LogLevel.WARN);
            assertThat(context.getEnvironment().getPropertySources().contains(KafkaLoggingDefaults.PROPERTY_SOURCE)).isTrue();
        }
    }

    @Test
    void theApplicationsOwnLevelWins() {
        try (ConfigurableApplicationContext context = run("--logging.level." + NETWORK_CLIENT + "=WARN")) {
            assertThat(level(context, NETWORK_CLIENT)).isEqualTo(LogLevel.WARN);
            assertThat(level(context, CONFIG_DUMPS)).isEqualTo(LogLevel.WARN);
        }
    }

    @Test
    void aDisabledClientLeavesLoggingAlone() {
        try (ConfigurableApplicationContext context = run("--cdc.invalidation.enabled=false")) {
            assertThat(context.getEnvironment().getPropertySources().contains(KafkaLoggingDefaults.PROPERTY_SOURCE)).isFalse();
            assertThat(level(context, NETWORK_CLIENT)).isNotEqualTo(LogLevel.ERROR);
        }
    }

    private static ConfigurableApplicationContext run(String... args) {
        SpringApplication application = new SpringApplication(Empty.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        return application.run(args);
    }

    private static LogLevel level(ConfigurableApplicationContext context, String logger) {
        return context.getBean(LoggingSystem.class).getLoggerConfiguration(logger).getEffectiveLevel();
    }
}
