package dev.cdccache.connector.secrets;

import dev.cdccache.connector.config.DebeziumSettings;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Masks the connector's secrets in Actuator's {@code /env} and {@code /configprops} even when an operator turns
 * on {@code management.endpoint.*.show-values=always}: since Spring Boot 3 that setting shows every value
 * unless a {@link SanitizingFunction} masks it. The same rule as the connector's log masking
 * ({@link DebeziumSettings#isSecret}): passwords, JAAS configurations (they embed the SASL password), secrets,
 * credentials, keys; and the JVM command line, which holds any secret passed as a {@code --...} argument.
 */
@Configuration(proxyBeanMethods = false)
class ActuatorSecretMasking {

    @Bean
    SanitizingFunction connectorSecretsSanitizer() {
        return SanitizingFunction.sanitizeValue()
                .ifKeyMatches(key -> DebeziumSettings.isSecret(key) || key.equals("sun.java.command"));
    }
}
