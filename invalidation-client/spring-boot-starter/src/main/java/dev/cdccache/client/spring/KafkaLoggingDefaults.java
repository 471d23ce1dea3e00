package dev.cdccache.client.spring;

import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Quieter default log levels for the Kafka client the starter brings, as the LOWEST-precedence property source:
 * any {@code logging.level.*} of the application (application.yml, environment, command line) for the same
 * logger wins.
 *
 * <ul>
 *   <li>{@code org.apache.kafka.clients.NetworkClient: ERROR}: while Kafka is unreachable it logs "Connection to
 *       node ... could not be established" at WARN on every reconnect attempt, for every client of the JVM; the
 *       state stays visible without it (health component {@code cdcInvalidation}, {@code cdc_client_fresh}, and
 *       the client's own rate-limited "Kafka consumer failed" WARN). Authentication failures are ERRORs and still
 *       show.</li>
 *   <li>{@code org.apache.kafka.common.config.AbstractConfig: WARN}: every Kafka client dumps its whole
 *       configuration ("ConsumerConfig values:", dozens of lines) at INFO when created; the WARN about unused
 *       settings still shows.</li>
 *   <li>{@code AppInfoParser} (version banner per client) and the consumer's {@code SubscriptionState} (one
 *       "Seeking to ... offset of partition" line per partition at start and after every reconnect): {@code WARN}.</li>
 * </ul>
 *
 * <p>To see them again, set the logger's level, e.g. {@code logging.level.org.apache.kafka.clients.NetworkClient:
 * WARN}. Registered in {@code META-INF/spring.factories}; it runs before Spring Boot initialises logging.
 */
public class KafkaLoggingDefaults implements EnvironmentPostProcessor {

    /** Name of the property source, for {@code /actuator/env} and tests. */
    public static final String PROPERTY_SOURCE = "cdcInvalidationKafkaLoggingDefaults";

    static final Map<String, Object> LEVELS = Map.of(
            "logging.level.org.apache.kafka.clients.NetworkClient", "ERROR",
            "logging.level.org.apache.kafka.common.config.AbstractConfig", "WARN",
            "logging.level.org.apache.kafka.common.utils.AppInfoParser", "WARN",
            "logging.level.org.apache.kafka.clients.consumer.internals.SubscriptionState", "WARN");

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        // Runs after the application's configuration is loaded (lowest order), so this sees cdc.invalidation.enabled.
        boolean enabled = environment.getProperty("cdc.invalidation.enabled", Boolean.class, true);
        if (enabled && !environment.getPropertySources().contains(PROPERTY_SOURCE)) {
            environment.getPropertySources().addLast(new MapPropertySource(PROPERTY_SOURCE, LEVELS));
        }
    }
}
