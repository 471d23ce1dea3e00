package dev.cdccache.client.spring.actuate;

import java.util.Locale;
import java.util.regex.Pattern;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Masks the invalidation client's secrets (the Kafka SASL password, trust and key store passwords, a JAAS
 * configuration passed as a raw Kafka property) in Actuator's {@code /env} and {@code /configprops}, also when
 * the application sets {@code management.endpoint.*.show-values=always}: since Spring Boot 3 that setting shows
 * every value a {@link SanitizingFunction} does not mask. Only keys under {@code cdc.invalidation} (or their
 * environment-variable form {@code CDC_INVALIDATION_...}) are touched; the rest of the application keeps its own
 * policy.
 */
@AutoConfiguration
@ConditionalOnClass(SanitizingFunction.class)
public class SecretsSanitizingAutoConfiguration {

    private static final Pattern SECRET = Pattern.compile("password|jaas|secret|credential|token");

    /** Whether {@code key} (a property name or an environment variable) holds a secret of the client's settings. */
    public static boolean isClientSecret(String key) {
        String k = key.toLowerCase(Locale.ROOT);
        return (k.startsWith("cdc.invalidation.") || k.startsWith("cdc_invalidation_")) && SECRET.matcher(k).find();
    }

    @Bean
    @ConditionalOnMissingBean(name = "cdcInvalidationSecretsSanitizer")
    SanitizingFunction cdcInvalidationSecretsSanitizer() {
        return SanitizingFunction.sanitizeValue().ifKeyMatches(SecretsSanitizingAutoConfiguration::isClientSecret);
    }
}
